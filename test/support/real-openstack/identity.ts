// Keystone's content for the test cloud, made idempotently (found by name, created when missing): the roles,
// the service users, the catalog, the product's service user and the demo project's users; and fresh projects
// for tests that want a project of their own.
import { randomBytes } from 'node:crypto';
import { REGION, SECRETS, SERVICE_USERS, servicePassword, url, type Ports } from './layout.js';
import type { Credentials, Session } from './rest.js';

export const ROLES = ['admin', 'member', 'reader', 'service', 'load-balancer_member', 'load-balancer_observer'] as const;

export type EndpointType = 'identity' | 'compute' | 'network' | 'load-balancer' | 'image' | 'placement' | 'volumev3' | 'block-storage';

export function endpointsOf(p: Ports): Record<EndpointType, string> {
  return {
    identity: url(p.keystone, '/v3'),
    compute: url(p.nova, '/v2.1'),
    network: url(p.neutron),
    'load-balancer': url(p.octavia),
    image: url(p.glance),
    placement: url(p.placement),
    volumev3: url(p.cinder, '/v3/%(project_id)s'),
    'block-storage': url(p.cinder, '/v3/%(project_id)s'),
  };
}

const SERVICE_NAMES: Record<Exclude<EndpointType, 'identity'>, string> = {
  compute: 'nova', network: 'neutron', 'load-balancer': 'octavia', image: 'glance', placement: 'placement',
  volumev3: 'cinderv3', 'block-storage': 'cinder',
};

export const ADMIN: Credentials = { name: 'admin', password: SECRETS.admin, project: 'admin', domain: 'Default' };
/**
 * The product's service user, as a Magnum service user is on a real cloud (devstack and the deployment guides):
 * in project `service` with role admin, plus `service`, which keystonemiddleware requires of service tokens.
 */
export const MAGNUM: Credentials = { name: 'magnum', password: 'magnum-realos-secret', project: 'service', domain: 'Default' };

/** The users of a tenant project: one with member and load-balancer_member, one member only, one reader. */
export interface TenantUsers {
  member: Credentials; // member + load-balancer_member
  memberOnly: Credentials; // member, no load-balancer_* role
  reader: Credentials;
}

export interface Tenant extends TenantUsers {
  projectId: string;
  projectName: string;
}

class Keystone {
  private roles = new Map<string, string>();

  constructor(private s: Session, private authUrl: string) {}

  private byName = async (kind: string, name: string, extra = ''): Promise<any | undefined> => {
    const res = await this.s.expect('GET', `${this.authUrl}/${kind}?name=${encodeURIComponent(name)}${extra}`, [200]);
    return res.body[kind][0];
  };

  async ensureRole(name: string): Promise<string> {
    let id = this.roles.get(name);
    if (id) return id;
    id = ((await this.byName('roles', name)) ?? (await this.s.expect('POST', `${this.authUrl}/roles`, [201], { body: { role: { name } } })).body.role).id as string;
    this.roles.set(name, id);
    return id;
  }

  async ensureProject(name: string): Promise<string> {
    const found = await this.byName('projects', name, '&domain_id=default');
    if (found) return found.id;
    const res = await this.s.expect('POST', `${this.authUrl}/projects`, [201], {
      body: { project: { name, domain_id: 'default', description: `${name} (magnum-ts real-OpenStack tests)`, enabled: true } },
    });
    return res.body.project.id;
  }

  /** The user (created with this password when missing) with at least `roles` on `projectId`. */
  async ensureUser(c: Credentials, projectId: string, roles: string[]): Promise<string> {
    let user = await this.byName('users', c.name, '&domain_id=default');
    if (!user) {
      user = (await this.s.expect('POST', `${this.authUrl}/users`, [201], {
        body: { user: { name: c.name, password: c.password, domain_id: 'default', default_project_id: projectId, enabled: true } },
      })).body.user;
    }
    for (const role of roles) {
      await this.s.expect('PUT', `${this.authUrl}/projects/${projectId}/users/${user.id}/roles/${await this.ensureRole(role)}`, [204]);
    }
    return user.id;
  }

  async ensureEndpoints(type: string, name: string, target: string): Promise<void> {
    let service = (await this.s.expect('GET', `${this.authUrl}/services?type=${encodeURIComponent(type)}`, [200])).body.services[0];
    service ??= (await this.s.expect('POST', `${this.authUrl}/services`, [201], { body: { service: { type, name, enabled: true } } })).body.service;
    const existing = (await this.s.expect('GET', `${this.authUrl}/endpoints?service_id=${service.id}`, [200])).body.endpoints as { interface: string; url: string; id: string }[];
    for (const iface of ['public', 'internal', 'admin']) {
      const e = existing.find((x) => x.interface === iface);
      if (e?.url === target) continue;
      if (e) await this.s.expect('PATCH', `${this.authUrl}/endpoints/${e.id}`, [200], { body: { endpoint: { url: target } } });
      else await this.s.expect('POST', `${this.authUrl}/endpoints`, [201], { body: { endpoint: { service_id: service.id, interface: iface, url: target, region_id: REGION } } });
    }
  }
}

export interface IdentityIds {
  projectIds: { admin: string; service: string; demo: string };
}

export const DEMO_USERS: TenantUsers = tenantUsers('demo');

function tenantUsers(project: string): TenantUsers {
  const c = (name: string): Credentials => ({ name, password: `${name}-secret`, project, domain: 'Default' });
  return { member: c(`${project}`), memberOnly: c(`${project}-member`), reader: c(`${project}-reader`) };
}

/** Everything Keystone holds for the test cloud; cheap when it is all there already. */
export async function ensureIdentity(s: Session, p: Ports): Promise<IdentityIds> {
  const authUrl = url(p.keystone, '/v3');
  const ks = new Keystone(s, authUrl);
  // Roles and projects first (distinct names, so at once), then the users and the catalog, at once.
  await Promise.all(ROLES.map((role) => ks.ensureRole(role)));
  const [admin, service, demo] = await Promise.all(['admin', 'service', 'demo'].map((p) => ks.ensureProject(p))) as [string, string, string];
  await Promise.all([
    ...SERVICE_USERS.map((user) =>
      ks.ensureUser({ name: user, password: servicePassword(user), project: 'service', domain: 'Default' }, service, ['admin', 'service'])),
    ks.ensureUser(MAGNUM, service, ['admin', 'service']),
    grantTenant(ks, demo, DEMO_USERS),
    ...Object.entries(endpointsOf(p))
      .filter(([type]) => type !== 'identity')
      .map(([type, target]) => ks.ensureEndpoints(type, SERVICE_NAMES[type as Exclude<EndpointType, 'identity'>], target)),
  ]);
  return { projectIds: { admin, service, demo } };
}

async function grantTenant(ks: Keystone, projectId: string, u: TenantUsers): Promise<void> {
  await ks.ensureUser(u.member, projectId, ['member', 'load-balancer_member']);
  await ks.ensureUser(u.memberOnly, projectId, ['member']);
  await ks.ensureUser(u.reader, projectId, ['reader']);
}

/** A new project (`<prefix>-<random>`) with its three users: isolation for a test that counts what it leaves. */
export async function createTenant(s: Session, p: Ports, prefix: string): Promise<Tenant> {
  const ks = new Keystone(s, url(p.keystone, '/v3'));
  const projectName = `${prefix}-${randomBytes(3).toString('hex')}`;
  const projectId = await ks.ensureProject(projectName);
  const users = tenantUsers(projectName);
  await grantTenant(ks, projectId, users);
  return { projectId, projectName, ...users };
}
