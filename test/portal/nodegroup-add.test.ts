// Adding a node group offers what API 1.14's create takes (issue 28): image, min/max, zone, labels, the nodes'
// Kubernetes labels and taints. A line the API would not read is named at its field and holds the submit; a
// refusal of the dry-run (an unknown zone) disables the submit naming why, as does a resize the dry-run refuses
// (beyond the group's maximum). The group made carries the labels, taints and zone; its nodes are in that zone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axe, describeViolations, type Browser } from '../support/browser.js';
import { login, type PortalStack } from '../support/portal.js';
import { portalSuite } from '../support/portal-suite.js';
import { api, createCluster, settled, until } from '../scenarios/lifecycle-support.js';

let s: PortalStack;
let browser: Browser;
portalSuite((stack, b) => {
  s = stack;
  browser = b;
});

test('add a node group with zone, image, labels and taints; refusals disable the submit and say why', { timeout: 420_000 }, async () => {
  const uuid = await createCluster(s.h, 'groups', 1, 1);
  await settled(s.h, uuid, 'CREATE_COMPLETE', 240_000);
  const page = await browser.page();
  await login(page, s.url, 'demo');
  await page.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
  await page.locator('#ng-add').click();
  const dialog = page.locator('dialog[open]');
  await dialog.waitFor();
  for (const id of ['add-name', 'add-flavor_id', 'add-image_id', 'add-node_count', 'add-min_node_count', 'add-max_node_count', 'add-zone', 'add-docker_volume_size', 'add-labels', 'add-node_labels', 'add-node_taints']) {
    assert.equal(await dialog.locator(`#${id}`).count(), 1, `the form offers ${id}`);
  }
  const submit = dialog.locator('#add-submit');
  await dialog.locator('#add-name').fill('batch');
  await dialog.locator('#add-node_count').fill('1');
  await dialog.locator('#add-max_node_count').fill('2');

  // A taint the API would not read: named at its field, the submit held.
  await dialog.locator('#add-node_taints').fill('dedicated=gpu:Sometimes');
  await dialog.getByText(/the effect is one of NoSchedule, PreferNoSchedule, NoExecute \(got 'Sometimes'\)/).waitFor();
  assert.equal(await submit.isDisabled(), true);
  await dialog.locator('#add-node_taints').fill('dedicated=gpu:NoSchedule');

  // A zone the cloud does not have: the dry-run refuses, the submit is disabled and says why.
  await dialog.locator('#add-zone').fill('mars');
  const why = dialog.locator('#add-why');
  await why.waitFor({ timeout: 30_000 });
  assert.match((await why.textContent())!, /mars/);
  assert.equal(await submit.isDisabled(), true);
  assert.equal(await submit.getAttribute('aria-describedby'), 'add-why');

  await dialog.locator('#add-zone').fill('az-2');
  await dialog.locator('#add-node_labels').fill('example.com/tier=batch');
  const image = await dialog.locator('#add-image_id option').evaluateAll((os) => os.map((o) => [o.value, o.textContent]).find(([, t]) => /ubuntu-24\.04/.test(String(t)))?.[0]);
  assert.ok(image, 'the form lists the cluster images');
  await dialog.locator('#add-image_id').selectOption(String(image));
  await page.locator('section.bill-panel[aria-labelledby="add-bill-title"][aria-busy="false"]').waitFor();
  await until('the submit to be enabled', async () => !(await submit.isDisabled()), 30_000);
  assert.equal(await why.count(), 0);
  const v = await axe(page);
  assert.equal(v.length, 0, describeViolations(v));
  await submit.click();
  await dialog.waitFor({ state: 'detached' }).catch(() => undefined);
  await settled(s.h, uuid, 'UPDATE_COMPLETE', 240_000);
  const g = (await api(s.h, 'GET', `/v1/clusters/${uuid}/nodegroups/batch`)).body;
  assert.equal(g.labels.availability_zone, 'az-2');
  assert.equal(g.image_id, image);
  assert.equal(g.max_node_count, 2);
  assert.deepEqual(g.node_labels, { 'example.com/tier': 'batch' });
  assert.deepEqual(g.node_taints, [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
  await page.waitForFunction(() => document.querySelectorAll('table[id="nodes-batch"] tbody tr').length === 1, undefined, { timeout: 30_000 });
  assert.equal(await page.locator('table[id="nodes-batch"] tbody tr td').nth(1).textContent(), 'az-2');

  // A resize beyond the group's maximum: the dry-run refuses, Resize is disabled and says why.
  await page.locator('#ng-batch-count').fill('3');
  const resizeWhy = page.locator('#ng-batch-resize-why');
  await resizeWhy.waitFor({ timeout: 30_000 });
  assert.match((await resizeWhy.textContent())!, /max/i);
  assert.equal(await page.locator('#ng-batch-resize').isDisabled(), true);
});

/** In-page code (evaluated by the browser): the DOM's globals, untyped here. */
declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any
