// A real browser for the portal's tests, screenshots and benchmark: Debian's chromium (installed
// when missing; never a downloaded build) driven by playwright-core, with a fresh profile each time.
// axe-core runs in the page for accessibility checks (WCAG 2.1 AA rules).
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { aptInstall } from './apt.js';

/** In-page code (evaluated by the browser): the DOM's globals, untyped here (the tests compile without the DOM library). */
declare const window: any; // eslint-disable-line @typescript-eslint/no-explicit-any
declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function ensureChromium(): Promise<void> {
  if (await access(CHROMIUM).then(() => true, () => false)) return;
  await aptInstall(['chromium']);
}

export interface Browser {
  context: BrowserContext;
  page(): Promise<Page>;
  close(): Promise<void>;
}

/** A browser with a fresh --user-data-dir; `theme` sets prefers-color-scheme. */
export async function launch(opts: { theme?: 'light' | 'dark'; downloads?: boolean } = {}): Promise<Browser> {
  await ensureChromium();
  const profile = await mkdtemp(join(tmpdir(), 'portal-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    colorScheme: opts.theme ?? 'light',
    acceptDownloads: opts.downloads ?? true,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    page: async () => context.newPage(),
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core's WCAG 2.0/2.1 A and AA violations on the page as it is now. */
export async function axe(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // The CSP forbids inline and foreign scripts for the app; an evaluated script is the test's own.
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  });
}

export const describeViolations = (v: AxeViolation[]) => v.map((x) => `${x.id} (${x.impact}): ${x.help} at ${x.nodes.map((n) => n.target.join(' ')).join('; ')}`).join('\n');
