// `npm run bench -- portal --waterfall`: where one page load's time goes. For a navigation, every
// request the page made (when it started and ended after the navigation began, its bytes on the
// wire; "cache" when from the browser's cache), Chromium's main-thread time (script, layout, style,
// from CDP's Performance metrics) and a V8 profile of the page's JS thread ("(program)" is Blink's
// own work), and where the bench process's CPU went (a V8 profile summarised by bench/profile.ts,
// written to bench/profiles/): the API, the worker and the simulated cloud all run in it, so that
// is the server side's CPU (with playwright's own share).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { Page } from 'playwright-core';
import { formatSummary, summarize, type CpuProfile } from './profile.js';

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
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
  await profiler.post('Profiler.start');
  t0 = Date.now();
  await page.goto(url);
  await ready();
  const total = Date.now() - t0;
  const { profile } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  const after = await metrics();
  const { profile: inPage } = await cdp.send('Profiler.stop');
  page.off('request', onRequest);
  page.off('requestfinished', onDone as never);
  await cdp.detach();
  console.log(`  waterfall of ${label}: ${total} ms to ready`);
  for (const r of [...reqs.values()].sort((a, b) => a.start - b.start)) {
    const bytes = r.bytes === undefined ? '' : r.bytes < 0 ? ' cache' : ` ${(r.bytes / 1024).toFixed(1)} KB`;
    console.log(`    ${String(r.start).padStart(5)} → ${r.end === undefined ? '  (open)' : String(r.end).padStart(5)} ms  ${r.path}${bytes}`);
  }
  const used = METRICS.map((k) => `${k.replace('Duration', '')} ${((after[k] ?? 0) - (before[k] ?? 0)).toFixed(0)} ms`).join(', ');
  console.log(`    browser main thread: ${used}`);
  const page1 = summarize(inPage as unknown as CpuProfile);
  console.log(`    in the page's JS thread: ${page1.busyMs.toFixed(0)} ms busy; by function: ${page1.selfByFunction.slice(0, 8).map(([f, ms]) => `${f.replace(/\s+http\S+\/assets\//, ' ')} ${ms.toFixed(0)} ms`).join(', ')}`);
  const dir = new URL('./profiles/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL(`portal-${label.replace(/\W+/g, '-').replace(/^-|-$/g, '')}.cpuprofile`, dir);
  writeFileSync(file, JSON.stringify(profile));
  console.log(`    its CPU profile: bench/profiles/${file.pathname.split('/').pop()!}`);
  console.log(formatSummary(`the bench process (API, worker, cloud, playwright) during ${label}`, summarize(profile as unknown as CpuProfile), 8).replace(/^/gm, '    '));
}
