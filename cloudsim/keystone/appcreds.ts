// Application credentials: secrets stored hashed, roles intersected with the owner's current roles.
import { IndexedMap } from '../common/indexed-map.js';
import { ksErrors } from './errors.js';
import { hashSecretAsync, newAppCredSecret, newId, verifySecret } from './secrets.js';
import type { KeystoneState } from './state.js';

export interface AccessRule {
  id: string;
  service: string;
  method: string;
  path: string;
}

/**
 * Whether an access rule lets a token of its credential make this request of the `service` (Keystone's
 * own API is `identity`): same service and method, and the path matches the rule's template (`*` and
 * `{name}`: one segment; `**`: anything), as keystonemiddleware matches them.
 */
export function accessRuleAllows(rules: readonly AccessRule[], service: string, method: string, path: string): boolean {
  return rules.some((r) => r.service === service && r.method === method && templateRegExp(r.path).test(path));
}

function templateRegExp(template: string): RegExp {
  let body = '';
  for (const [tok] of template.matchAll(/\{[^}]*\}|\*\*|\*|[^{*]+|\{/g)) {
    if (tok === '**') body += '.*';
    else if (tok === '*' || (tok.startsWith('{') && tok.endsWith('}'))) body += '[^/]+';
    else body += tok.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${body}$`, 's');
}

export interface AppCred {
  id: string;
  userId: string;
  name: string;
  description: string | null;
  secretHash: string;
  projectId: string;
  /** The credential's roles, implied roles included (what its tokens carry). */
  roleIds: string[];
  /** The roles as asked for (what Keystone shows of the credential: it expands implied roles only in tokens); roleIds when absent (older state files). */
  askedRoleIds?: string[];
  expiresAt: number | null;
  unrestricted: boolean;
  accessRules: AccessRule[];
}

export interface NewAppCred {
  userId: string;
  name: string;
  projectId: string;
  roleIds: string[];
  description?: string | null;
  secret?: string;
  expiresAt?: number | null;
  unrestricted?: boolean;
  accessRules?: Omit<AccessRule, 'id'>[];
}

export class AppCredStore {
  /** `userName`: `user|name`, unique. */
  private readonly byId = new IndexedMap<AppCred, 'user' | 'userName'>({ user: (c) => c.userId, userName: (c) => `${c.userId}|${c.name}` });

  constructor(private readonly state: KeystoneState) {}

  /**
   * Creates a credential; the secret (given or generated) is returned once and only its hash is kept. The name is
   * judged after the hash is made, so of two creates of one name at once the second is the conflict.
   */
  async create(input: NewAppCred): Promise<{ cred: AppCred; secret: string }> {
    const secret = input.secret ?? newAppCredSecret();
    const secretHash = await hashSecretAsync(secret);
    if (this.listForUser(input.userId, input.name).length > 0) {
      throw ksErrors.conflict('application_credential', `Duplicate entry found with name ${input.name}.`);
    }
    const cred: AppCred = {
      id: newId(),
      userId: input.userId,
      name: input.name,
      description: input.description ?? null,
      secretHash,
      projectId: input.projectId,
      roleIds: this.state.expandRoles(input.roleIds),
      askedRoleIds: [...new Set(input.roleIds)],
      expiresAt: input.expiresAt ?? null,
      unrestricted: input.unrestricted ?? false,
      accessRules: (input.accessRules ?? []).map((r) => ({ id: newId(), ...r })),
    };
    this.byId.set(cred.id, cred);
    return { cred, secret };
  }

  get(id: string): AppCred | undefined {
    return this.byId.get(id);
  }

  listForUser(userId: string, name?: string): AppCred[] {
    return name === undefined ? this.byId.by('user', userId) : this.byId.by('userName', `${userId}|${name}`);
  }

  delete(id: string): boolean {
    return this.byId.delete(id);
  }

  deleteForUser(userId: string): void {
    for (const c of this.listForUser(userId)) this.byId.delete(c.id);
  }

  /** Every credential (for snapshots). */
  all(): AppCred[] {
    return [...this.byId.values()];
  }

  /** Replaces every credential (restoring a snapshot). */
  load(creds: AppCred[]): void {
    this.byId.clear();
    for (const c of creds) this.byId.set(c.id, c);
  }

  verifySecret(cred: AppCred, secret: string): Promise<boolean> {
    return verifySecret(secret, cred.secretHash);
  }

  isExpired(cred: AppCred, now: number): boolean {
    return cred.expiresAt !== null && now >= cred.expiresAt;
  }

  /** The roles a token from this credential carries now: its roles ∩ the owner's current effective roles. */
  tokenRoleIds(cred: AppCred): string[] {
    const current = new Set(this.state.effectiveRoleIds(cred.userId, { kind: 'project', id: cred.projectId }));
    return cred.roleIds.filter((id) => current.has(id));
  }
}
