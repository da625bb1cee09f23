// Why servers that run do not become Nodes (workers/cluster/diagnose.ts), read from their consoles: only servers
// that have run for ninety polls are looked at, at most five per pass and at most every ten polls per operation
// (the finding kept meanwhile); a console that cannot be read gives nothing; the finding joins the message.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONSOLE_PREFIX } from '../../../src/bootstrap/user-data/bootstrap.js';
import type { Server } from '../../../src/openstack/nova-servers.js';
import { diagnose, withDiagnosis } from '../../../workers/cluster/diagnose.js';
import type { ObservedServer } from '../../../workers/cluster/ports.js';
import { startStepCloud, stepRun, type StepCloud, type StepRun } from '../../support/run-context.js';

let cloud: StepCloud;
before(async () => {
  cloud = await startStepCloud();
});
after(async () => {
  await cloud.close();
});

const IGNITION = 'Ignition has failed. Please ensure your config is valid.';
const SCRIPT = `${CONSOLE_PREFIX} FAILED: kubeadm join: connection refused`;

/** A server ACTIVE since `ago` ms (Nova's naive UTC time). */
const server = (id: string, ago: number, status = 'ACTIVE'): ObservedServer => ({
  server: { id, name: id, status, 'OS-SRV-USG:launched_at': new Date(Date.now() - ago).toISOString().replace(/Z$/, '') } as unknown as Server,
  name: id, nodegroup: 'g', role: 'worker', version: 'v1.35.1', caGeneration: 1, index: 0,
});

/** The run's Nova answering consoles from `logs` (a missing one: a 403), counting what it is asked. */
function consoles(r: StepRun, logs: Record<string, string>): string[] {
  const asked: string[] = [];
  const real = r.ctx.cloud();
  r.ctx.cloud = () => ({
    ...real,
    servers: async () => ({
      consoleOutput: async (id: string) => {
        asked.push(id);
        if (!(id in logs)) throw new Error('HTTP 403');
        return logs[id]!;
      },
    }) as never,
  });
  return asked;
}

test('a server that has not run ninety polls is not looked at; one that has, and failed, is named with the finding', async () => {
  const r = await stepRun(cloud);
  const asked = consoles(r, { old: `boot\n${IGNITION}\n`, young: IGNITION });
  const poll = r.ctx.pollMs;
  assert.equal(await diagnose(r.ctx, [server('young', poll * 10)]), undefined);
  assert.deepEqual(asked, [], 'nothing read');
  const d = await diagnose(r.ctx, [server('young', poll * 10), server('old', poll * 200)]);
  assert.deepEqual(d && [d.server, d.finding.reason], ['old', 'UserDataNotRead']);
  assert.deepEqual(asked, ['old']);
});

test('at most every ten polls per operation (the finding kept meanwhile), at most five consoles a pass; an unreadable console finds nothing', async () => {
  const r = await stepRun(cloud);
  const poll = r.ctx.pollMs;
  const logs: Record<string, string> = { a: 'fine', b: 'fine', c: 'fine', d: 'fine', e: SCRIPT, f: SCRIPT };
  const asked = consoles(r, logs);
  const all = ['a', 'b', 'c', 'd', 'e', 'f', 'hidden'].map((id) => server(id, poll * 200));
  const first = await diagnose(r.ctx, all);
  assert.deepEqual(asked, ['a', 'b', 'c', 'd', 'e'], 'five a pass');
  assert.deepEqual(first && [first.server, first.finding.reason, first.finding.message], ['e', 'NodeBootstrapFailed', 'its bootstrap failed: kubeadm join: connection refused']);
  const again = await diagnose(r.ctx, all);
  assert.equal(asked.length, 5, 'not read again within ten polls');
  assert.equal(again?.server, 'e', 'the finding kept');
  await sleep(poll * 10 + 5);
  logs.e = 'fine now';
  assert.equal(await diagnose(r.ctx, [server('e', poll * 200), server('hidden', poll * 200)]), undefined, 'e recovered, hidden\'s console refused');
  assert.deepEqual(asked.slice(5), ['e', 'hidden']);
  assert.equal(await diagnose(r.ctx, [server('x', poll * 200, 'BUILD')]), undefined, 'a server still building is not looked at');
});

test('withDiagnosis joins the finding to the message; without one the message is unchanged', () => {
  assert.equal(withDiagnosis('Waiting for n1 to be Ready.', { server: 'n1', finding: { reason: 'NodeBootstrapFailed', message: 'its bootstrap failed: x' } }), 'Waiting for n1 to be Ready; server n1: its bootstrap failed: x.');
  assert.equal(withDiagnosis('Waiting.', undefined), 'Waiting.');
});
