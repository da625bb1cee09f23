// npm run bench -- portal: what the portal costs a user, in Debian's headless chromium against the
// whole stack on loopback.
//  1. the JS and CSS the first page loads, gzipped (target <= 150 KB);
//  2. the clusters page with N clusters (default 1000) until interactive: from navigation to the
//     first page of rows rendered, then a filter typed and applied (target <= 400 ms, issue 28);
//  3. the delay from a condition change written as a worker writes it (an UPDATE of the cluster row
//     on its own connection) to the cluster page showing it, over NOTIFY and SSE (target <= 100 ms);
//  4. the first load on the wire: the bytes Chromium received for the page and its JS and CSS, as the
//     server sends them by Accept-Encoding (brotli; target <= 50 KB);
//  5. the templates page with T templates (default 1000) until interactive: rows drawn and the count
//     showing all of them, then a filter applied (target <= 500 ms).
// Options: --clusters N, --templates T, --runs R (loads of each page), --samples S (condition changes),
// --waterfall (one more load of each page, printed by bench/portal-waterfall.ts: where its time went).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { launch } from '../test/support/browser.js';
import { login, portalStack } from '../test/support/portal.js';
import { waterfall } from './portal-waterfall.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('clusters', 1000);
const RUNS = arg('runs', 5);
const SAMPLES = arg('samples', 20);
const TEMPLATES = arg('templates', 1000);
/** After each page's runs, one more load printed as a waterfall (bench/portal-waterfall.ts). */
const WATERFALL = process.argv.includes('--waterfall');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

// 1. First-page weight.
const dist = fileURLToPath(new URL('../portal/dist/', import.meta.url));
const index = readFileSync(`${dist}index.html`, 'utf8');
const assets = [...index.matchAll(/\/ui\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
const sizes = assets.map((a) => ({ a, raw: readFileSync(`${dist}${a}`).length, gz: gzipSync(readFileSync(`${dist}${a}`), { level: 9 }).length }));
const gz = sizes.reduce((n, x) => n + x.gz, 0);
console.log(`first page: ${sizes.map((x) => `${x.a} ${(x.raw / 1024).toFixed(1)} KB (${(x.gz / 1024).toFixed(1)} KB gzipped)`).join(', ')}`);
console.log(`  JS+CSS gzipped: ${(gz / 1024).toFixed(1)} KB (target <= 150 KB) ${gz <= 150 * 1024 ? 'OK' : 'OVER'}`);

const stack = await portalStack();
const browser = await launch();
const db = new pg.Client({ connectionString: stack.h.t.config.databaseUrl });
await db.connect();
try {
  const demo = stack.projectId('demo');
  const user = stack.h.t.keystone.state.findUserByName('demo', 'default')!.id;
  // 2. N settled clusters, written in bulk as the API would have left them.
  const conditions = JSON.stringify(Object.fromEntries(['network', 'security_groups', 'api_lb', 'control_plane', 'workers', 'addons'].map((k) => [k, { status: 'True', reason: 'Ready', message: 'ready', since: new Date().toISOString() }])));
  const ids: string[] = [];
  for (let start = 0; start < N; start += 500) {
    const rows = Array.from({ length: Math.min(500, N - start) }, (_, i) => {
      const uuid = randomUUID();
      ids.push(uuid);
      return [uuid, `bench-${String(start + i).padStart(5, '0')}`];
    });
    await db.query(
      `INSERT INTO cluster (uuid, name, project_id, user_id, cluster_template_id, labels, create_timeout, status, floating_ip_enabled, master_lb_enabled, conditions, coe_version, created_at)
       SELECT u::uuid, n, $1, $2, $3, '{"kube_tag":"v1.35.1"}', 60, 'CREATE_COMPLETE', true, true, $4::jsonb, 'v1.35.1', now() FROM unnest($5::text[], $6::text[]) AS t(u, n)`,
      [demo, user, stack.h.templates.v135, conditions, rows.map((r) => r[0]), rows.map((r) => r[1])],
    );
    await db.query(
      `INSERT INTO nodegroup (uuid, name, cluster_id, project_id, labels, node_addresses, node_count, role, min_node_count, is_default, status, created_at)
       SELECT gen_random_uuid(), g.name, c.uuid, $1, '{}', '[]', g.n, g.role, g.min, true, 'CREATE_COMPLETE', now()
       FROM unnest($2::uuid[]) AS c(uuid), (VALUES ('default-master', 1, 'master', 1), ('default-worker', 3, 'worker', 0)) AS g(name, n, role, min)`,
      [demo, rows.map((r) => r[0])],
    );
  }
  const page = await browser.page();
  await login(page, stack.url, 'demo');
  const listUrl = `${stack.url}/ui/p/${demo}/clusters`;
  const loads: number[] = [];
  const filters: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.goto('about:blank');
    const t0 = Date.now();
    await page.goto(listUrl);
    await page.locator('table.clusters tbody tr').nth(49).waitFor();
    await page.getByText(`${N} of ${N} clusters`).waitFor();
    loads.push(Date.now() - t0);
    const t1 = Date.now();
    await page.fill('#f-q', 'bench-00999');
    await page.getByText(`1 of ${N} cluster`).waitFor();
    filters.push(Date.now() - t1);
  }
  const interactive = loads.map((l, i) => l + filters[i]!);
  console.log(`clusters page with ${N} clusters (${RUNS} runs): first page of rows ${median(loads)} ms median; a filter applied ${median(filters)} ms median`);
  console.log(`  navigation to interactive (rows shown and a filter answered): ${median(interactive)} ms median, ${Math.max(...interactive)} ms worst (target <= 400 ms) ${median(interactive) <= 400 ? 'OK' : 'OVER'}`);
  if (WATERFALL) {
    await waterfall(page, listUrl, async () => {
      await page.locator('table.clusters tbody tr').nth(49).waitFor();
      await page.getByText(`${N} of ${N} clusters`).waitFor();
    }, 'the clusters page');
  }

  // 3. A condition change to the page.
  const target = ids[0]!;
  await page.goto(`${stack.url}/ui/p/${demo}/clusters/${target}`);
  await page.locator('.steps').waitFor();
  await page.evaluate(() => {
    const w = globalThis as unknown as { seen: Record<string, number> };
    w.seen = {};
    const Observer = (globalThis as unknown as { MutationObserver: new (cb: () => void) => { observe(n: never, o: object): void } }).MutationObserver;
    new Observer(() => {
      for (const el of (globalThis as unknown as { document: { querySelectorAll(s: string): { textContent: string | null }[] } }).document.querySelectorAll('.step-message')) {
        const m = /^bench-(\d+)$/.exec(el.textContent ?? '');
        if (m && !(m[1]! in w.seen)) w.seen[m[1]!] = performance.timeOrigin + performance.now();
      }
    }).observe((globalThis as unknown as { document: object }).document as never, { subtree: true, childList: true, characterData: true });
  });
  const delays: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const at = Date.now();
    await db.query(`UPDATE cluster SET conditions = jsonb_set(conditions, '{workers,message}', to_jsonb($2::text)), updated_at = now() WHERE uuid = $1`, [target, `bench-${i}`]);
    await page.waitForFunction((k) => k in (globalThis as unknown as { seen: Record<string, number> }).seen, String(i));
    const seenAt = await page.evaluate((k) => (globalThis as unknown as { seen: Record<string, number> }).seen[k]!, String(i));
    delays.push(seenAt - at);
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`condition change to the page (${SAMPLES} samples): ${median(delays).toFixed(0)} ms median, ${p95(delays).toFixed(0)} ms p95 (target <= 100 ms) ${median(delays) <= 100 ? 'OK' : 'OVER'}`);

  // 4. The first load on the wire (a fresh context: nothing cached), as Chromium received it.
  const fresh = await launch();
  try {
    const p = await fresh.page();
    await p.goto(`${stack.url}/ui/`);
    await p.waitForSelector('#username');
    const wire = await p.evaluate(() => {
      const perf = (globalThis as unknown as { performance: { getEntriesByType(t: string): { name: string; encodedBodySize: number; decodedBodySize: number }[] } }).performance;
      return [...perf.getEntriesByType('navigation'), ...perf.getEntriesByType('resource')]
        .filter((e) => /\/ui\/($|assets\/)/.test(new URL(e.name).pathname))
        .map((e) => ({ name: new URL(e.name).pathname, wire: e.encodedBodySize, raw: e.decodedBodySize }));
    });
    const total = wire.reduce((n, x) => n + x.wire, 0);
    console.log(`first load on the wire: ${wire.map((x) => `${x.name} ${(x.wire / 1024).toFixed(1)} KB (${(x.raw / 1024).toFixed(1)} KB decoded)`).join(', ')}`);
    console.log(`  total ${(total / 1024).toFixed(1)} KB (target <= 50 KB) ${total <= 50 * 1024 ? 'OK' : 'OVER'}`);
  } finally {
    await fresh.close();
  }

  // 5. T templates, written in bulk as the API would have left them, and the templates page.
  await db.query(
    `INSERT INTO cluster_template (uuid, name, project_id, user_id, coe, image_id, flavor_id, master_flavor_id, external_network_id, network_driver, cluster_distro, server_type,
       registry_enabled, tls_disabled, public, master_lb_enabled, floating_ip_enabled, hidden, labels, created_at)
     SELECT gen_random_uuid(), 'bench-tpl-' || lpad(i::text, 5, '0'), $1, $2, 'kubernetes', 'ubuntu-24.04', 'm1.small', 'm1.medium', 'public', 'flannel', 'ubuntu', 'vm',
       false, false, false, false, true, false, '{"kube_tag":"v1.35.2"}', now() FROM generate_series(0, $3 - 1) AS i`,
    [demo, user, TEMPLATES],
  );
  const all = TEMPLATES + 2; // and the harness's two
  const tloads: number[] = [];
  const tfilters: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.goto('about:blank');
    const t0 = Date.now();
    await page.goto(`${stack.url}/ui/p/${demo}/templates`);
    await page.getByText(`${all} templates`, { exact: true }).waitFor({ timeout: 60_000 });
    await page.locator('table.templates tbody tr').first().waitFor();
    tloads.push(Date.now() - t0);
    const t1 = Date.now();
    await page.fill('#tf-q', `bench-tpl-${String(TEMPLATES - 1).padStart(5, '0')}`);
    await page.getByText(`1 of ${all} templates`).waitFor();
    tfilters.push(Date.now() - t1);
  }
  const tinteractive = tloads.map((l, i) => l + tfilters[i]!);
  console.log(`templates page with ${all} templates (${RUNS} runs): rows and count ${median(tloads)} ms median; a filter applied ${median(tfilters)} ms median`);
  console.log(`  navigation to interactive: ${median(tinteractive)} ms median, ${Math.max(...tinteractive)} ms worst (target <= 500 ms) ${median(tinteractive) <= 500 ? 'OK' : 'OVER'}`);
  if (WATERFALL) {
    await waterfall(page, `${stack.url}/ui/p/${demo}/templates`, async () => {
      await page.getByText(`${all} templates`, { exact: true }).waitFor({ timeout: 60_000 });
      await page.locator('table.templates tbody tr').first().waitFor();
    }, 'the templates page');
  }
} finally {
  await db.end();
  await browser.close();
  await stack.close();
}
process.exit(0);
