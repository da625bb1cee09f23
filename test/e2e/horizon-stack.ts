// The whole stack behind Horizon for the magnum-ui lane: the API (listening, in the catalog as
// container-infra), a worker, the simulated cloud and its Keystone, every catalog endpoint behind a
// recording tap, Horizon (uwsgi) logging in at the tapped Keystone, and Chromium. Each step of the test
// runs through `step`, which adds to a failure the calls Horizon made meanwhile that failed and the
// Python tracebacks Horizon logged.
import type { TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { BUILTIN_USERS } from '../../cloudsim/embedded.js';
import { launch, type Browser } from '../support/browser.js';
import { startHorizon, type Horizon } from '../support/horizon.js';
import { describeExchanges, tapCatalog, type Exchange, type WireTap } from '../support/wire-tap.js';
import { api, harness, startWorker, type Harness, type Json } from '../workers/lifecycle-support.js';

export interface HorizonStack {
  h: Harness;
  tap: WireTap;
  horizon: Horizon;
  browser: Browser;
  page: Page;
  /** Runs a step as a subtest; a failure carries the failed calls and tracebacks of its time. */
  step(t: TestContext, name: string, fn: () => Promise<void>): Promise<void>;
  /** The API's view, as demo (app.inject, not through Horizon). */
  asDemo(method: string, url: string, payload?: unknown): Promise<{ status: number; body: Json }>;
  close(): Promise<void>;
}

/** A call of Horizon's (its Python clients), not of our API's or worker's own (Node's fetch). */
export const fromHorizon = (e: Exchange) => /python-|keystoneauth1/.test(e.userAgent);

/**
 * Failures a real cloud gives Horizon too: Horizon asks Keystone for a token scoped to the Default domain
 * at every login, and Keystone refuses it (401) when the user has no role on the domain.
 */
export const expectedFailure = (e: Exchange) =>
  e.service === 'identity' && e.method === 'POST' && e.url.startsWith('/v3/auth/tokens') && e.status === 401 && /"scope":\s*\{\s*"domain"/.test(e.requestBody);

export const PASSWORD = { demo: BUILTIN_USERS.demo.password, admin: BUILTIN_USERS.admin.password } as const;

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBbE6ZyQd7rLqk7mN2Vx3ZcHq1s4T0o8wJt5pYdR9uXk horizon-lane';

/** demo's key pair in Nova (magnum-ui's cluster wizard requires one), made through Nova's API. */
async function demoKeypair(h: Harness, name: string): Promise<void> {
  const token = await h.t.token('demo');
  const res = await fetch(`${h.t.cloud!.sims.urls.compute}/os-keypairs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-token': token },
    body: JSON.stringify({ keypair: { name, public_key: KEY } }),
  });
  if (res.status !== 200 && res.status !== 201) throw new Error(`keypair: ${res.status} ${await res.text()}`);
  // The test's own: not something a cluster left behind.
  for (const r of h.t.cloud!.sims.audit(h.project).projects.flatMap((p) => p.resources)) if (r.type === 'keypair') h.baseline.add(`${r.service}:${r.type}:${r.id}`);
}

export async function horizonStack(opts: { keypair: string; templates?: Json[] }): Promise<HorizonStack> {
  const h = await harness({ listen: true });
  const worker = await startWorker(h.workerOptions({ healthIntervalMs: 0 }));
  const tap = await tapCatalog(h.t.keystone);
  let horizon: Horizon | undefined;
  let browser: Browser | undefined;
  try {
    await demoKeypair(h, opts.keypair);
    for (const t of opts.templates ?? []) {
      const r = await api(h, 'POST', '/v1/clustertemplates', t);
      if (r.status !== 201) throw new Error(`template ${t.name}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    horizon = await startHorizon({ keystoneUrl: `${tap.keystoneUrl}/v3` });
    browser = await launch();
  } catch (e) {
    await browser?.close();
    await horizon?.stop();
    await tap.close();
    await worker.close();
    await h.close();
    throw e;
  }
  const page = await browser.page();
  page.setDefaultTimeout(20_000);
  const hz = horizon;
  return {
    h,
    tap,
    horizon: hz,
    browser,
    page,
    async step(t, name, fn) {
      await t.test(name, async () => {
        const since = Date.now();
        const before = (await hz.tracebacks()).length;
        try {
          await fn();
        } catch (e) {
          const failed = tap.failures((x) => fromHorizon(x) && !expectedFailure(x) && x.at >= since);
          const tracebacks = (await hz.tracebacks()).slice(before);
          const err = e instanceof Error ? e : new Error(String(e));
          const toApi = tap.exchanges().filter((x) => fromHorizon(x) && x.service === 'container-infra' && x.at >= since);
          err.message += `\n-- calls of Horizon's that failed during this step:\n${describeExchanges(failed) || '(none)'}`;
          err.message += `\n-- all its calls to the service during this step:\n${toApi.map((x) => `${x.method} ${x.url} → ${x.status}`).join('\n') || '(none)'}`;
          if (tracebacks.length) err.message += `\n-- Python tracebacks in Horizon's log:\n${tracebacks.join('\n')}`;
          throw err;
        }
      });
    },
    asDemo: (method, url, payload) => api(h, method, url, payload),
    async close() {
      await browser?.close();
      await hz.stop();
      await tap.close();
      await worker.close();
      await h.close();
    },
  };
}

/** The last line of each traceback (the exception) with the log line before it. */
export const tracebackSummary = (tb: string) => {
  const lines = tb.split('\n').filter((l) => l.trim());
  return `${lines[0]}\n    ${lines[lines.length - 1]}`;
};
