// The real python-openstackclient (keystoneauth1) against the listening Keystone emulator.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { CLI, ensureCli } from '../../support/cli.js';
import { sim, tokenFor, validate } from './helpers.js';

const run = promisify(execFile);

test('openstack CLI: token issue, catalog list, project list, application credential create + auth', { timeout: 600_000 }, async (t) => {
  await ensureCli();
  const home = await mkdtemp(join(tmpdir(), 'ks-cli-'));
  const ks = await sim({ catalog: [{ type: 'container-infra', name: 'magnum', url: 'http://127.0.0.1:9511/v1' }] });
  ks.setPublicUrl(await ks.app.listen({ host: '127.0.0.1', port: 0 }));
  t.after(async () => {
    await ks.app.close();
    await rm(home, { recursive: true, force: true });
  });
  const address = ks.app.server.address();
  assert.ok(address && typeof address === 'object');
  const authUrl = `http://127.0.0.1:${address.port}/v3`;

  // A clean environment: no OS_* variables, no clouds.yaml from the repo or the user's home.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' };
  const openstack = async (args: string[]): Promise<any> => {
    const { stdout } = await run(CLI, ['--os-auth-url', authUrl, '--os-identity-api-version', '3', ...args, '-f', 'json'], {
      env,
      cwd: home,
      timeout: 120_000,
    });
    return JSON.parse(stdout);
  };
  const asUser = (user: string, password: string, project: string) => [
    '--os-username', user, '--os-password', password, '--os-project-name', project,
    '--os-user-domain-name', 'Default', '--os-project-domain-name', 'Default',
  ];
  const demoArgs = asUser('demo', 'demo-secret', 'demo');
  const service = await tokenFor(ks, 'magnum');

  const issued = await openstack([...demoArgs, 'token', 'issue']);
  assert.equal(issued.project_id, ks.state.projectId('demo'));
  assert.equal(issued.user_id, ks.state.userId('demo'));
  const checked = await validate(ks, service, issued.id);
  assert.equal(checked.statusCode, 200);
  assert.equal(checked.json().token.project.name, 'demo');

  const catalog: { Name: string; Type: string }[] = await openstack([...demoArgs, 'catalog', 'list']);
  assert.deepEqual(catalog.map((s) => s.Type).sort(), ['container-infra', 'identity']);

  const projects: { Name: string }[] = await openstack([...asUser('admin', 'admin-secret', 'admin'), 'project', 'list']);
  assert.deepEqual(projects.map((p) => p.Name).sort(), ['admin', 'demo', 'other', 'service']);

  const cred = await openstack([...demoArgs, 'application', 'credential', 'create', 'cli-cred']);
  assert.equal(typeof cred.secret, 'string');
  assert.equal(cred.project_id, ks.state.projectId('demo'));
  assert.ok(ks.state.appCreds.get(cred.id));

  const viaCred = await openstack([
    '--os-auth-type', 'v3applicationcredential',
    '--os-application-credential-id', cred.id,
    // One argument with '=': a secret starting with '-' would otherwise read as an option.
    `--os-application-credential-secret=${cred.secret}`,
    'token', 'issue',
  ]);
  assert.equal(viaCred.project_id, ks.state.projectId('demo'));
  const credToken = await validate(ks, service, viaCred.id);
  assert.equal(credToken.statusCode, 200);
  assert.equal(credToken.json().token.application_credential.id, cred.id);
});
