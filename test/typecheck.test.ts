// The whole tree type-checks (strict), including the generated OpenAPI types the tests use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

test('tsc --noEmit passes', { timeout: 300_000 }, async () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  try {
    await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', root], { cwd: root, maxBuffer: 16 << 20 });
  } catch (e) {
    assert.fail(`type errors:\n${(e as { stdout?: string }).stdout ?? e}`);
  }
});

test('the portal type-checks against the generated API types (tsc -p portal)', { timeout: 300_000 }, async () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  try {
    await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', 'portal'], { cwd: root, maxBuffer: 16 << 20 });
  } catch (e) {
    assert.fail(`type errors in the portal (a stale client fails here: npm run openapi):\n${(e as { stdout?: string }).stdout ?? e}`);
  }
});
