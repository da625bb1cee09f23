// /v3/auth/*: issue, validate (GET/HEAD), revoke tokens; the token's catalog, projects and domains.
import type { FastifyInstance } from 'fastify';
import {
  accessRulesHeader,
  callerToken,
  forbidAction,
  hasRole,
  isAdmin,
  subjectTokenHeader,
  type SimContext,
} from './context.js';
import { ksErrors } from './errors.js';
import { queryFlag } from './format.js';
import { list, renderDomain, renderProject } from './render.js';
import { AuthRequest } from './schemas.js';
import type { ValidatedToken } from './token-service.js';

type Query = Record<string, string | undefined>;

/** identity:validate_token / revoke_token: admin, service role, or the subject token's own user. */
function mayInspect(ctx: SimContext, caller: ValidatedToken, subject: ValidatedToken): boolean {
  return isAdmin(ctx, caller) || hasRole(ctx, caller, 'service') || caller.user.id === subject.user.id;
}

export function registerAuthRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.post<{ Body: AuthRequest; Querystring: Query }>(
    '/v3/auth/tokens',
    { schema: { body: AuthRequest } },
    async (request, reply) => {
      const token = await ctx.authenticator.authenticate(request.body.auth);
      reply.code(201).header('x-subject-token', token.id);
      return ctx.tokens.body(token, !('nocatalog' in request.query));
    },
  );

  // Fastify derives HEAD from this route: same checks, no body.
  app.get<{ Querystring: Query }>('/v3/auth/tokens', async (request, reply) => {
    ctx.state.validations++;
    const caller = await callerToken(ctx, request);
    const subjectId = subjectTokenHeader(request);
    const allowExpired = queryFlag(request.query.allow_expired);
    const rules = accessRulesHeader(request);
    const subject = subjectId === undefined ? undefined : await ctx.tokens.validate(subjectId, { allowExpired, ...(rules === undefined ? {} : { accessRules: rules }) });
    if (!subject) throw ksErrors.tokenNotFound();
    if (!mayInspect(ctx, caller, subject)) forbidAction('identity:validate_token');
    reply.header('x-subject-token', subject.id);
    return ctx.tokens.body(subject, !('nocatalog' in request.query));
  });

  app.delete('/v3/auth/tokens', async (request, reply) => {
    const caller = await callerToken(ctx, request);
    const subjectId = subjectTokenHeader(request);
    const rules = accessRulesHeader(request);
    const subject = subjectId === undefined ? undefined : await ctx.tokens.validate(subjectId, rules === undefined ? {} : { accessRules: rules });
    if (!subject) throw ksErrors.tokenNotFound();
    if (!mayInspect(ctx, caller, subject)) forbidAction('identity:revoke_token');
    const auditId = subject.payload.auditIds[0];
    if (auditId !== undefined) ctx.state.revocations.revokeAuditId(auditId);
    return reply.code(204).send();
  });

  app.get('/v3/auth/catalog', async (request) => {
    const caller = await callerToken(ctx, request);
    if (caller.payload.scope === undefined) {
      throw ksErrors.forbidden('Unscoped tokens cannot have a service catalog.');
    }
    const catalog = ctx.state.catalog.forToken({
      userId: caller.user.id,
      ...(caller.project ? { projectId: caller.project.id } : {}),
    });
    return { catalog, links: { self: ctx.urls.link('/auth/catalog'), previous: null, next: null } };
  });

  app.get('/v3/auth/projects', async (request) => {
    const caller = await callerToken(ctx, request);
    const projects = ctx.state.projectsOfUser(caller.user.id).filter((p) => p.enabled);
    return list(ctx.urls, '/auth/projects', 'projects', projects.map((p) => renderProject(ctx.urls, p)));
  });

  app.get('/v3/auth/domains', async (request) => {
    const caller = await callerToken(ctx, request);
    const ids = new Set(
      ctx.state
        .assignmentsOf(caller.user.id)
        .filter((a) => a.scope.kind === 'domain')
        .map((a) => a.scope.id),
    );
    const domains = [...ctx.state.domains.values()].filter((d) => d.enabled && ids.has(d.id));
    return list(ctx.urls, '/auth/domains', 'domains', domains.map((d) => renderDomain(ctx.urls, d)));
  });
}
