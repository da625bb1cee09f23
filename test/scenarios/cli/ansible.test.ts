// Ansible's openstack.cloud collection against the service and the simulator. Debian bookworm's ansible
// 7.7 bundles openstack.cloud 1.10, which refuses bookworm's openstacksdk 0.101, and PyPI is out of reach:
// the lane takes Debian trixie's ansible (openstack.cloud 2.x) and openstacksdk 4.x, unpacked beside this
// machine's Python (test/support/debian-overlay.ts). The playbook (ansible/cluster.yml) makes a template
// and a 1+1 cluster and reads them back; a second run changes nothing; then both are deleted (the
// cluster with `wait`), a second delete changes nothing, and nothing of the cluster is left in the cloud.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BUILTIN_USERS } from '../../../cloudsim/embedded.js';
import { aptInstall } from '../../support/apt.js';
import { debianOverlay, TRIXIE_CLIENTS, TRIXIE_CLIENTS_BASE, type Overlay } from '../../support/debian-overlay.js';
import { describeExchanges, tapCatalog, type WireTap } from '../../support/wire-tap.js';
import { api, harness, leftovers, startWorker, type Harness } from '../lifecycle-support.js';
import { fromSdk } from './python-checks.js';

const PLAYBOOK = fileURLToPath(new URL('./ansible/cluster.yml', import.meta.url));

let overlay: Overlay;
let h: Harness;
let worker: Awaited<ReturnType<typeof startWorker>>;
let tap: WireTap;
let home: string;

before(async () => {
  await aptInstall(TRIXIE_CLIENTS_BASE);
  overlay = await debianOverlay('trixie', TRIXIE_CLIENTS);
  h = await harness({ listen: true });
  worker = await startWorker(h.workerOptions({ healthIntervalMs: 0 }));
  tap = await tapCatalog(h.t.keystone);
  home = await mkdtemp(join(tmpdir(), 'ansible-lane-'));
  const demo = BUILTIN_USERS.demo;
  await mkdir(join(home, '.config/openstack'), { recursive: true });
  await writeFile(join(home, '.config/openstack/clouds.yaml'), [
    'clouds:',
    '  magnum-test:',
    '    region_name: RegionOne',
    '    identity_api_version: 3',
    '    auth:',
    `      auth_url: ${tap.keystoneUrl}/v3`,
    '      username: demo',
    `      password: ${JSON.stringify(demo.password)}`,
    `      project_name: ${demo.project}`,
    '      user_domain_name: Default',
    '      project_domain_name: Default',
    '',
  ].join('\n'), { mode: 0o600 });
});
after(async () => {
  await tap?.close();
  await worker?.close();
  await h?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

interface Recap {
  ok: number;
  changed: number;
  failed: number;
  output: string;
}

/** One ansible-playbook run with `state`; its PLAY RECAP for localhost. */
function play(state: 'present' | 'absent'): Promise<Recap> {
  const env: NodeJS.ProcessEnv = {
    PATH: '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', PYTHONPATH: overlay.pythonPath, PYTHONWARNINGS: 'ignore',
    ANSIBLE_PYTHON_INTERPRETER: '/usr/bin/python3', ANSIBLE_LOCAL_TEMP: join(home, '.ansible/tmp'), ANSIBLE_NOCOLOR: '1',
    ANSIBLE_LOCALHOST_WARNING: 'false', ANSIBLE_INVENTORY_UNPARSED_WARNING: 'false',
  };
  const args = [join(overlay.bin, 'ansible-playbook'), '-i', 'localhost,', PLAYBOOK, '-e', `state=${state}`];
  return new Promise((resolve) => {
    execFile('/usr/bin/python3', args, { env, cwd: home, timeout: 480_000, maxBuffer: 16 << 20 }, (_e, stdout, stderr) => {
      const output = `${stdout}\n${stderr}`;
      const m = /localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)/.exec(stdout);
      resolve(m ? { ok: Number(m[1]), changed: Number(m[2]), failed: Number(m[3]), output } : { ok: 0, changed: 0, failed: -1, output });
    });
  });
}

const explain = (r: Recap) => `${r.output.slice(-6000)}\n-- calls of the SDK's that failed:\n${describeExchanges(tap.failures(fromSdk).filter((e) => e.status !== 404)) || '(none)'}`;

test('Ansible openstack.cloud 2.x (Debian trixie): a template and a 1+1 cluster, twice, then deleted twice', { timeout: 900_000 }, async (t) => {
  const collection = await new Promise<string>((resolve) =>
    execFile('/usr/bin/python3', ['-c', 'import json,sys; print(json.load(open(sys.argv[1]))["collection_info"]["version"])', join(overlay.pythonPath, 'ansible_collections/openstack/cloud/MANIFEST.json')], (_e, out) => resolve(out.trim())),
  );
  t.diagnostic(`ansible ${overlay.versions.ansible}, ansible-core ${overlay.versions['ansible-core']}, openstack.cloud ${collection}, openstacksdk ${overlay.versions['python3-openstacksdk']}`);

  const first = await play('present');
  assert.equal(first.failed, 0, explain(first));
  assert.equal(first.changed, 2, `the template and the cluster made\n${explain(first)}`);
  const listed = await api(h, 'GET', '/v1/clusters');
  const cluster = (listed.body.clusters as { name: string; uuid: string; status: string }[]).find((c) => c.name === 'ansible-cl');
  assert.equal(cluster?.status, 'CREATE_COMPLETE');
  assert.match((await api(h, 'GET', `/v1/clusters/${cluster!.uuid}`)).body.api_address as string, /^https:\/\/127\./);

  const second = await play('present');
  assert.equal(second.failed, 0, explain(second));
  assert.equal(second.changed, 0, `a second run changes nothing\n${explain(second)}`);
  assert.equal((await api(h, 'GET', '/v1/clusters')).body.clusters.filter((c: { name: string }) => c.name === 'ansible-cl').length, 1, 'still one cluster');

  const gone = await play('absent');
  assert.equal(gone.failed, 0, explain(gone));
  assert.equal(gone.changed, 2, `the cluster (waited for) and the template deleted\n${explain(gone)}`);
  assert.equal((await api(h, 'GET', `/v1/clusters/${cluster!.uuid}`)).status, 404, 'the delete was waited for');
  assert.equal((await api(h, 'GET', '/v1/clustertemplates/ansible-tpl')).status, 404);
  assert.deepEqual(leftovers(h).map((r) => `${r.service} ${r.type} ${r.name ?? r.id}`), [], 'nothing of the cluster left in the cloud');

  const again = await play('absent');
  assert.equal(again.failed, 0, explain(again));
  assert.equal(again.changed, 0, `a second delete changes nothing\n${explain(again)}`);
});
