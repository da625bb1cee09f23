// Honest, live progress (issue 28): with Nova answering 500 to every server create, the cluster page says so while
// it lasts, following the stream with no reload: the step retrying after a cloud error, the call, Nova's own
// message, how many tries so far and when the next one is; one event in the timeline for the storm, not one a
// try. When the fault clears, the create completes and the step no longer says it retries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from '../support/browser.js';
import { login, type PortalStack } from '../support/portal.js';
import { portalSuite } from '../support/portal-suite.js';
import { api, settled } from '../scenarios/lifecycle-support.js';

let s: PortalStack;
let browser: Browser;
portalSuite((stack, b) => {
  s = stack;
  browser = b;
});

test('a cloud error while a step retries shows on the cluster page, live, then goes', { timeout: 240_000 }, async () => {
  const page = await browser.page();
  await login(page, s.url, 'demo');
  const unfault = s.h.t.cloud!.sims.faults.nova.inject({ method: 'POST', operation: 'POST /servers', action: 'error', status: 500, message: 'Unexpected API Error. Please report this.' });
  let released = false;
  try {
    const r = await api(s.h, 'POST', '/v1/clusters', { cluster_template_id: s.h.templates.v135, name: 'nova-down', master_count: 1, node_count: 1 });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const uuid = r.body.uuid as string;
    await page.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
    const step = page.locator('li.step-retrying');
    await step.waitFor({ timeout: 120_000 });
    assert.match((await step.locator('.step-state').textContent())!, /^Retrying after a cloud error$/);
    const message = page.locator('li.step-retrying .step-message');
    await page.waitForFunction(() => /try [2-9]\d* of/.test(document.querySelector('li.step-retrying .step-message')?.textContent ?? ''), undefined, { timeout: 120_000 });
    assert.match((await message.textContent())!, /^Retrying after an error: compute POST \/servers: HTTP 500.*Unexpected API Error\. Please report this\..* \(try \d+ of \d+; the next at \d{4}-\d\d-\d\dT[\d:.]+Z\)\.$/);
    const events = (await api(s.h, 'GET', `/v1/clusters/${uuid}/events`)).body.events as { type: string; reason: string; message: string }[];
    const storm = events.filter((e) => e.reason === 'CloudErrorRetrying');
    // one event a storm for each condition it holds back (not one a try)
    assert.deepEqual(storm.map((e) => e.type).sort(), [...new Set(storm.map((e) => e.type))].sort(), JSON.stringify(storm));
    unfault();
    released = true;
    await settled(s.h, uuid, 'CREATE_COMPLETE', 180_000);
    await page.locator('li.step-retrying').waitFor({ state: 'detached', timeout: 30_000 });
  } finally {
    if (!released) unfault();
  }
});

/** In-page code (evaluated by the browser): the DOM's globals, untyped here. */
declare const document: any; // eslint-disable-line @typescript-eslint/no-explicit-any
