// A start that fails (src/process/startup-error.ts): one line on stderr naming the mode and what failed,
// "bad configuration" and exit code 2 for a ConfigError, 1 for anything else; AggregateErrors (a
// dual-stack connect) told by their parts. exitOnStartupError is run in a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ConfigError } from '../../src/config.js';
import { describeError, exitCodeOf } from '../../src/process/startup-error.js';

const run = promisify(execFile);

test('describeError: the message; a code or name when it is empty; an AggregateError’s parts, once each', () => {
  assert.equal(describeError(new Error('boom')), 'boom');
  assert.equal(describeError(Object.assign(new Error(''), { code: 'ECONNREFUSED' })), 'ECONNREFUSED');
  assert.equal(describeError(new TypeError('')), 'TypeError');
  const refused = (addr: string) => Object.assign(new Error(`connect ECONNREFUSED ${addr}`), { code: 'ECONNREFUSED' });
  assert.equal(describeError(new AggregateError([refused('::1:5432'), refused('127.0.0.1:5432'), refused('127.0.0.1:5432')], '')), 'connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432');
  assert.equal(describeError('a string'), 'a string');
});

test('exitCodeOf: 2 for bad configuration, 1 otherwise', () => {
  assert.equal(exitCodeOf(new ConfigError('DATABASE_URL must be set')), 2);
  assert.equal(exitCodeOf(new Error('down')), 1);
  assert.equal(exitCodeOf('x'), 1);
});

async function exitOf(script: string, env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const module = new URL('../../src/process/startup-error.ts', import.meta.url).href;
  const config = new URL('../../src/config.ts', import.meta.url).href;
  try {
    await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { exitOnStartupError } from '${module}'; import { ConfigError } from '${config}'; ${script}`], { env: { ...process.env, LOG_LEVEL: 'info', ...env } });
    return { code: 0, stderr: '' };
  } catch (e) {
    const err = e as { code: number; stderr: string };
    return { code: err.code, stderr: err.stderr };
  }
}

test('exitOnStartupError: one line, its exit code; the stack only at debug', async () => {
  const bad = await exitOf(`exitOnStartupError('api', new ConfigError('DATABASE_URL must be set'))`);
  assert.deepEqual(bad, { code: 2, stderr: 'magnum-ts api: bad configuration: DATABASE_URL must be set\n' });
  const down = await exitOf(`exitOnStartupError('worker', new Error('Redis at redis:6379 (REDIS_URL):\\n  connect ECONNREFUSED'))`);
  assert.deepEqual(down, { code: 1, stderr: 'magnum-ts worker: Redis at redis:6379 (REDIS_URL): connect ECONNREFUSED\n' });
  const debug = await exitOf(`exitOnStartupError('api', new Error('x'))`, { LOG_LEVEL: 'debug' });
  assert.equal(debug.code, 1);
  assert.match(debug.stderr, /^magnum-ts api: x\nError: x\n\s+at /);
});
