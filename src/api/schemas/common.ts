// Schema building blocks shared by the v1 resources.
import { Type, type TSchema, type Static } from '@sinclair/typebox';

/** A nullable schema as a JSON-schema type array (keeps ajv's errors and the OpenAPI 3.1 document simple). */
export function Nullable<T extends TSchema>(schema: T) {
  const s = schema as unknown as { type: string } & Record<string, unknown>;
  return Type.Unsafe<Static<T> | null>({ ...s, type: [s.type, 'null'] });
}

export const NStr = (max = 255, min = 1) => Nullable(Type.String({ minLength: min, maxLength: max }));
export const NBool = () => Nullable(Type.Boolean());
export const NInt = (opts: { minimum?: number; maximum?: number } = {}) => Nullable(Type.Integer(opts));

export const Link = Type.Object({ href: Type.String(), rel: Type.String() });
export const Links = Type.Array(Link);
export const Timestamp = Nullable(Type.String({ description: 'ISO-8601 UTC, seconds precision' }));

// A type array (not anyOf): ajv's coercion leaves a value alone when its type is listed.
export const LabelValue = Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'] });
export const LabelsIn = Nullable(Type.Record(Type.String(), LabelValue));
export const LabelsOut = Nullable(Type.Record(Type.String(), Type.String()));

export const Ident = Type.String({ description: 'UUID or name', minLength: 1 });

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer()),
    marker: Type.Optional(Type.String()),
    sort_key: Type.Optional(Type.String()),
    sort_dir: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type ListQueryT = Static<typeof ListQuery>;

/**
 * A JSON patch body. Magnum's rules check it (checkPatch), with their own errors, not the validator:
 * the handler receives it as unknown.
 */
export const PatchDocument = Type.Unsafe<unknown>(
  Type.Array(Type.Object({ op: Type.String(), path: Type.String(), value: Type.Optional(Type.Unknown()) }), { description: 'JSON patch' }),
);

/** The 204 answers: no body (documented as null). */
export const NoContent = Type.Unsafe<undefined>(Type.Null());

/** `{"uuid": ...}` answers of the asynchronous operations. */
export const UuidBody = Type.Object({ uuid: Type.String({ format: 'uuid' }) });

/** Magnum's error envelope, for every error response of the document. */
export const ErrorEnvelope = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        request_id: Type.String(),
        code: Type.String(),
        status: Type.Integer(),
        title: Type.String(),
        detail: Nullable(Type.String()),
        links: Type.Array(Type.Unknown()),
      }),
    ),
  },
  { $id: 'ErrorEnvelope' },
);

/** Keystone's 401 body (keystonemiddleware's shape, outside Magnum's envelope). */
export const Unauthorized = Type.Object(
  { error: Type.Object({ code: Type.Literal(401), title: Type.String(), message: Type.String() }) },
  { $id: 'Unauthorized' },
);

export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [c, Type.Ref(c === 401 ? Unauthorized : ErrorEnvelope)]));

/** A nullable string enum. */
export const NEnum = <T extends string>(values: readonly T[]) =>
  Type.Unsafe<T | null>({ type: ['string', 'null'], enum: [...values, null] });
