// Scale and completeness (issue 28), in Chromium against the whole stack: with 1,007 templates more
// than the API's 1,000 a page, the templates page and the wizard reach every one (they follow the
// `next` links); the wizard's picker is searchable and paged, never a thousand cards; the templates
// page filters and sorts and says how many clusters use each; a 255-character name never widens a
// page, usable at 390 px; the bundle is sent precompressed by Accept-Encoding and large JSON answers
// are compressed when asked.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { launch, type Browser } from '../support/browser.js';
import { login, portalStack, type PortalStack } from '../support/portal.js';

/** In-page code (evaluated by the browser): the DOM's globals, untyped here. */
declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any

let s: PortalStack;
let browser: Browser;
const LONG = `l${'o'.repeat(250)}ng-x`;
const MANY = 1007;

before(async () => {
  s = await portalStack();
  browser = await launch();
  const post = (name: string) =>
    s.h.t.as('demo', {
      method: 'POST',
      url: '/v1/clustertemplates',
      payload: { name, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', network_driver: 'flannel', labels: { kube_tag: 'v1.35.2' } },
    });
  for (let i = 0; i < MANY; i += 25) {
    const rs = await Promise.all(Array.from({ length: Math.min(25, MANY - i) }, (_x, j) => post(`tpl-${String(i + j).padStart(4, '0')}`)));
    for (const r of rs) assert.equal(r.statusCode, 201, r.body);
  }
  const r = await post(LONG);
  assert.equal(r.statusCode, 201, r.body);
});
after(async () => {
  await browser?.close();
  await s?.close();
});

const ALL = MANY + 3; // the harness's k8s-135 and k8s-136, and the long one

/** Raw GET (no decoding), for what goes on the wire. */
function raw(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

const width = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth as number);

/** The outermost elements reaching past 390 px, for the failure's message. */
const wide = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter((e: any) => e.getBoundingClientRect().right > 391 && !(e.parentElement && e.parentElement.getBoundingClientRect().right > 391)) // eslint-disable-line @typescript-eslint/no-explicit-any
      .slice(0, 5)
      .map((e: any) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}px`) // eslint-disable-line @typescript-eslint/no-explicit-any
      .join(', '),
  );

test('scale and completeness', { timeout: 400_000 }, async (t: TestContext) => {
  const page = await browser.page();
  const demo = s.projectId('demo');
  await login(page, s.url, 'demo');

  await t.test('the templates page reaches every template past the first 1,000, filters, sorts and pages', async () => {
    await page.goto(`${s.url}/ui/p/${demo}/templates`);
    await page.getByText(`${ALL} templates`, { exact: true }).waitFor({ timeout: 60_000 });
    assert.ok((await page.locator('table.templates tbody tr').count()) <= 50, 'a page of rows, not a thousand');
    await page.fill('#tf-q', 'tpl-1006');
    await page.getByRole('rowheader', { name: 'tpl-1006' }).waitFor();
    await page.getByText(`1 of ${ALL} templates`).waitFor();
    await page.fill('#tf-q', '');
    await page.selectOption('#tf-sort', 'version');
    assert.equal(await page.locator('table.templates tbody th').first().textContent(), 'k8s-136', 'the newest Kubernetes first');
    assert.match((await page.locator('table.templates tbody tr').first().textContent())!, /0 clusters/);
    await page.getByRole('navigation', { name: 'Pages' }).getByText(`Page 1 of ${Math.ceil(ALL / 50)}`).waitFor();
  });

  await t.test('the wizard: a searchable, paged picker over every template', async () => {
    await page.goto(`${s.url}/ui/p/${demo}/clusters/new`);
    await page.getByText(`${ALL} templates`).waitFor({ timeout: 60_000 });
    assert.ok((await page.locator('label.card').count()) <= 10, 'a page of cards');
    assert.ok((await page.evaluate(() => document.documentElement.scrollHeight as number)) < 4000, 'not a 44,585 px page');
    await page.fill('#pick-q', 'tpl-1006');
    await page.locator('label.card', { hasText: 'tpl-1006' }).click();
    assert.equal(await page.locator('label.card').count(), 1);
    await page.getByText('chosen: tpl-1006').waitFor();
  });

  await t.test('a 255-character name never widens a page at 390 px', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${s.url}/ui/p/${demo}/templates`);
      await page.fill('#tf-q', LONG);
      await page.getByRole('rowheader', { name: LONG }).waitFor();
      assert.ok((await width(page)) <= 390, `templates: ${await width(page)} px`);
      await page.goto(`${s.url}/ui/p/${demo}/clusters/new`);
      await page.fill('#pick-q', LONG);
      await page.locator('label.card', { hasText: LONG }).click();
      assert.ok((await width(page)) <= 390, `wizard: ${await width(page)} px`);
      await page.getByRole('button', { name: 'Next' }).click();
      await page.fill('#name', LONG.slice(0, 60));
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('heading', { name: /Step 3 of 4/ }).waitFor();
      assert.ok((await width(page)) <= 390, `wizard labels: ${await width(page)} px`);
      await page.getByRole('button', { name: 'Next' }).click();
      await page.locator('section.bill-panel[aria-busy="false"]').waitFor();
      assert.ok((await width(page)) <= 390, `wizard review: ${await width(page)} px`);
      await page.getByRole('button', { name: 'Create cluster' }).click();
      await page.waitForURL(/\/clusters\/[0-9a-f-]{36}$/);
      await page.getByRole('heading', { name: LONG.slice(0, 60) }).waitFor();
      await page.locator('#cluster-kube').waitFor();
      assert.ok((await width(page)) <= 390, `cluster: ${await width(page)} px: ${await wide(page)}`);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  await t.test('the bundle goes precompressed by Accept-Encoding; large JSON answers are compressed when asked', async () => {
    const index = await raw(`${s.url}/ui/`, { 'accept-encoding': 'br' });
    assert.equal(index.headers['content-encoding'], 'br');
    const html = brotliDecompressSync(index.body).toString();
    const js = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const plain = await raw(`${s.url}${js}`, {});
    assert.equal(plain.headers['content-encoding'], undefined);
    const br = await raw(`${s.url}${js}`, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.match(String(br.headers.vary), /accept-encoding/i);
    assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    const gz = await raw(`${s.url}${js}`, { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.body), plain.body);
    assert.ok(br.body.length < plain.body.length / 3, `${br.body.length} of ${plain.body.length} bytes`);

    // The portal's large answers are compressed (Chromium asks br); a client with a Keystone token gets Magnum's bytes.
    const page = await browser.page();
    try {
      // the browser's context is demo's session already (the earlier steps logged in)
      await page.goto(`${s.url}/ui/`);
      const got = await page.evaluate(async () => {
        const session = (await (await fetch('/portal/session')).json()) as { csrf_token: string; projects: { id: string; name: string }[] };
        const project = session.projects.find((p) => p.name === 'demo')!.id;
        const r = await fetch('/v1/clustertemplates/detail?limit=200', { headers: { 'OpenStack-API-Version': 'container-infra latest', 'X-CSRF-Token': session.csrf_token, 'X-Portal-Project': project } });
        return { encoding: r.headers.get('content-encoding'), vary: r.headers.get('vary'), n: ((await r.json()) as { clustertemplates: unknown[] }).clustertemplates.length };
      });
      assert.deepEqual(got, { encoding: 'br', vary: 'OpenStack-API-Version, Accept-Encoding', n: 200 });
    } finally {
      await page.close();
    }
    const ask = (encoding?: string) =>
      s.h.t.as('demo', { method: 'GET', url: '/v1/clustertemplates/detail?limit=200', headers: { 'OpenStack-API-Version': 'container-infra latest', ...(encoding ? { 'accept-encoding': encoding } : {}) } });
    const json = await ask();
    const withToken = await ask('gzip, br');
    assert.equal(withToken.headers['content-encoding'], undefined, 'a token client gets Magnum\'s answer as it is');
    assert.equal(withToken.headers.vary, 'OpenStack-API-Version');
    assert.equal(withToken.body, json.body);
  });
});
