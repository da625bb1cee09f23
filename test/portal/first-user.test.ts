// No traps for a first user (issue 28), in Chromium against the whole stack: the Kubernetes version a
// template runs is shown on the form, the list and the wizard's picker (kube_tag, else the service's
// default, and an image whose own release disagrees is named); the form warns at save; the wizard's
// Create is disabled while the dry-run refuses, naming why, and the bill does not claim the service
// skips the quotas; "Create a template" from the wizard's empty state comes back with it chosen; an
// abandoned draft does not reopen silently; label groups have human names, the version first; unknown
// URLs and other projects' URLs end on a not-found page with a way back and a project selector that
// is not empty; every page has its own title and focus moves to its heading; upgrade asks to
// confirm; the kubeconfig stays downloadable while the cluster updates; a template in use names its
// clusters and offers a copy.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launch, type Browser } from '../support/browser.js';
import { login, type PortalStack } from '../support/portal.js';
import { portalSuite } from '../support/portal-suite.js';
import { api, createCluster, settled } from '../workers/lifecycle-support.js';

/** In-page code (evaluated by the browser): the DOM's globals, untyped here. */
declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any
declare const sessionStorage: any; // eslint-disable-line @typescript-eslint/no-explicit-any

let s: PortalStack;
let browser: Browser;
portalSuite((stack, b) => {
  s = stack;
  browser = b;
});

const title = (page: Page) => page.evaluate(() => document.title as string);
const focused = (page: Page) => page.evaluate(() => `${document.activeElement?.tagName}:${document.activeElement?.textContent}`);

test('a first user meets no trap', { timeout: 400_000 }, async (t: TestContext) => {
  const page = await browser.page();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const demo = s.projectId('demo');
  const other = s.projectId('other');
  await login(page, s.url, 'demo');

  await t.test('unknown addresses and other projects end on a not-found page with a way back', async () => {
    for (const path of ['/ui/nowhere/at/all', `/ui/p/${demo}/nowhere`]) {
      await page.goto(`${s.url}${path}`);
      await page.getByRole('heading', { name: 'Not found' }).waitFor({ timeout: 5000 });
      assert.equal(await title(page), 'Not found · Magnum clusters');
      await page.getByRole('link', { name: 'Back to the clusters of demo' }).click();
      await page.getByRole('heading', { name: 'Clusters' }).waitFor();
      assert.match(page.url(), new RegExp(`/ui/p/${demo}/clusters$`));
    }
    await page.goto(`${s.url}/ui/p/${other}/clusters`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor({ timeout: 5000 });
    await page.getByText('names a project that is not one of yours').waitFor();
    const selected = await page.locator('#project-switch').evaluate((e: any) => e.options[e.selectedIndex]?.textContent ?? ''); // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(selected, 'Not one of your projects', 'the selector says where the page is, never empty');
    assert.equal(await page.getByText('(no role)').count(), 0);
    await page.getByRole('link', { name: 'Back to the clusters of demo' }).waitFor();
  });

  await t.test('every page has its own title, and focus moves to its heading after a navigation', async () => {
    await page.goto(`${s.url}/ui/p/${demo}/clusters`);
    await page.getByRole('heading', { name: 'Clusters' }).waitFor();
    assert.equal(await title(page), 'Clusters · Magnum clusters');
    for (const [link, heading] of [['Templates', 'Cluster templates'], ['Quotas', 'Quotas'], ['Clusters', 'Clusters']] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await page.waitForFunction((h) => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === h, heading, { timeout: 3000 }).catch(async () => assert.fail(`focus is on ${await focused(page)}`));
      assert.equal(await title(page), `${heading} · Magnum clusters`);
    }
  });

  await t.test('the Kubernetes version a template runs, on the list, the form and the picker; a disagreeing image is named and warned at save', async () => {
    // A template of an image carrying v1.36.1, without kube_tag: the default (v1.35.5) applies and creates are refused.
    const made = await api(s.h, 'POST', '/v1/clustertemplates', {
      name: 'img-136', coe: 'kubernetes', image_id: 'ubuntu-2404-kube-v1.36.1', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', network_driver: 'calico', master_lb_enabled: true,
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    const row = page.locator('tr', { has: page.getByRole('rowheader', { name: 'img-136' }) });
    await row.waitFor();
    await row.getByText(/Image ubuntu-2404-kube-v1\.36\.1 carries Kubernetes v1\.36\.1/).waitFor();
    assert.match((await row.locator('td.kube').textContent())!, /^v1\.35\.5 \(the service’s default\)/);
    assert.match((await page.locator('tr', { has: page.getByRole('rowheader', { name: 'k8s-136' }) }).locator('td.kube').textContent())!, /^v1\.36\.0$/);

    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Create a template' }).waitFor();
    await page.locator('#t-image_id option[value="ubuntu-2404-kube-v1.36.1"]').waitFor({ state: 'attached' });
    await page.fill('#t-name', 'newcomer');
    await page.selectOption('#t-image_id', 'ubuntu-2404-kube-v1.36.1');
    await page.selectOption('#t-external_network_id', 'public');
    await page.selectOption('#t-master_flavor_id', 'm1.medium');
    await page.selectOption('#t-flavor_id', 'm1.small');
    assert.match((await page.locator('#t-kube-version').textContent())!, /v1\.35\.5 \(the service’s default\)/);
    await page.locator('#kube-mismatch').getByText(/carries Kubernetes v1\.36\.1/).waitFor();
    // Save warns first and stays on the form.
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('button', { name: 'Save anyway' }).waitFor();
    assert.match(page.url(), /templates\/new/);
    await page.getByRole('button', { name: 'Set kube_tag to v1.36.1' }).click();
    assert.equal(await page.inputValue('#tl-kube_tag'), 'v1.36.1');
    assert.match((await page.locator('#t-kube-version').textContent())!, /v1\.36\.1 \(its label kube_tag\)/);
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('rowheader', { name: 'newcomer' }).waitFor();
    assert.match((await page.locator('tr', { has: page.getByRole('rowheader', { name: 'newcomer' }) }).locator('td.kube').textContent())!, /^v1\.36\.1$/);
  });

  await t.test('label groups have human names, the Kubernetes version first, and no contradicting hint', async () => {
    await page.goto(`${s.url}/ui/p/${demo}/templates/new`);
    await page.getByRole('heading', { name: 'Create a template' }).waitFor();
    const summaries = await page.locator('.labels-form summary').allTextContents();
    assert.match(summaries[0]!, /^Kubernetes version and runtime \(\d+ labels\)$/);
    assert.ok(summaries.every((x) => !/cniCalico|nodeOps|apiServer|\(1 labels\)/.test(x)), summaries.join(' | '));
    assert.ok(summaries.some((x) => /\(1 label\)$/.test(x)), 'one label is "1 label"');
    assert.equal(await page.locator('.labels-form details').first().getAttribute('open'), '', 'the version group is open');
    assert.equal(await page.locator('.labels-form .label-field').first().locator('label').textContent(), 'kube_tag');
    assert.deepEqual(await page.locator('#tl-cgroup_driver option').allTextContents(), ['default', 'systemd'], 'never offers what the hint says is refused');
  });

  await t.test('the picker shows the version; Create is disabled while the dry-run refuses, naming why; the quota note is right', async () => {
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(`${s.url}/ui/p/${demo}/clusters/new`);
    const card = page.locator('label.card', { hasText: 'img-136' });
    await card.waitFor();
    assert.match((await card.textContent())!, /Kubernetes v1\.35\.5 \(the service’s default\)/);
    assert.match((await card.textContent())!, /carries Kubernetes v1\.36\.1/);
    await card.click();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.fill('#name', 'refused');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('heading', { name: /Step 3 of 4/ }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.locator('section.bill-panel[aria-busy="false"] #bill-refused').waitFor();
    const create = page.locator('form button[type="submit"]').last();
    assert.equal(await create.isDisabled(), true, 'a refused create cannot be sent');
    assert.equal(await create.getAttribute('aria-describedby'), 'bill-refused');
    assert.match((await page.locator('#bill-refused').textContent())!, /carries Kubernetes v1\.36\.1 .* kube_tag is v1\.35\.5/);
    assert.equal(await page.getByText('does not ask the cloud for its quotas').count(), 0);
  });

  await t.test('an abandoned draft does not reopen silently at step 4', async () => {
    const key = `draft:create:${demo}`;
    const draft = { step: 3, cluster_template_id: s.h.templates.v135, name: 'old', master_count: '1', node_count: '1', master_flavor_id: '', flavor_id: '', keypair: '', labels: {} };
    await page.evaluate(([k, v]) => sessionStorage.setItem(k, JSON.stringify({ value: v, at: Date.now() - 3 * 86_400_000 })), [key, draft] as const);
    await page.goto(`${s.url}/ui/p/${demo}/clusters/new`);
    await page.getByRole('heading', { name: /Step 1 of 4/ }).waitFor();
    // A recent one is kept, and says so with a way to start over.
    await page.evaluate(([k, v]) => sessionStorage.setItem(k, JSON.stringify({ value: v, at: Date.now() - 60_000 })), [key, draft] as const);
    await page.goto(`${s.url}/ui/p/${demo}/clusters/new`);
    await page.getByRole('heading', { name: /Step 4 of 4/ }).waitFor();
    await page.getByText(/You left this cluster unfinished .* at step 4/).waitFor();
    await page.getByRole('button', { name: 'Start over' }).click();
    await page.getByRole('heading', { name: /Step 1 of 4/ }).waitFor();
  });

  await t.test('"Create a template" from the empty wizard comes back to it with the template chosen', async () => {
    const second = await launch();
    const p = await second.page();
    await login(p, s.url, 'other');
    await p.goto(`${s.url}/ui/p/${other}/clusters/new`);
    await p.getByRole('link', { name: 'Create a template' }).click();
    await p.getByRole('heading', { name: 'Create a template' }).waitFor();
    await p.locator('#t-image_id option[value="ubuntu-24.04"]').waitFor({ state: 'attached' });
    await p.fill('#t-name', 'first');
    await p.selectOption('#t-image_id', 'ubuntu-24.04');
    await p.selectOption('#t-external_network_id', 'public');
    await p.selectOption('#t-master_flavor_id', 'm1.medium');
    await p.selectOption('#t-flavor_id', 'm1.small');
    await p.getByRole('button', { name: 'Create template' }).click();
    await p.waitForURL(new RegExp(`/ui/p/${other}/clusters/new$`));
    await p.getByRole('heading', { name: /Step 1 of 4/ }).waitFor();
    await p.locator('label.card-on', { hasText: 'first' }).waitFor();
    assert.equal(await p.locator('input[name="template"]:checked').count(), 1);
    await second.close();
  });

  await t.test('on a cluster: upgrade asks first, the kubeconfig stays downloadable while it updates, a template in use names its clusters', async () => {
    const uuid = await createCluster(s.h, 'web', 1, 1);
    await settled(s.h, uuid, 'CREATE_COMPLETE', 180_000);
    await page.goto(`${s.url}/ui/p/${demo}/clusters/${uuid}`);
    await page.getByRole('heading', { name: 'web' }).waitFor();
    assert.equal(await title(page), 'web · Magnum clusters');
    assert.match((await page.locator('#cluster-kube').textContent())!, /Kubernetes v1\.35\.1/);
    // Upgrade: a dialog first; Cancel sends nothing.
    const target = await page.locator('#upgrade-target option', { hasText: 'k8s-136' }).getAttribute('value');
    await page.selectOption('#upgrade-target', target!);
    await page.locator('#upgrade:not([disabled])').waitFor();
    await page.locator('#upgrade').click();
    const dialog = page.getByRole('dialog', { name: 'Upgrade web to k8s-136?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await api(s.h, 'GET', `/v1/clusters/${uuid}`)).body.status, 'CREATE_COMPLETE', 'nothing sent');
    // A resize: the cluster updates, and the kubeconfig is still offered.
    const r = await api(s.h, 'POST', `/v1/clusters/${uuid}/actions/resize`, { node_count: 2 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    await page.locator('.page-head .badge', { hasText: 'UPDATE_IN_PROGRESS' }).waitFor();
    assert.equal(await page.locator('#kubeconfig').isDisabled(), false, 'kubeconfig while UPDATE_IN_PROGRESS');
    await settled(s.h, uuid, 'UPDATE_COMPLETE', 180_000);
    // Deleting its template: the dialog names the cluster and offers a copy instead.
    await page.goto(`${s.url}/ui/p/${demo}/templates`);
    const row = page.locator('tr', { has: page.getByRole('rowheader', { name: 'k8s-135' }) });
    await row.getByText('1 cluster', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Delete k8s-135' }).click();
    const d = page.getByRole('dialog', { name: 'Delete template k8s-135?' });
    await d.getByRole('list', { name: 'Clusters using k8s-135' }).getByRole('link', { name: 'web' }).waitFor();
    await d.getByRole('button', { name: 'Copy k8s-135' }).click();
    await page.getByRole('heading', { name: 'Copy a template' }).waitFor();
    await page.waitForFunction(() => (document.querySelector('#t-name') as { value: string } | null)?.value === 'k8s-135-copy');
    assert.equal(await page.inputValue('#tl-kube_tag'), 'v1.35.1');
  });

  assert.deepEqual(errors, [], 'no page error');
});
