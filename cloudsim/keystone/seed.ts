// The built-in data every emulator starts with (what `keystone-manage bootstrap` plus a devstack-like setup make).
import type { KeystoneState } from './state.js';

export type BuiltinUser = 'admin' | 'demo' | 'demo-reader' | 'other' | 'magnum';

export const DEFAULT_PASSWORDS: Record<BuiltinUser, string> = {
  admin: 'admin-secret',
  demo: 'demo-secret',
  'demo-reader': 'reader-secret',
  other: 'other-secret',
  magnum: 'magnum-secret',
};

export function seedState(state: KeystoneState, passwords: Partial<Record<BuiltinUser, string>> = {}): void {
  const pw = { ...DEFAULT_PASSWORDS, ...passwords };
  state.createDomain('default', 'Default', 'The default domain');

  // Created bottom-up so each role can name what it implies: admin ⇒ member ⇒ reader.
  state.createRole('reader');
  state.createRole('member', ['reader']);
  state.createRole('admin', ['member']);
  state.createRole('service');
  // Octavia's roles, granted to nobody: its default policy (seed.yaml octavia_policy) needs them.
  state.createRole('load-balancer_observer');
  state.createRole('load-balancer_member');

  const project = (name: string) => state.createProject(name, { description: `Bootstrap project ${name}` });
  const admin = project('admin');
  const service = project('service');
  const demo = project('demo');
  const other = project('other');

  const adminUser = state.createUser('admin', pw.admin, admin);
  state.assignRole(adminUser, admin, 'admin');
  state.grant(adminUser, { kind: 'system', id: 'all' }, state.roleId('admin'));

  state.assignRole(state.createUser('demo', pw.demo, demo), demo, 'member');
  state.assignRole(state.createUser('demo-reader', pw['demo-reader'], demo), demo, 'reader');
  state.assignRole(state.createUser('other', pw.other, other), other, 'member');

  const magnum = state.createUser('magnum', pw.magnum, service);
  state.assignRole(magnum, service, 'admin');
  state.assignRole(magnum, service, 'service');
}
