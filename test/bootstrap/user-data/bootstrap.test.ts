// Every shell script the service renders passes Debian's shellcheck (installed when missing), over
// the whole matrix of bootstrap-matrix.ts: 3 Kubernetes minors × 2 CNIs × 3 roles × 2 distros ×
// 3 images × 2 add-on sets. Identical scripts are checked once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { aptInstall } from '../../support/apt.js';
import { matrix } from '../../support/bootstrap-matrix.js';
import { bootstrapScriptOf } from '../../support/node-files.js';

const SHELLCHECK = '/usr/bin/shellcheck';
const run = promisify(execFile);

async function ensureShellcheck(): Promise<void> {
  if (existsSync(SHELLCHECK)) return;
  await aptInstall(['shellcheck']);
  assert.ok(existsSync(SHELLCHECK), 'shellcheck installed');
}

async function shellcheck(files: string[]): Promise<string> {
  try {
    await run(SHELLCHECK, ['--severity=style', '--format=gcc', ...files], { maxBuffer: 16 * 1024 * 1024 });
    return '';
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return `${err.stdout ?? ''}${err.stderr ?? String(e)}`;
  }
}

test('every rendered bootstrap script passes shellcheck (style level), over the whole matrix', { timeout: 300_000 }, async () => {
  await ensureShellcheck();
  const renderings = matrix();
  assert.equal(renderings.length, 216);
  const dir = mkdtempSync(join(tmpdir(), 'shellcheck-'));
  const unique = new Map<string, string>();
  for (const r of renderings) {
    const script = bootstrapScriptOf(r.userData);
    assert.ok(script.startsWith('#!/bin/bash\n'), r.name);
    const hash = createHash('sha256').update(script).digest('hex');
    if (unique.has(hash)) continue;
    const path = join(dir, `${r.name}.sh`);
    writeFileSync(path, script);
    unique.set(hash, path);
  }
  const findings = await shellcheck([...unique.values()]);
  assert.equal(findings, '', 'shellcheck findings');
  console.log(`shellcheck: ${renderings.length} renderings, ${unique.size} distinct scripts, no finding`);
});

test('the check really fails a script with a finding', async () => {
  await ensureShellcheck();
  const f = join(mkdtempSync(join(tmpdir(), 'shellcheck-')), 'bad.sh');
  writeFileSync(f, '#!/bin/bash\nfor f in $(ls); do echo $f; done\n');
  assert.match(await shellcheck([f]), /SC2045|SC2086/);
});
