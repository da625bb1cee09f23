// The portal's "Copy" CLI lines are shell-safe (issue 28): the lines Chromium shows are run by a real
// POSIX shell (`sh -c`) with a stand-in `openstack` that prints its arguments one per line. A name
// such as np$(id) reaches it as one plain word, never runs; a value with a quote survives; what is
// not chosen yet is a placeholder word that fails harmlessly, never a redirection (`<name>`).
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { launch, type Browser } from '../support/browser.js';
import { login, portalStack, type PortalStack } from '../support/portal.js';
import { createCluster, settled } from '../workers/lifecycle-support.js';

const run = promisify(execFile);
let s: PortalStack;
let browser: Browser;
let bin: string;

before(async () => {
  s = await portalStack();
  browser = await launch();
  bin = await mkdtemp(join(tmpdir(), 'portal-cli-'));
  await writeFile(join(bin, 'openstack'), '#!/bin/sh\nfor a in "$@"; do printf \'%s\\n\' "$a"; done\n');
  await chmod(join(bin, 'openstack'), 0o755);
});
after(async () => {
  await browser?.close();
  await s?.close();
  if (bin) await rm(bin, { recursive: true, force: true });
});

/** The words a POSIX shell hands `openstack` for `line`, run in an empty folder that must stay empty. */
async function words(line: string): Promise<string[]> {
  const { stdout } = await run('sh', ['-c', line], { cwd: bin, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  assert.deepEqual((await readdir(bin)).sort(), ['openstack'], `nothing written by ${line}`);
  return stdout.split('\n').slice(0, -1);
}

const cli = async (page: Page, n = 0) => (await page.locator('.cli code').nth(n).textContent())!;

test('CLI lines are shell-quoted', { timeout: 300_000 }, async (t: TestContext) => {
  const page = await browser.page();
  const demo = s.projectId('demo');
  await login(page, s.url, 'demo');

  await t.test('the wizard: placeholders are harmless words, values single-quoted', async () => {
    await page.goto(`${s.url}/ui/p/${demo}/clusters/new`);
    await page.locator('label.card').first().waitFor();
    const empty = await cli(page);
    assert.doesNotMatch(empty, /<\w+>/, 'no <placeholder>: a redirection');
    const w = await words(empty);
    assert.deepEqual(w.slice(0, 6), ['coe', 'cluster', 'create', 'CLUSTER-NAME?', '--cluster-template', 'TEMPLATE?']);
    await page.locator('label.card', { hasText: 'k8s-135' }).click();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.fill('#name', "np$(id)`id`;x'y");
    const line = await cli(page);
    assert.deepEqual((await words(line)).slice(0, 6), ['coe', 'cluster', 'create', "np$(id)`id`;x'y", '--cluster-template', 'k8s-135']);
  });

  await t.test('the template form: every value one word, labels whole', async () => {
    await page.goto(`${s.url}/ui/p/${demo}/templates/new`);
    await page.locator('#t-image_id option[value="ubuntu-24.04"]').waitFor({ state: 'attached' });
    await page.fill('#t-name', 'tpl $(touch pwned)');
    await page.fill('#tl-kube_tag', "v1.35.1';touch x;'");
    const w = await words(await cli(page));
    assert.deepEqual(w.slice(0, 5), ['coe', 'cluster', 'template', 'create', 'tpl $(touch pwned)']);
    assert.equal(w[w.indexOf('--image') + 1], 'IMAGE?');
    assert.equal(w[w.indexOf('--labels') + 1], "kube_tag=v1.35.1';touch x;'");
  });

  await t.test('a node group named np$(id): the create, resize and delete lines run no code', async () => {
    const uuid = await createCluster(s.h, 'quoted', 1, 1);
    await settled(s.h, uuid, 'CREATE_COMPLETE', 180_000);
    await page.goto(`${s.url}/ui/p/${demo}/clusters/${uuid}`);
    await page.locator('#ng-add:not([disabled])').click();
    await page.fill('#add-name', 'np$(id)');
    const line = await page.locator('dialog[open] .cli code').last().textContent();
    const w = await words(line!);
    assert.deepEqual(w.slice(0, 5), ['coe', 'nodegroup', 'create', 'quoted', 'np$(id)']);
    assert.ok(!w.some((x) => /uid=/.test(x)), 'id never ran');
    const resize = (await page.locator('.cli code', { hasText: 'cluster resize' }).first().textContent())!;
    assert.deepEqual(await words(resize), ['coe', 'cluster', 'resize', 'quoted', '--nodegroup', 'default-worker', '1']);
  });
});
