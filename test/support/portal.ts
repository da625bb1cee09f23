// The portal against the whole stack (API with the built portal, a worker, the simulated cloud on
// free loopback ports), for the browser tests, the screenshots and the benchmark.
import type { Page } from 'playwright-core';
import { harness, startWorker, type Harness } from '../workers/lifecycle-support.js';

/** In-page code (evaluated by the browser): the DOM's globals, untyped here. */
declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any
declare const localStorage: any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface PortalStack {
  h: Harness;
  url: string;
  projectId(name: string): string;
  close(): Promise<void>;
}

export async function portalStack(opts: { timeScale?: number } = {}): Promise<PortalStack> {
  const h = await harness({ listen: true, ...(opts.timeScale !== undefined ? { timeScale: opts.timeScale } : {}) });
  const worker = await startWorker(h.workerOptions({ healthIntervalMs: 0 }));
  return {
    h,
    url: h.t.apiUrl!,
    projectId: (name) => h.t.keystone.state.findProjectByName(name, 'default')!.id,
    async close() {
      await worker.close();
      await h.close();
    },
  };
}

export const PASSWORDS = { demo: 'demo-secret', 'demo-reader': 'reader-secret', other: 'other-secret', admin: 'admin-secret' } as const;

/** Presses Tab until the focused element matches `selector` (the page is usable by keyboard alone); fails after `max` presses. */
export async function tabTo(page: Page, selector: string, max = 120): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  const at = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120));
  throw new Error(`${selector} is not reachable with Tab (focus is on ${at})`);
}

/** Presses Tab until the focused element matches `selector` and its text starts with `text`. */
export async function tabToText(page: Page, selector: string, text: string, max = 200): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate(([s, t]) => !!document.activeElement?.matches(s!) && (document.activeElement.textContent ?? '').trim().startsWith(t!), [selector, text])) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} "${text}" is not reachable with Tab`);
}

/** Logs in through the form with the keyboard only. */
export async function login(page: Page, url: string, user: keyof typeof PASSWORDS, project: string = user === 'demo-reader' ? 'demo' : user): Promise<void> {
  await page.goto(`${url}/ui/`);
  await page.waitForSelector('#username');
  await tabTo(page, '#username');
  await page.keyboard.type(user);
  await tabTo(page, '#password');
  await page.keyboard.type(PASSWORDS[user]);
  await tabTo(page, '#project');
  await page.keyboard.type(project);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/ui\/p\/[^/]+\/clusters$/);
}

/** Sets the theme the way the toggle does, without a reload. */
export async function setTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate((t) => {
    localStorage.setItem('portal:theme', t);
    document.documentElement.dataset.theme = t;
  }, theme);
}
