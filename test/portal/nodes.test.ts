// A node group's nodes on the cluster page (issue 28): the default worker group lists its nodes from the cluster's
// records checked against Nova (name, role, zone, status, address, age); "Remove" asks to confirm, then resizes with
// nodes_to_remove, and the list follows the stream to one node. After that removal and a CA rotation (every server
// replaced), the delete preview lists the servers Nova has now, not the ones replaced. The reader sees the nodes
// and a disabled Remove. Zero axe violations on the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axe, describeViolations, launch, type Browser } from '../support/browser.js';
import { login, type PortalStack } from '../support/portal.js';
import { portalSuite } from '../support/portal-suite.js';
import { api, createCluster, settled } from '../scenarios/lifecycle-support.js';
import { servers } from '../workers/lifecycle-support.js';

let s: PortalStack;
let browser: Browser;
portalSuite((stack, b) => {
  s = stack;
  browser = b;
});

const rows = (page: import('playwright-core').Page, group: string) => page.locator(`table[id="nodes-${group}"] tbody tr`);

test('the default worker group lists its nodes and removes one after a confirm; the delete preview lists what exists after a CA rotation', { timeout: 420_000 }, async () => {
  const uuid = await createCluster(s.h, 'nodes', 1, 2);
  await settled(s.h, uuid, 'CREATE_COMPLETE', 240_000);
  const page = await browser.page();
  await login(page, s.url, 'demo');
  await page.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
  const workers = rows(page, 'default-worker');
  await page.waitForFunction(() => document.querySelectorAll('table[id="nodes-default-worker"] tbody tr').length === 2, undefined, { timeout: 30_000 });
  const inNova = [...servers(s.h, uuid).keys()];
  const names = await workers.locator('th').allTextContents();
  for (const n of names) assert.ok(inNova.includes(n), `${n} is one of Nova's servers (${inNova.join(', ')})`);
  const first = workers.first();
  assert.match((await first.locator('td').nth(0).textContent())!, /^worker$/);
  assert.match((await first.locator('td').nth(1).textContent())!, /^(nova|az-2|az-3)$/);
  assert.match((await first.locator('td').nth(2).textContent())!, /ACTIVE/);
  assert.match((await first.locator('td').nth(3).textContent())!, /^\d+\.\d+\.\d+\.\d+/);
  assert.match((await first.locator('td').nth(4).textContent())!, /ago$/);
  assert.equal(await rows(page, 'default-master').count(), 1, 'the control plane listed too');
  assert.equal(await page.locator('table[id="nodes-default-master"] button').count(), 0, 'no Remove for control planes');
  const v = await axe(page);
  assert.equal(v.length, 0, describeViolations(v));

  // Remove: a confirm, then the resize naming the node; the list follows the stream.
  const gone = names[0]!;
  await page.getByRole('button', { name: `Remove ${gone}`, exact: true }).click();
  const dialog = page.locator('dialog[open]');
  await dialog.waitFor();
  assert.match((await dialog.textContent())!, /from 2 to 1 node/);
  await dialog.getByRole('button', { name: `Remove ${gone}` }).click();
  await page.locator('section.group-nodes .accepted', { hasText: `The removal of ${gone} is` }).waitFor({ timeout: 10_000 });
  await settled(s.h, uuid, 'UPDATE_COMPLETE', 180_000);
  await page.waitForFunction(() => document.querySelectorAll('table[id="nodes-default-worker"] tbody tr').length === 1, undefined, { timeout: 30_000 });
  assert.ok(!(await workers.locator('th').allTextContents()).includes(gone));
  assert.ok(!servers(s.h, uuid).has(gone), 'Nova no longer has it');

  // A CA rotation replaces every server; the delete preview then lists the ones Nova has.
  const rot = await api(s.h, 'PATCH', `/v1/certificates/${uuid}`);
  assert.equal(rot.status, 202, JSON.stringify(rot.body));
  await settled(s.h, uuid, 'UPDATE_COMPLETE', 240_000);
  await page.locator('#delete-cluster').click();
  const preview = page.locator('dialog[open] ul.resources').first();
  await preview.waitFor();
  const listed = (await preview.locator('li').evaluateAll((lis) => lis.map((li) => [li.querySelector('.mono')?.textContent, li.textContent])))
    .filter(([type]) => type === 'server')
    .map(([, text]) => String(text).slice('server '.length).split(' — ')[0]!.trim());
  assert.deepEqual(listed.sort(), [...servers(s.h, uuid).keys()].sort(), 'the preview lists the servers Nova has now');
  assert.equal(listed.length, 2);
  await page.keyboard.press('Escape');

  // The reader: the nodes, a disabled Remove with why.
  const other = await launch();
  try {
    const reader = await other.page();
    await login(reader, s.url, 'demo-reader');
    await reader.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
    await reader.waitForFunction(() => document.querySelectorAll('table[id="nodes-default-worker"] tbody tr').length === 1, undefined, { timeout: 30_000 });
    const button = reader.locator('table[id="nodes-default-worker"] button').first();
    assert.equal(await button.isDisabled(), true);
    assert.match((await reader.locator('table[id="nodes-default-worker"] .why').first().textContent())!, /reader/);
  } finally {
    await other.close();
  }
});

/** In-page code (evaluated by the browser): the DOM's globals, untyped here. */
declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any
