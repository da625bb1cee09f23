// The Python client lanes (openstacksdk as Debian's release ships it and as the next release does): a
// script run with /usr/bin/python3 reads the cloud's settings as JSON on stdin and prints one JSON line per
// check; the service, a worker and the simulator run here with every call through a recording tap, so a
// failing check names the client's calls that failed meanwhile.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { BUILTIN_USERS } from '../../../cloudsim/embedded.js';
import { describeExchanges, tapCatalog, type Exchange, type WireTap } from '../../support/wire-tap.js';
import { harness, startWorker, type Harness } from '../lifecycle-support.js';

export interface CheckResult {
  check: string;
  ok: boolean;
  error: string | null;
  detail: unknown;
  started: number;
  ended: number;
}

/** A call of the SDK's (keystoneauth names itself in the User-Agent), not of the API's or worker's own. */
export const fromSdk = (e: Exchange) => /openstacksdk|keystoneauth1/.test(e.userAgent);

export interface PythonLane {
  tap: WireTap;
  results: CheckResult[];
  stderr: string;
  close(): Promise<void>;
}

/** Starts the service and a worker on the simulator, then runs `script` as demo and admin through the tap. */
export async function runPythonChecks(script: string, opts: { pythonPath?: string } = {}): Promise<PythonLane> {
  const h: Harness = await harness({ listen: true });
  const worker = await startWorker(h.workerOptions({ healthIntervalMs: 0 }));
  const tap = await tapCatalog(h.t.keystone);
  const home = await mkdtemp(join(tmpdir(), 'sdk-lane-'));
  const input = JSON.stringify({
    auth_url: `${tap.keystoneUrl}/v3`,
    users: { demo: BUILTIN_USERS.demo, admin: BUILTIN_USERS.admin },
    templates: ['k8s-135', 'k8s-136'],
  });
  const env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', PYTHONWARNINGS: 'ignore' };
  if (opts.pythonPath) env.PYTHONPATH = opts.pythonPath;
  const out = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
    const child = execFile('/usr/bin/python3', [script], { env, cwd: home, timeout: 480_000, maxBuffer: 16 << 20 }, (_e, stdout, stderr) => resolve({ stdout, stderr }));
    child.stdin?.end(input);
  });
  await rm(home, { recursive: true, force: true });
  return {
    tap,
    results: out.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as CheckResult),
    stderr: out.stderr,
    close: async () => {
      await tap.close();
      await worker.close();
      await h.close();
    },
  };
}

/** One subtest per check (a failure lists the SDK's failed calls meanwhile); every check expected ran. */
export async function reportChecks(t: TestContext, lane: PythonLane, expected: string[], allowedFailures: (e: Exchange) => boolean = () => false): Promise<void> {
  assert.deepEqual(lane.results.map((r) => r.check), expected, `the script ran every check; its stderr:\n${lane.stderr.slice(-4000)}`);
  for (const r of lane.results) {
    await t.test(r.check, () => {
      if (r.ok) {
        t.diagnostic(`${r.check}: ${JSON.stringify(r.detail)}`);
        return;
      }
      const failed = lane.tap.failures((e) => fromSdk(e) && e.at >= r.started && e.at <= r.ended + 50);
      assert.fail(`${r.error}\n-- calls of the SDK's that failed during this check:\n${describeExchanges(failed) || '(none)'}`);
    });
  }
  await t.test('no call of the SDK’s failed but those the checks expect', () => {
    const failed = lane.tap.failures((e) => fromSdk(e) && !allowedFailures(e));
    const calls = lane.tap.exchanges().filter(fromSdk);
    const kinds = new Set(calls.map((e) => `${e.service} ${e.method} ${e.url.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|[0-9a-f]{32}/g, '{id}').replace(/marker=[^&]+/, 'marker={id}')}${e.microversion ? ` [${e.microversion}]` : ''} → ${e.status}`));
    t.diagnostic(`${calls.length} calls of the SDK's, ${failed.length} failed unexpectedly; the kinds:`);
    for (const k of kinds) t.diagnostic(`  ${k}`);
    assert.equal(failed.length, 0, describeExchanges(failed));
  });
}
