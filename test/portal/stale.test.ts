// No stale states on the cluster page (issue 28): everything follows the stream, with no reload. A resize says it is
// in progress until the cluster settles, then that it is complete (never "Done" while it runs); the upgrade card's
// node counts follow the resize; the health step is words about the nodes that exist, not raw JSON naming a server
// gone since, and says when it predates the last change; after a CA rotation the page says the certificate
// kubeconfig downloaded before no longer works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from '../support/browser.js';
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

test('resize, upgrade card, health step and kubeconfig follow the stream', { timeout: 420_000 }, async () => {
  const uuid = await createCluster(s.h, 'fresh', 1, 1);
  await settled(s.h, uuid, 'CREATE_COMPLETE', 240_000);
  const page = await browser.page();
  await login(page, s.url, 'demo');
  await page.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);

  // The health step: a check naming a server that is gone since, said in words about the nodes that exist.
  const names = [...servers(s.h, uuid).keys()];
  const reason = { api: 'ok', ...Object.fromEntries(names.map((n) => [`${n}.Ready`, 'True'])), 'fresh-old-worker-zzzzz.Ready': 'False' };
  const condition = { status: 'False', reason: 'NodesNotReady', message: JSON.stringify(reason), since: new Date().toISOString() };
  await s.h.t.app.services.db.query(`UPDATE cluster SET conditions = jsonb_set(conditions, '{health}', $2::jsonb) WHERE uuid = $1`, [uuid, JSON.stringify(condition)]);
  const health = page.locator('li.step', { hasText: /health/i }).locator('.step-message');
  await page.waitForFunction(() => /of 2 nodes Ready/.test(document.querySelector('ol.steps')?.textContent ?? ''), undefined, { timeout: 30_000 });
  const said = (await health.textContent())!;
  assert.equal(said, 'The API answers. 2 of 2 nodes Ready. 1 node it checked has been replaced or removed since.');
  assert.ok(!said.includes('{') && !said.includes('zzzzz'), said);

  // A certificate kubeconfig, downloaded now.
  const download = page.waitForEvent('download');
  await page.locator('#kubeconfig').click();
  await download;
  await page.getByText(/Its certificate expires/).waitFor();

  // The resize: in progress while it runs, complete once settled; the upgrade card's counts follow.
  await page.fill('#ng-default-worker-count', '2');
  await page.locator('section.bill-panel[aria-labelledby="ng-default-worker-bill-title"][aria-busy="false"]').waitFor();
  await page.locator('#ng-default-worker-resize').click();
  const note = page.locator('tr', { hasText: 'default-worker' }).locator('.accepted');
  await note.waitFor();
  assert.match((await note.textContent())!, /^The resize of default-worker to 2 is (accepted; waiting for it to start|in progress \(update in progress\))\.$/);
  assert.equal(await note.getAttribute('data-state'), 'running');
  await page.locator('tr .accepted[data-state="done"]', { hasText: 'The resize of default-worker to 2 is complete.' }).waitFor({ timeout: 180_000 });
  assert.equal((await api(s.h, 'GET', `/v1/clusters/${uuid}`)).body.status, 'UPDATE_COMPLETE');
  await page.locator('ol.plan li', { hasText: /default-worker \(2 worker nodes\)/ }).waitFor({ timeout: 10_000 });
  // The health check predates the resize: said so, with the nodes it saw.
  assert.match((await health.textContent())!, /^Checked before the last change \(.+\); the next check follows\. It found: The API answers\./);

  // A CA rotation: the kubeconfig downloaded before no longer works, and the page says so.
  await page.locator('#rotate-ca').click();
  await page.getByRole('dialog', { name: /^Rotate the CA of fresh\?/ }).getByRole('button', { name: 'Rotate CA' }).click();
  await page.locator('.accepted[data-state="done"]', { hasText: 'The CA rotation of fresh is complete.' }).waitFor({ timeout: 240_000 });
  await page.locator('#kubeconfig-stale').waitFor({ timeout: 10_000 });
  assert.match((await page.locator('#kubeconfig-stale').textContent())!, /fresh\.kubeconfig no longer works: the cluster’s CA was rotated/);
  assert.equal(await page.getByText(/Its certificate expires/).count(), 0);
});

/** In-page code (evaluated by the browser): the DOM's globals, untyped here. */
declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any
