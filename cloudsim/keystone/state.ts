// In-memory identity data: domains, projects, users, roles, assignments, app credentials, revocations.
import type { AuditResource, Auditable, Snapshotable } from '../common/audit.js';
import { IndexedMap } from '../common/indexed-map.js';
import { AppCredStore, type AppCred } from './appcreds.js';
import type { Catalog } from './catalog.js';
import { ksErrors } from './errors.js';
import { Revocations } from './revocations.js';
import { hashSecret, newId } from './secrets.js';

/** A token or assignment target. System scope is `{ kind: 'system', id: 'all' }`. */
export interface Scope {
  kind: 'project' | 'domain' | 'system';
  id: string;
}

export interface Domain {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
}

export interface Project {
  id: string;
  name: string;
  domainId: string;
  description: string;
  enabled: boolean;
  tags: string[];
}

export interface User {
  id: string;
  name: string;
  domainId: string;
  enabled: boolean;
  passwordHash?: string;
  defaultProjectId?: string;
  description?: string;
  /** Extra attributes (e.g. email) stored and echoed back as Keystone does. */
  extra: Record<string, unknown>;
}

export interface Role {
  id: string;
  name: string;
  description: string | null;
}

export interface Assignment {
  userId: string;
  roleId: string;
  scope: Scope;
}

export interface StateHooks {
  now: () => number;
  /** Reads the audit ids of a token without verifying it (for the test helper `revokeToken`). */
  peekAuditIds: (token: string) => string[] | undefined;
}

export interface NewProject {
  domainId?: string;
  description?: string;
  enabled?: boolean;
  tags?: string[];
}

export interface NewUser {
  domainId?: string;
  enabled?: boolean;
  description?: string;
  extra?: Record<string, unknown>;
}

const sameScope = (a: Scope, b: Scope): boolean => a.kind === b.kind && a.id === b.id;

interface KeystoneSnapshot {
  domains: Domain[];
  projects: Project[];
  users: User[];
  roles: Role[];
  implications: [string, string[]][];
  assignments: Assignment[];
  appCreds: AppCred[];
}

/** The key of an assignment, one a user, role and scope. */
const assignmentKey = (a: Assignment): string => `${a.userId}|${a.roleId}|${a.scope.kind}|${a.scope.id}`;

export class KeystoneState implements Auditable, Snapshotable {
  /** Number of GET/HEAD /v3/auth/tokens requests handled. */
  validations = 0;
  readonly domains = new IndexedMap<Domain, 'name'>({ name: (d) => d.name });
  /** `domainName`: `domain|name`, unique. */
  readonly projects = new IndexedMap<Project, 'name' | 'domainName'>({ name: (p) => p.name, domainName: (p) => `${p.domainId}|${p.name}` });
  readonly users = new IndexedMap<User, 'name' | 'domainName'>({ name: (u) => u.name, domainName: (u) => `${u.domainId}|${u.name}` });
  readonly roles = new IndexedMap<Role, 'name'>({ name: (r) => r.name });
  /** prior role id → implied role ids */
  readonly implications = new Map<string, string[]>();
  /** Role assignments by assignmentKey, in the order granted. */
  readonly assignments = new IndexedMap<Assignment, 'user'>({ user: (a) => a.userId });
  readonly appCreds: AppCredStore;

  readonly revocations = new Revocations();

  constructor(
    readonly catalog: Catalog,
    private readonly hooks: StateHooks,
  ) {
    this.appCreds = new AppCredStore(this);
  }

  now(): number {
    return this.hooks.now();
  }

  // ---- lookups -------------------------------------------------------------------------------------------

  findProjectByName(name: string, domainId: string): Project | undefined {
    return this.projects.first('domainName', `${domainId}|${name}`);
  }

  findUserByName(name: string, domainId: string): User | undefined {
    return this.users.first('domainName', `${domainId}|${name}`);
  }

  findRoleByName(name: string): Role | undefined {
    return this.roles.first('name', name);
  }

  findDomain(ref: { id?: string | undefined; name?: string | undefined }): Domain | undefined {
    if (ref.id !== undefined) return this.domains.get(ref.id);
    return ref.name === undefined ? undefined : this.domains.first('name', ref.name);
  }

  projectId(name: string, domainId = 'default'): string {
    const p = this.findProjectByName(name, domainId);
    if (!p) throw new Error(`keystone sim: no project named ${name}`);
    return p.id;
  }

  userId(name: string, domainId = 'default'): string {
    const u = this.findUserByName(name, domainId);
    if (!u) throw new Error(`keystone sim: no user named ${name}`);
    return u.id;
  }

  roleId(name: string): string {
    const r = this.findRoleByName(name);
    if (!r) throw new Error(`keystone sim: no role named ${name}`);
    return r.id;
  }

  // ---- mutations -----------------------------------------------------------------------------------------

  createDomain(id: string, name: string, description = ''): Domain {
    const domain = { id, name, description, enabled: true };
    this.domains.set(id, domain);
    return domain;
  }

  /** Creates a project and returns its id. A duplicate name in the domain gives a 409 KeystoneError. */
  createProject(name: string, opts: NewProject = {}): string {
    const domainId = opts.domainId ?? 'default';
    if (!this.domains.has(domainId)) throw ksErrors.notFound('domain', domainId);
    if (this.findProjectByName(name, domainId)) {
      throw ksErrors.conflict('project', `it is not permitted to have two projects with the same name in the same domain : ${name}.`);
    }
    const project: Project = {
      id: newId(),
      name,
      domainId,
      description: opts.description ?? '',
      enabled: opts.enabled ?? true,
      tags: opts.tags ?? [],
    };
    this.projects.set(project.id, project);
    return project.id;
  }

  /** Creates a user and returns its id. `defaultProject` is a project id or a project name in the user's domain. */
  createUser(name: string, password?: string, defaultProject?: string, opts: NewUser = {}): string {
    const domainId = opts.domainId ?? 'default';
    if (!this.domains.has(domainId)) throw ksErrors.notFound('domain', domainId);
    if (this.findUserByName(name, domainId)) throw ksErrors.conflict('user', `Duplicate entry found with name ${name}.`);
    let defaultProjectId: string | undefined;
    if (defaultProject !== undefined) {
      defaultProjectId = this.projects.has(defaultProject)
        ? defaultProject
        : this.findProjectByName(defaultProject, domainId)?.id;
      if (defaultProjectId === undefined) throw ksErrors.notFound('project', defaultProject);
    }
    const user: User = {
      id: newId(),
      name,
      domainId,
      enabled: opts.enabled ?? true,
      extra: opts.extra ?? {},
      ...(password !== undefined ? { passwordHash: hashSecret(password) } : {}),
      ...(defaultProjectId !== undefined ? { defaultProjectId } : {}),
      ...(opts.description !== undefined ? { description: opts.description } : {}),
    };
    this.users.set(user.id, user);
    return user.id;
  }

  createRole(name: string, implies: string[] = []): string {
    const role: Role = { id: newId(), name, description: null };
    this.roles.set(role.id, role);
    if (implies.length > 0) this.implications.set(role.id, implies.map((n) => this.roleId(n)));
    return role.id;
  }

  grant(userId: string, scope: Scope, roleId: string): void {
    const a: Assignment = { userId, roleId, scope };
    if (!this.assignments.has(assignmentKey(a))) this.assignments.set(assignmentKey(a), a);
  }

  /** Removes an assignment; returns false when there was none. */
  ungrant(userId: string, scope: Scope, roleId: string): boolean {
    return this.assignments.delete(assignmentKey({ userId, roleId, scope }));
  }

  /** The user's assignments, in the order granted. */
  assignmentsOf(userId: string): Assignment[] {
    return this.assignments.by('user', userId);
  }

  assignRole(userId: string, projectId: string, roleName: string): void {
    this.grant(userId, { kind: 'project', id: projectId }, this.roleId(roleName));
  }

  unassignRole(userId: string, projectId: string, roleName: string): void {
    this.ungrant(userId, { kind: 'project', id: projectId }, this.roleId(roleName));
  }

  /** Disabling a user revokes the tokens issued so far, as Keystone does; re-enabling does not revive them. */
  setUserEnabled(userId: string, enabled: boolean): void {
    const user = this.requireUser(userId);
    if (user.enabled && !enabled) this.revocations.revokeUser(userId);
    user.enabled = enabled;
  }

  /** Changing a password revokes the user's existing tokens. */
  setUserPassword(userId: string, password: string): void {
    const user = this.requireUser(userId);
    user.passwordHash = hashSecret(password);
    this.revocations.revokeUser(userId);
  }

  deleteUser(userId: string): void {
    this.requireUser(userId);
    this.users.delete(userId);
    for (const a of this.assignmentsOf(userId)) this.assignments.delete(assignmentKey(a));
    this.appCreds.deleteForUser(userId);
    this.revocations.revokeUser(userId);
  }

  private requireUser(userId: string): User {
    const user = this.users.get(userId);
    if (!user) throw ksErrors.notFound('user', userId);
    return user;
  }

  // ---- roles ---------------------------------------------------------------------------------------------

  /** The closure of `roleIds` under role implication, in role-creation order. */
  expandRoles(roleIds: Iterable<string>): string[] {
    const seen = new Set<string>();
    const stack = [...roleIds];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push(...(this.implications.get(id) ?? []));
    }
    return [...this.roles.keys()].filter((id) => seen.has(id));
  }

  directRoleIds(userId: string, scope: Scope): string[] {
    return this.assignmentsOf(userId).filter((a) => sameScope(a.scope, scope)).map((a) => a.roleId);
  }

  effectiveRoleIds(userId: string, scope: Scope): string[] {
    return this.expandRoles(this.directRoleIds(userId, scope));
  }

  /** Enabled projects where the user holds at least one role. */
  projectsOfUser(userId: string): Project[] {
    const ids = new Set(this.assignmentsOf(userId).filter((a) => a.scope.kind === 'project').map((a) => a.scope.id));
    return [...this.projects.values()].filter((p) => ids.has(p.id));
  }

  // ---- revocation ----------------------------------------------------------------------------------------

  /** Revokes a token by its audit id, so tokens rescoped from it die too. Returns false for an unknown token. */
  revokeToken(token: string): boolean {
    const auditId = this.hooks.peekAuditIds(token)?.[0];
    if (auditId === undefined) return false;
    this.revocations.revokeAuditId(auditId);
    return true;
  }

  // ---- audit and persistence -----------------------------------------------------------------------------

  /** Application credentials, under the project they are scoped to. */
  auditResources(): AuditResource[] {
    return this.appCreds.all().map((c) => ({ type: 'application_credential', id: c.id, project_id: c.projectId, name: c.name }));
  }

  /** Identity data (not tokens: clients log in again after a restart; not the catalog: the services register anew). */
  snapshot(): KeystoneSnapshot {
    return {
      domains: [...this.domains.values()],
      projects: [...this.projects.values()],
      users: [...this.users.values()],
      roles: [...this.roles.values()],
      implications: [...this.implications.entries()],
      assignments: [...this.assignments.values()],
      appCreds: this.appCreds.all(),
    };
  }

  restore(snapshot: unknown): void {
    const s = snapshot as KeystoneSnapshot;
    const load = <T extends { id: string }>(map: Map<string, T>, items: T[]) => {
      map.clear();
      for (const i of items) map.set(i.id, i);
    };
    load(this.domains, s.domains);
    load(this.projects, s.projects);
    load(this.users, s.users);
    load(this.roles, s.roles);
    this.implications.clear();
    for (const [k, v] of s.implications) this.implications.set(k, v);
    this.assignments.clear();
    for (const a of s.assignments) this.assignments.set(assignmentKey(a), a);
    this.appCreds.load(s.appCreds);
  }
}
