// `npm run bench -- portal --waterfall`: where one page load's time goes. For a navigation, every
// request the page made (when it started and ended after the navigation began, its bytes on the
// wire), Chromium's main-thread time (script, layout, style, from CDP's Performance metrics) and
// how busy the bench process's event loop was: the API, the worker and the simulated cloud all
// run in it, so that is the server side's CPU.
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';

interface Req {
  path: string;
  start: number;
  end: number | undefined;
  bytes: number | undefined;
}

const METRICS = ['ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration', 'TaskDuration'] as const;

/** Loads `url` with `ready` as the end of the load, and prints its waterfall. */
export async function waterfall(page: Page, url: string, ready: () => Promise<void>, label: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => {
    const { metrics: m } = await cdp.send('Performance.getMetrics');
    return Object.fromEntries(m.filter((x) => (METRICS as readonly string[]).includes(x.name)).map((x) => [x.name, x.value * 1000]));
  };
  await page.goto('about:blank');
  const reqs = new Map<unknown, Req>();
  let t0 = 0;
  const onRequest = (r: { url(): string }) => {
    const u = new URL(r.url());
    reqs.set(r, { path: u.pathname + (u.search ? '?' + u.searchParams.toString().slice(0, 40) : ''), start: Date.now() - t0, end: undefined, bytes: undefined });
  };
  const onDone = (r: { sizes(): Promise<{ responseBodySize: number }> }) => {
    const x = reqs.get(r);
    if (!x) return;
    x.end = Date.now() - t0;
    r.sizes().then((s) => void (x.bytes = s.responseBodySize), () => undefined);
  };
  page.on('request', onRequest);
  page.on('requestfinished', onDone as never);
  const before = await metrics();
  const elu0 = performance.eventLoopUtilization();
  t0 = Date.now();
  await page.goto(url);
  await ready();
  const total = Date.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  const after = await metrics();
  page.off('request', onRequest);
  page.off('requestfinished', onDone as never);
  await cdp.detach();
  console.log(`  waterfall of ${label}: ${total} ms to ready`);
  for (const r of [...reqs.values()].sort((a, b) => a.start - b.start)) {
    const bytes = r.bytes === undefined ? '' : ` ${(r.bytes / 1024).toFixed(1)} KB`;
    console.log(`    ${String(r.start).padStart(5)} → ${r.end === undefined ? '  (open)' : String(r.end).padStart(5)} ms  ${r.path}${bytes}`);
  }
  const used = METRICS.map((k) => `${k.replace('Duration', '')} ${((after[k] ?? 0) - (before[k] ?? 0)).toFixed(0)} ms`).join(', ');
  console.log(`    browser main thread: ${used}`);
  console.log(`    bench process (API, worker, cloud) event loop busy ${(elu.active).toFixed(0)} ms of ${total} ms`);
}
