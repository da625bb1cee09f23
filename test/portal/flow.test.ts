// The portal in a real browser (Debian's chromium through playwright-core) against the whole stack:
// demo logs in, makes a template (its label warnings shown), creates a cluster (its bill blocks the
// submit while a quota is short, naming it) and watches it reach CREATE_COMPLETE with no
// reload, resizes it (its bill shown), upgrades it, downloads a kubeconfig (key made in the browser) that kubectl
// uses to read /api/v1/nodes, and deletes it after the preview, leaving nothing in the cloud.
// Create → kubeconfig → delete uses the keyboard alone. On the way: other sees none of it, the
// reader sees it all and can change nothing (the API refuses a forced write), a cross-site POST
// with the cookie is refused, every page has zero axe violations in both themes, and logout
// leaves the old cookie and the old tokens useless.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { parse } from 'yaml';
import { SessionStore } from '../../src/api/portal/session-store.js';
import { axe, describeViolations, launch, type Browser } from '../support/browser.js';
import { login, setTheme, tabTo, tabToText, type PortalStack } from '../support/portal.js';
import { portalSuite } from '../support/portal-suite.js';
import { leftovers, servers } from '../workers/lifecycle-support.js';

/** In-page code (evaluated by the browser): the DOM's globals, untyped here. */
declare const window: any; // eslint-disable-line @typescript-eslint/no-explicit-any

const run = promisify(execFile);
let s: PortalStack;
let browser: Browser;
portalSuite((stack, b) => {
  s = stack;
  browser = b;
});

/** Zero axe violations in the light and the dark theme. */
async function accessible(page: Page, what: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(page, theme);
    const v = await axe(page);
    assert.equal(v.length, 0, `${what} (${theme}):\n${describeViolations(v)}`);
  }
  await setTheme(page, 'light');
}

const statusOf = (page: Page) => page.locator('.page-head .badge').first().textContent();

/** The bill panel `id` once its dry-run has answered. */
async function billReady(page: Page, id: string): Promise<void> {
  await page.locator(`section.bill-panel[aria-labelledby="${id}-title"][aria-busy="false"]`).waitFor();
}

async function waitStatus(page: Page, want: string, ms = 120_000): Promise<void> {
  await page.locator('.page-head .badge', { hasText: want }).first().waitFor({ timeout: ms }).catch(async (e: Error) => {
    throw new Error(`${e.message}; status is ${await statusOf(page)}`);
  });
}

async function sessionCookie(page: Page): Promise<string> {
  const c = (await page.context().cookies()).find((x) => x.name === 'magnum_session');
  assert.ok(c, 'a session cookie');
  assert.equal(c.httpOnly, true);
  assert.equal(c.sameSite, 'Strict');
  return `magnum_session=${c.value}`;
}

test('the portal end to end in a real browser', { timeout: 600_000 }, async (t: TestContext) => {
  const page = await browser.page();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const sent: string[] = [];
  page.on('request', (r) => sent.push(r.postData() ?? ''));
  const demoProject = s.projectId('demo');
  let uuid = '';

  await t.test('login page and login with the keyboard', async () => {
    await page.goto(`${s.url}/ui/`);
    await page.waitForSelector('#username');
    await accessible(page, 'login');
    await login(page, s.url, 'demo');
    assert.match(page.url(), new RegExp(`/ui/p/${demoProject}/clusters$`));
    await page.getByText('No clusters in this project yet.').waitFor();
    await accessible(page, 'clusters (empty)');
  });

  await t.test('create a template with the typed label form', async () => {
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('heading', { name: 'Cluster templates' }).waitFor();
    await page.getByRole('rowheader', { name: 'k8s-136', exact: true }).waitFor();
    await accessible(page, 'templates');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Create a template' }).waitFor();
    await page.locator('#t-image_id option[value="ubuntu-24.04"]').waitFor({ state: 'attached' });
    await accessible(page, 'template form');
    await page.fill('#t-name', 'portal-135');
    await page.selectOption('#t-image_id', 'ubuntu-24.04');
    await page.selectOption('#t-external_network_id', 'public');
    await page.selectOption('#t-master_flavor_id', 'm1.medium');
    await page.selectOption('#t-flavor_id', 'm1.small');
    await page.selectOption('#t-network_driver', 'calico');
    await page.fill('#tl-kube_tag', 'v1.35.1');
    // A label the service does not support: accepted, and its warning comes back with the save.
    await page.fill('#tl-extra-name', 'etcd_tag');
    await page.fill('#tl-extra-value', '3.5.0');
    await page.getByRole('button', { name: 'Add label' }).click();
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('rowheader', { name: 'portal-135' }).waitFor();
    const flash = page.getByRole('list', { name: 'Label warnings of portal-135' });
    await flash.waitFor();
    assert.match((await flash.textContent())!, /Label etcd_tag is not supported and is ignored: kubeadm pins this component/);
    await accessible(page, 'templates with label warnings');
  });

  await t.test('create a cluster with the keyboard and watch it reach CREATE_COMPLETE with no reload', async () => {
    await page.goto(`${s.url}/ui/p/${demoProject}/clusters`);
    await page.evaluate(() => ((window as unknown as { unreloaded: boolean }).unreloaded = true));
    await page.getByRole('heading', { name: 'Clusters' }).waitFor();
    await tabTo(page, '#create-cluster');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Step 1 of 4/ }).waitFor();
    await page.locator('input[name="template"]').first().waitFor();
    await accessible(page, 'create: template');
    await tabTo(page, 'input[name="template"]');
    for (let i = 0; i < 10 && !(await page.locator('label.card-on', { hasText: 'portal-135' }).count()); i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Step 2 of 4/ }).waitFor();
    await accessible(page, 'create: size');
    await tabTo(page, '#name');
    await page.keyboard.type('web');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Step 3 of 4/ }).waitFor();
    await accessible(page, 'create: labels');
    // A label value the server refuses: the dry-run says so, Create stays disabled naming why, and
    // the refusal lands on the label's field, in its step (the Kubernetes group is open, kube_tag first).
    await tabTo(page, '#cl-kube_tag');
    await page.keyboard.type('v1.99.0');
    await tabTo(page, 'button[type="submit"]');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Step 4 of 4/ }).waitFor();
    await page.getByRole('heading', { name: 'What this create takes from the project’s quotas' }).waitFor();
    await billReady(page, 'bill');
    await page.getByText(/The create would be refused: Invalid input for label kube_tag/).waitFor();
    assert.equal(await page.locator('form button[type="submit"]').last().isDisabled(), true, 'a refused create cannot be submitted');
    assert.equal(await page.locator('form button[type="submit"]').last().getAttribute('aria-describedby'), 'bill-refused');
    await accessible(page, 'create: review');
    await tabToText(page, 'button', 'Back');
    await page.keyboard.press('Enter');
    await page.locator('#cl-kube_tag-error').waitFor();
    assert.match((await page.locator('#cl-kube_tag-error').textContent())!, /kube_tag/);
    assert.equal(await page.locator('#cl-kube_tag').getAttribute('aria-invalid'), 'true');
    await accessible(page, 'create: a field with a server error');
    await tabTo(page, '#cl-kube_tag');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await tabTo(page, 'button[type="submit"]');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Step 4 of 4/ }).waitFor();
    await billReady(page, 'bill');
    const row = (quota: string) => page.locator('section.bill-panel tr', { hasText: quota });
    assert.match((await row('vCPUs (Nova cores)').textContent())!, /vCPUs \(Nova cores\)3020✓ fits/);
    assert.match((await row('Load balancers (Octavia)').textContent())!, /1/);
    assert.equal(await page.locator('form button[type="submit"]').last().isDisabled(), false);
    // A quota short: the bill names it and the submit is blocked until it fits.
    s.h.t.cloud!.nova.setQuota(demoProject, { cores: 2 });
    try {
      await tabTo(page, '#bill-refresh');
      await page.keyboard.press('Enter');
      await page.locator('#bill-short').waitFor();
      assert.match((await page.locator('#bill-short').textContent())!, /^Not enough quota: vCPUs \(Nova cores\) needs 3, 2 left\./);
      assert.match((await row('vCPUs (Nova cores)').textContent())!, /short by 1/);
      assert.equal(await page.locator('form button[type="submit"]').last().isDisabled(), true, 'a shortage blocks the submit');
      assert.equal(await page.locator('form button[type="submit"]').last().getAttribute('aria-describedby'), 'bill-short');
      await accessible(page, 'create: a quota short');
    } finally {
      s.h.t.cloud!.nova.quotas.delete(demoProject);
    }
    await tabTo(page, '#bill-refresh');
    await page.keyboard.press('Enter');
    await page.locator('#bill-short').waitFor({ state: 'detached' });
    await billReady(page, 'bill');
    await tabTo(page, 'button[type="submit"]:not([disabled])');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/clusters\/[0-9a-f-]{36}$/);
    uuid = page.url().split('/').at(-1)!;
    await page.getByRole('heading', { name: 'web' }).waitFor();
    // Progress shows while it builds, then CREATE_COMPLETE arrives over SSE.
    await waitStatus(page, 'CREATE_COMPLETE');
    assert.equal(await page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded), true, 'no reload');
    await page.getByText('Done').first().waitFor();
    assert.ok((await page.locator('.timeline .event').count()) > 3, 'the event timeline');
    await accessible(page, 'cluster detail');
  });

  await t.test('the clusters list names each cluster’s template (asked for once the rows are in)', async () => {
    const list = await browser.page(); // the same session; `page` stays on the cluster for the steps below
    await list.goto(`${s.url}/ui/p/${demoProject}/clusters`);
    const row = list.getByRole('row').filter({ has: list.getByRole('link', { name: 'web', exact: true }) });
    await row.getByRole('cell', { name: 'portal-135', exact: true }).waitFor();
    await list.close();
  });

  await t.test('other sees none of it', async () => {
    const other = await launch();
    const p = await other.page();
    await login(p, s.url, 'other');
    await p.getByText('No clusters in this project yet.').waitFor();
    await p.goto(`${s.url}/ui/p/${demoProject}/clusters/${uuid}`);
    await p.getByRole('heading', { name: 'Not found' }).waitFor();
    const forced = await p.evaluate(async ([id]) => {
      const sess = (await (await fetch("/portal/session")).json()) as { csrf_token: string };
      const r = await fetch(`/v1/clusters/${id}`, { headers: { 'x-csrf-token': sess.csrf_token } });
      return r.status;
    }, [uuid]);
    assert.equal(forced, 404);
    await other.close();
  });

  await t.test('the reader sees everything, every write control disabled with why, and the API refuses a forced write', async () => {
    const ctx = await launch();
    const p = await ctx.page();
    await login(p, s.url, 'demo-reader');
    await p.getByRole('link', { name: 'web' }).waitFor();
    assert.equal(await p.locator('#create-cluster').isDisabled(), true);
    await p.getByText('Your role in this project is reader').first().waitFor();
    await p.getByRole('link', { name: 'web' }).click();
    await waitStatus(p, 'CREATE_COMPLETE');
    for (const id of ['#delete-cluster', '#rotate-ca', '#kubeconfig', '#ng-add']) assert.equal(await p.locator(id).isDisabled(), true, id);
    assert.equal(await p.locator('#ng-default-worker-count').isDisabled(), true);
    // A reader may have the identity kubeconfig (issue 26 item 2): no credential in it, their own Keystone identity.
    const identity = p.waitForEvent('download');
    await p.locator('#kubeconfig-identity').click();
    const idFile = join(await mkdtemp(join(tmpdir(), 'portal-idk-')), 'config');
    await (await identity).saveAs(idFile);
    await p.getByText(/an identity kubeconfig \(client-keystone-auth\), which does not expire/).waitFor();
    const idConfig = parse(await readFile(idFile, 'utf8'));
    assert.equal(idConfig.users[0].user.exec.command, 'client-keystone-auth');
    assert.ok(idConfig.users[0].user.exec.args.includes('--user-name=demo-reader'));
    await accessible(p, 'cluster detail as reader');
    const forced = await p.evaluate(async ([id]) => {
      const sess = (await (await fetch("/portal/session")).json()) as { csrf_token: string };
      const r = await fetch(`/v1/clusters/${id}/actions/resize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': sess.csrf_token, 'openstack-api-version': 'container-infra 1.14' },
        body: JSON.stringify({ node_count: 5 }),
      });
      return { status: r.status, body: await r.text() };
    }, [uuid]);
    assert.equal(forced.status, 403, forced.body);
    await ctx.close();
  });

  await t.test('a cross-site POST with the cookie and no CSRF token is refused', async () => {
    const cookie = await sessionCookie(page);
    const r = await fetch(`${s.url}/v1/clusters/${uuid}/actions/resize`, {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/json', 'openstack-api-version': 'container-infra 1.14' },
      body: JSON.stringify({ node_count: 7 }),
    });
    assert.equal(r.status, 403);
    // Same origin but no token (what a forged form could do): refused too.
    const same = await page.evaluate(async ([id]) => (await fetch(`/v1/clusters/${id}`, { method: 'DELETE' })).status, [uuid]);
    assert.equal(same, 403);
  });

  await t.test('resize inline, its bill first', async () => {
    await page.fill('#ng-default-worker-count', '2');
    await billReady(page, 'ng-default-worker-bill');
    assert.match((await page.locator('section.bill-panel[aria-labelledby="ng-default-worker-bill-title"] tr', { hasText: 'Servers (Nova instances)' }).textContent())!, /Servers \(Nova instances\)12/);
    await page.locator('#ng-default-worker-resize').click();
    await waitStatus(page, 'UPDATE_IN_PROGRESS', 30_000).catch(() => undefined);
    await waitStatus(page, 'UPDATE_COMPLETE');
    await page.locator('tr', { hasText: 'default-worker' }).locator('td', { hasText: /^2$/ }).first().waitFor();
  });

  await t.test('upgrade to a valid target, with the roll explained', async () => {
    await page.locator('#upgrade-target option', { hasText: 'k8s-136' }).waitFor({ state: 'attached' });
    assert.equal(await page.locator('#upgrade-target option', { hasText: 'portal-135' }).count(), 0, 'never the same version');
    await page.getByText('with the cluster’s upgrade, first: control planes one at a time').waitFor();
    const value = await page.locator('#upgrade-target option', { hasText: 'k8s-136' }).getAttribute('value');
    await page.selectOption('#upgrade-target', value!);
    await billReady(page, 'upgrade-bill');
    await page.getByRole('heading', { name: 'While it rolls, the upgrade takes at most' }).waitFor();
    await page.locator('#upgrade:not([disabled])').waitFor();
    await page.locator('#upgrade').click();
    // Upgrade asks first, as delete and CA rotation do.
    await page.getByRole('dialog', { name: /^Upgrade web to k8s-136\?/ }).waitFor();
    await page.getByRole('button', { name: 'Upgrade web' }).click();
    await page.locator('.accepted', { hasText: /^The upgrade of web to k8s-136 is (accepted|in progress)/ }).waitFor();
    await waitStatus(page, 'UPDATE_COMPLETE');
    await page.locator('.accepted[data-state="done"]', { hasText: 'The upgrade of web to k8s-136 is complete.' }).waitFor();
    await page.locator('.facts dd', { hasText: 'v1.36.0' }).first().waitFor();
  });

  let kubeconfigPath = '';
  await t.test('kubeconfig with the keyboard: key made in the browser, kubectl reads /api/v1/nodes with it', async () => {
    await tabTo(page, '#kubeconfig');
    const download = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    const d = await download;
    const dir = await mkdtemp(join(tmpdir(), 'portal-kube-'));
    kubeconfigPath = join(dir, 'config');
    await d.saveAs(kubeconfigPath);
    await page.getByText(/Its certificate expires/).waitFor();
    assert.ok(!sent.some((b) => /PRIVATE KEY/.test(b)), 'the private key never left the browser');
    const config = parse(await readFile(kubeconfigPath, 'utf8'));
    const api = config.clusters[0].cluster.server as string;
    const url = new URL(api);
    const target = s.h.t.cloud!.sims.kube.resolve(url.hostname, Number(url.port));
    assert.ok(target, 'the simulator routes the API address');
    const args = ['--kubeconfig', kubeconfigPath, '--server', `https://${target.host}:${target.port}`, '--tls-server-name', url.hostname, 'get', '--raw', '/api/v1/nodes'];
    const r = await run('/usr/bin/kubectl', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } });
    const names = (JSON.parse(r.stdout) as { items: { metadata: { name: string } }[] }).items.map((n) => n.metadata.name).sort();
    assert.deepEqual(names, [...servers(s.h, uuid).keys()].sort());
    await writeFile(join(dir, 'nodes.json'), r.stdout);
  });

  await t.test('quotas and admin-less navigation are accessible', async () => {
    await page.getByRole('link', { name: 'Quotas' }).click();
    await page.getByRole('heading', { name: 'Quotas and usage' }).waitFor();
    await accessible(page, 'quotas');
    await page.goBack();
    await waitStatus(page, 'UPDATE_COMPLETE');
  });

  await t.test('delete with the keyboard, after the preview and the typed name; nothing is left in the cloud', async () => {
    await tabTo(page, '#delete-cluster');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Will be deleted \(\d+\)/ }).waitFor();
    const listed = await page.locator('.resources li').allTextContents();
    for (const type of ['server', 'loadbalancer', 'network', 'router', 'application credential']) assert.ok(listed.some((x) => x.startsWith(type)), `${type} in the preview: ${listed.join(' | ')}`);
    await accessible(page, 'delete preview');
    assert.equal(await page.getByRole('button', { name: 'Delete web', exact: true }).isDisabled(), true, 'not before the name is typed');
    await tabTo(page, '#confirm-name');
    await page.keyboard.type('web');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Cluster deleted' }).waitFor({ timeout: 120_000 });
    const gone = await s.h.t.as('demo', { method: 'GET', url: `/v1/clusters/${uuid}` });
    assert.equal(gone.statusCode, 404);
    assert.deepEqual(leftovers(s.h).map((x) => `${x.service}:${x.type}:${x.id}`), [], 'the simulator’s audit is empty');
  });

  await t.test('admin pages (as admin) are accessible', async () => {
    const ctx = await launch();
    const p = await ctx.page();
    await login(p, s.url, 'admin');
    await p.getByRole('link', { name: 'Admin' }).click();
    await p.getByRole('heading', { name: 'Service processes' }).waitFor();
    await p.locator('table').first().waitFor();
    await accessible(p, 'admin');
    await ctx.close();
  });

  await t.test('an expired session: log in again and return to the same page with the unsent form (no secret kept)', async () => {
    await page.goto(`${s.url}/ui/p/${demoProject}/templates/new`);
    await page.locator('#t-image_id option[value="ubuntu-24.04"]').waitFor({ state: 'attached' });
    await page.fill('#t-name', 'unsent-draft');
    await page.fill('#tl-kube_tag', 'v1.36.0');
    const store = new SessionStore(s.h.t.app.services.redis, s.h.t.app.services.secretBox, s.h.t.config.queuePrefix);
    const sid = (await sessionCookie(page)).split('=')[1]!;
    await store.destroy((await store.find(sid))!);
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByText('Your session has ended.').waitFor();
    await accessible(page, 'login after expiry');
    await tabTo(page, '#username');
    await page.keyboard.type('demo');
    await tabTo(page, '#password');
    await page.keyboard.type('demo-secret');
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/ui/p/${demoProject}/templates/new$`));
    await page.locator('#t-name').waitFor();
    assert.equal(await page.inputValue('#t-name'), 'unsent-draft');
    assert.equal(await page.inputValue('#tl-kube_tag'), 'v1.36.0');
    const stored = await page.evaluate(() => JSON.stringify({ ...window.sessionStorage }) + JSON.stringify({ ...window.localStorage }));
    assert.doesNotMatch(stored, /demo-secret/, 'no password kept in the browser');
  });

  await t.test('logout makes the old cookie and the old tokens useless', async () => {
    const cookie = await sessionCookie(page);
    const sid = cookie.split('=')[1]!;
    const store = new SessionStore(s.h.t.app.services.redis, s.h.t.app.services.secretBox, s.h.t.config.queuePrefix);
    const tokens = (await store.tokens((await store.find(sid))!)).map((x) => x.token);
    assert.ok(tokens.length >= 1);
    const csrf = await page.evaluate(async () => ((await (await fetch("/portal/session")).json()) as { csrf_token: string }).csrf_token);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('#username').waitFor();
    const old = await fetch(`${s.url}/v1/clusters`, { headers: { cookie, 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' } });
    assert.equal(old.status, 401, 'the old cookie');
    for (const tok of tokens) {
      const r = await fetch(`${s.url}/v1/clusters`, { headers: { 'x-auth-token': tok } });
      assert.equal(r.status, 401, 'the old token');
    }
    assert.deepEqual(errors, [], 'no script error on any page');
  });
});
