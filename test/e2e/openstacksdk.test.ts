// openstacksdk, as Debian ships it (python3-openstacksdk 0.101, Zed; PyPI is out of reach here, so no
// newer release), against the service and the simulator: test/e2e/openstacksdk-checks.py runs with
// /usr/bin/python3 and reports one result per check (the cloud layer's COE calls: templates, a 1+1
// cluster to CREATE_COMPLETE, a scale, the CA and a signed certificate, services, deletes; and the
// service proxy, which is all 0.101 has for Magnum: no resource classes). Every call goes through a
// recording tap in front of the catalog: a failing check names the calls that failed meanwhile.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import { aptInstall } from '../support/apt.js';
import { describeExchanges, tapCatalog, type Exchange, type WireTap } from '../support/wire-tap.js';
import { harness, startWorker, type Harness } from '../workers/lifecycle-support.js';
import { installedVersion } from '../support/horizon-static.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./openstacksdk-checks.py', import.meta.url));

interface CheckResult {
  check: string;
  ok: boolean;
  error: string | null;
  detail: unknown;
  started: number;
  ended: number;
}

/** A call of the SDK's (keystoneauth names itself in the User-Agent), not of the API's or worker's own. */
const fromSdk = (e: Exchange) => /openstacksdk|keystoneauth1/.test(e.userAgent);

let h: Harness;
let worker: Awaited<ReturnType<typeof startWorker>>;
let tap: WireTap;
let results: CheckResult[] = [];
let stderr = '';

/** Runs the checks as demo and admin through the tapped Keystone. */
async function runChecks(authUrl: string): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'sdk-lane-'));
  const input = JSON.stringify({
    auth_url: authUrl,
    users: { demo: BUILTIN_USERS.demo, admin: BUILTIN_USERS.admin },
    templates: ['k8s-135', 'k8s-136'],
  });
  try {
    const out = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      const child = execFile(PYTHON, [SCRIPT], { env: { PATH: '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', PYTHONWARNINGS: 'ignore' }, cwd: home, timeout: 480_000, maxBuffer: 16 << 20 }, (_e, stdout, stderr) =>
        resolve({ stdout, stderr }),
      );
      child.stdin?.end(input);
    });
    stderr = out.stderr;
    results = out.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as CheckResult);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

before(async () => {
  if (!(await installedVersion('python3-openstacksdk'))) await aptInstall(['python3-openstacksdk']);
  h = await harness({ listen: true });
  worker = await startWorker(h.workerOptions({ healthIntervalMs: 0 }));
  tap = await tapCatalog(h.t.keystone);
  await runChecks(`${tap.keystoneUrl}/v3`);
});
after(async () => {
  await tap?.close();
  await worker?.close();
  await h?.close();
});

const EXPECTED = [
  'service proxy: endpoint discovery and a paged list',
  'cloud layer: list_coe_cluster_templates',
  'cloud layer: create_coe_cluster_template',
  'cloud layer: get_coe_cluster_template by name',
  'cloud layer: update_coe_cluster_template (replace name)',
  'cloud layer: create_coe_cluster, 1+1, to CREATE_COMPLETE',
  'cloud layer: update_coe_cluster scales to 2 workers',
  'cloud layer: get and sign_coe_cluster_certificate',
  'cloud layer: list_magnum_services (admin)',
  'cloud layer: delete_coe_cluster, gone',
  'cloud layer: delete_coe_cluster_template',
];

test(`openstacksdk (Debian's python3-openstacksdk) against the service`, { timeout: 600_000 }, async (t: TestContext) => {
  t.diagnostic(`python3-openstacksdk ${await installedVersion('python3-openstacksdk')}`);
  assert.deepEqual(results.map((r) => r.check), EXPECTED, `the script ran every check; its stderr:\n${stderr.slice(-4000)}`);
  for (const r of results) {
    await t.test(r.check, () => {
      if (r.ok) {
        t.diagnostic(`${r.check}: ${JSON.stringify(r.detail)}`);
        return;
      }
      const failed = tap.failures((e) => fromSdk(e) && e.at >= r.started && e.at <= r.ended + 50);
      assert.fail(`${r.error}\n-- calls of the SDK's that failed during this check:\n${describeExchanges(failed) || '(none)'}`);
    });
  }
  await t.test('no call of the SDK’s failed', () => {
    const failed = tap.failures(fromSdk);
    const calls = tap.exchanges().filter(fromSdk);
    const kinds = new Set(calls.map((e) => `${e.service} ${e.method} ${e.url.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|[0-9a-f]{32}/g, '{id}').replace(/marker=[^&]+/, 'marker={id}')}${e.microversion ? ` [${e.microversion}]` : ''} → ${e.status}`));
    t.diagnostic(`${calls.length} calls of the SDK's, ${failed.length} failed; the kinds:`);
    for (const k of kinds) t.diagnostic(`  ${k}`);
    assert.equal(failed.length, 0, describeExchanges(failed));
  });
});
