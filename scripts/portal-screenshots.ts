// npm run screenshots: every page of the portal, light and dark, into docs/portal/<page>-<theme>.png,
// taken in Debian's chromium against the whole stack (API, worker, simulated cloud on free ports)
// with a few clusters made through the API first.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launch } from '../test/support/browser.js';
import { login, portalStack, setTheme } from '../test/support/portal.js';
import { api, settled } from '../test/workers/lifecycle-support.js';

const out = fileURLToPath(new URL('../docs/portal/', import.meta.url));
mkdirSync(out, { recursive: true });

const stack = await portalStack();
const { h, url } = stack;
const browser = await launch();
try {
  const demo = stack.projectId('demo');
  const make = async (name: string, template: string, masters: number, workers: number) => {
    const r = await api(h, 'POST', '/v1/clusters', { cluster_template_id: template, name, master_count: masters, node_count: workers });
    if (r.status !== 202) throw new Error(`create ${name}: ${JSON.stringify(r.body)}`);
    return r.body.uuid as string;
  };
  const web = await make('web', h.templates.v135, 1, 2);
  await settled(h, web, 'CREATE_COMPLETE');
  const ml = await make('ml-training', h.templates.v136, 1, 1);
  await settled(h, ml, 'CREATE_COMPLETE');
  await api(h, 'POST', '/v1/clusters/web/nodegroups', { name: 'gpu', node_count: 1, flavor_id: 'm1.large' });
  await settled(h, web, 'UPDATE_COMPLETE');

  const page = await browser.page();
  const shoot = async (name: string, ready: () => Promise<unknown>, full = true) => {
    await ready();
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(page, theme);
      await page.waitForTimeout(100);
      await page.screenshot({ path: `${out}${name}-${theme}.png`, fullPage: full });
    }
    await setTheme(page, 'light');
    console.log(`docs/portal/${name}-{light,dark}.png`);
  };
  const go = async (path: string) => page.goto(`${url}${path}`);

  await go('/ui/');
  await shoot('login', () => page.locator('#username').waitFor(), false);
  await login(page, url, 'demo');
  // One cluster still building, to show its progress by condition.
  await make('staging', h.templates.v135, 1, 1);
  await shoot('clusters', () => page.locator('.progress-line').first().waitFor({ timeout: 10_000 }).catch(() => page.getByRole('link', { name: 'web' }).waitFor()), false);
  await go(`/ui/p/${demo}/clusters/${web}`);
  await shoot('cluster', () => page.locator('.timeline .event').first().waitFor());
  await page.locator('#delete-cluster').click();
  await shoot('cluster-delete', () => page.getByRole('heading', { name: /Will be deleted/ }).waitFor(), false);
  await page.keyboard.press('Escape');
  await go(`/ui/p/${demo}/clusters/new`);
  await shoot('create-1-template', () => page.locator('input[name="template"]').first().waitFor(), false);
  await page.locator('label.card', { hasText: 'k8s-135' }).click();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.fill('#name', 'analytics');
  await shoot('create-2-size', () => page.locator('#flavor_id option').nth(2).waitFor({ state: 'attached' }), false);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.locator('summary', { hasText: 'kubernetes' }).click();
  await shoot('create-3-labels', () => page.locator('#cl-kube_tag').waitFor());
  await page.getByRole('button', { name: 'Next' }).click();
  const billed = () => page.locator('section.bill-panel[aria-busy="false"] table').waitFor();
  await shoot('create-4-review', billed);
  // The same create with the project's vCPUs nearly used up: the bill names the quota and blocks the submit.
  h.t.cloud!.nova.setQuota(demo, { cores: h.t.cloud!.sims.usage(demo).cores + 1 });
  await page.locator('#bill-refresh').click();
  await shoot('create-4-review-short', () => page.locator('#bill-short').waitFor());
  h.t.cloud!.nova.quotas.delete(demo);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await go(`/ui/p/${demo}/templates`);
  await shoot('templates', () => page.getByRole('rowheader', { name: 'k8s-136' }).waitFor(), false);
  await go(`/ui/p/${demo}/templates/new`);
  await shoot('template-form', () => page.locator('#t-image_id option[value="ubuntu-24.04"]').waitFor({ state: 'attached' }));
  await go(`/ui/p/${demo}/quotas`);
  await shoot('quotas', () => page.getByRole('heading', { name: 'Quotas and usage' }).waitFor(), false);

  const reader = await browser.page();
  await reader.context().clearCookies();
  await login(reader, url, 'demo-reader');
  await reader.goto(`${url}/ui/p/${demo}/clusters/${web}`);
  await reader.locator('#delete-cluster').waitFor();
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(reader, theme);
    await reader.screenshot({ path: `${out}cluster-reader-${theme}.png`, fullPage: false });
  }
  console.log('docs/portal/cluster-reader-{light,dark}.png');
  await reader.context().clearCookies();
  await login(page, url, 'admin');
  await go(`/ui/p/${stack.projectId('admin')}/admin`);
  await shoot('admin', () => page.locator('table').first().waitFor(), false);
  await go(`/ui/p/${stack.projectId('admin')}/clusters`);
  await shoot('clusters-admin', () => page.getByRole('link', { name: 'web' }).waitFor(), false);
} finally {
  await browser.close();
  await stack.close();
}
process.exit(0);

export type { Page };
