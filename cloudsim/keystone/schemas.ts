// Request schemas (validated by Fastify; failures become Keystone 400s).
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';

const Str = Type.String();
const OptStr = Type.Optional(Type.String());
const DomainRef = Type.Object({ id: OptStr, name: OptStr });
const NamedRef = Type.Object({ id: OptStr, name: OptStr, domain: Type.Optional(DomainRef) });

export const AuthRequest = Type.Object({
  auth: Type.Object({
    identity: Type.Object({
      methods: Type.Array(Str, { minItems: 1 }),
      password: Type.Optional(
        Type.Object({
          user: Type.Object({ id: OptStr, name: OptStr, domain: Type.Optional(DomainRef), password: Str }),
        }),
      ),
      token: Type.Optional(Type.Object({ id: Str })),
      application_credential: Type.Optional(
        Type.Object({ id: OptStr, name: OptStr, secret: Str, user: Type.Optional(NamedRef) }),
      ),
    }),
    scope: Type.Optional(
      Type.Union([
        Type.Literal('unscoped'),
        Type.Object({
          project: Type.Optional(NamedRef),
          domain: Type.Optional(DomainRef),
          system: Type.Optional(Type.Object({ all: Type.Optional(Type.Boolean()) })),
          unscoped: Type.Optional(Type.Unknown()),
          'OS-TRUST:trust': Type.Optional(Type.Object({ id: Str })),
        }),
      ]),
    ),
  }),
});
export type AuthRequest = Static<typeof AuthRequest>;

export const ProjectCreate = Type.Object({
  project: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 64 }),
    domain_id: OptStr,
    description: OptStr,
    enabled: Type.Optional(Type.Boolean()),
    parent_id: Type.Optional(Type.Union([Str, Type.Null()])),
    is_domain: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Array(Str)),
  }),
});
export type ProjectCreate = Static<typeof ProjectCreate>;

export const UserCreate = Type.Object({
  user: Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 255 }),
      password: Type.Optional(Type.Union([Str, Type.Null()])),
      domain_id: OptStr,
      default_project_id: Type.Optional(Type.Union([Str, Type.Null()])),
      enabled: Type.Optional(Type.Boolean()),
      description: Type.Optional(Type.Union([Str, Type.Null()])),
    },
    { additionalProperties: true },
  ),
});
export type UserCreate = Static<typeof UserCreate>;

export const UserUpdate = Type.Object({
  user: Type.Object({
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    password: Type.Optional(Str),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.Union([Str, Type.Null()])),
    default_project_id: Type.Optional(Type.Union([Str, Type.Null()])),
  }),
});
export type UserUpdate = Static<typeof UserUpdate>;

const RoleRef = Type.Object({ id: OptStr, name: OptStr });

export const AppCredCreate = Type.Object({
  application_credential: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.Union([Str, Type.Null()])),
    secret: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    expires_at: Type.Optional(Type.Union([Str, Type.Null()])),
    roles: Type.Optional(Type.Array(RoleRef)),
    unrestricted: Type.Optional(Type.Boolean()),
    access_rules: Type.Optional(
      Type.Array(
        Type.Object({
          service: Str,
          method: Type.Union(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m))),
          // Keystone: a string starting with '/', at most 225 characters
          path: Type.String({ pattern: '^/', maxLength: 225 }),
        }),
      ),
    ),
  }),
});
export type AppCredCreate = Static<typeof AppCredCreate>;

export const IdParams = Type.Object({ id: Str });
export type IdParams = Static<typeof IdParams>;
