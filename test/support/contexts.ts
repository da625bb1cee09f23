// Callers without Keystone, for unit tests of what decides by the caller: an AuthContext as the token
// validator builds it (src/keystone/context.ts), project-scoped member of project p-1 unless told otherwise.
import type { AuthContext } from '../../src/keystone/context.js';

export function authContext(over: Partial<AuthContext> = {}): AuthContext {
  const scope = over.scope ?? 'project';
  const roles = over.roles ?? ['member', 'reader'];
  return {
    userId: 'u-1',
    userName: 'user-1',
    userDomainId: 'default',
    projectId: scope === 'project' ? 'p-1' : null,
    projectName: scope === 'project' ? 'project-1' : null,
    projectDomainId: scope === 'project' ? 'default' : null,
    domainId: scope === 'domain' ? 'default' : null,
    scope,
    roles,
    isAdmin: roles.includes('admin') && (scope === 'project' || scope === 'system'),
    expiresAt: Date.now() + 3_600_000,
    catalog: [],
    applicationCredential: null,
    ...over,
  };
}
