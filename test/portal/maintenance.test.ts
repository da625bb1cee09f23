// The maintenance window on the cluster page (issue 28): a member sets a window with a zone the service refuses
// (shown at the form, nothing stored), then a good one with the latest patch of the current minor; the panel and
// the upgrade card show the next window (in its zone and the browser's time) and what it will run; a reader sees
// the form read-only and why; the planner's valid targets offered for a chosen template; zero axe violations in
// both themes; a template with a long name never widens the page at 390 px. Then the window is
// driven with an injected clock through the worker's own pass (its application credential, the API's checks):
// the upgrade begins, the page follows it live and ends on the new version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CloudFactory } from '../../src/steps/cloud.js';
import { WEEKDAYS } from '../../src/domain/maintenance-window.js';
import { maintenancePass } from '../../workers/maintenance.js';
import { axe, describeViolations, launch, type Browser } from '../support/browser.js';
import { login, setTheme, type PortalStack } from '../support/portal.js';
import { portalSuite } from '../support/portal-suite.js';
import { api, createCluster, settled } from '../scenarios/lifecycle-support.js';

declare const document: { documentElement: { scrollWidth: number } };

let s: PortalStack;
let browser: Browser;
portalSuite((stack, b) => {
  s = stack;
  browser = b;
});

test('a maintenance window set from the cluster page runs the latest patch in its window, followed live', { timeout: 420_000 }, async () => {
  const LONG = `k8s-1359-${'x'.repeat(200)}`;
  const tpl = await api(s.h, 'POST', '/v1/clustertemplates', {
    name: LONG, coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: true, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: 'v1.35.9' },
  });
  assert.equal(tpl.status, 201, JSON.stringify(tpl.body));
  const uuid = await createCluster(s.h, 'patched', 1, 1);
  await settled(s.h, uuid, 'CREATE_COMPLETE', 180_000);
  const page = await browser.page();
  await login(page, s.url, 'demo');
  await page.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
  const panel = page.locator('#maintenance');
  await panel.waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('#upgrade-next-window').count(), 0, 'no window yet');

  // Two days from now at 02:00 UTC: never open while the test runs, so the real worker's pass leaves it alone.
  const day = WEEKDAYS[(new Date().getUTCDay() + 2) % 7]!;
  await page.selectOption('#maintenance-day', day);
  await page.fill('#maintenance-start', '02:00');
  await page.fill('#maintenance-duration', '90');
  await page.fill('#maintenance-zone', 'Mars/Olympus');
  await page.selectOption('#maintenance-policy', 'latest_patch');
  await page.locator('#maintenance-save').click();
  await panel.getByText(/Not an IANA time zone/).waitFor();
  assert.equal((await api(s.h, 'GET', `/v1/clusters/${uuid}/maintenance`)).body.settings, null, 'nothing stored');

  await page.fill('#maintenance-zone', 'UTC');
  await page.locator('#maintenance-save').click();
  await panel.getByText('Maintenance window saved.').waitFor();
  const next = (await page.locator('#maintenance-next').textContent())!;
  assert.match(next, /^Next window: .+ \(UTC; .+ your time\)\. It will upgrade to k8s-1359-x+ \(v1\.35\.1 → v1\.35\.9\)\.$/);
  const m = (await api(s.h, 'GET', `/v1/clusters/${uuid}/maintenance`)).body;
  assert.deepEqual(m.settings, { window: { day, start: '02:00', duration_minutes: 90, timezone: 'UTC' }, upgrade: { auto_upgrade: 'latest_patch', cluster_template_id: null } });
  assert.match((await page.locator('#upgrade-next-window').textContent())!, /^Next maintenance window: .+ \(UTC; .+\) — will upgrade to k8s-1359-x+ \(v1\.35\.1 → v1\.35\.9\)\.$/);

  // The panel filled in and the refusal gone: zero axe violations in both themes.
  await page.selectOption('#maintenance-policy', 'template');
  await page.locator('#maintenance-template option', { hasText: /^k8s-1359-x+ — v1\.35\.9$/ }).waitFor({ state: 'attached' });
  await page.selectOption('#maintenance-policy', 'latest_patch');
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(page, theme);
    const v = await axe(page);
    assert.equal(v.length, 0, `cluster page (${theme}):\n${describeViolations(v)}`);
  }
  await setTheme(page, 'light');

  // 390 px: the long name wraps, the page does not scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `cluster page: ${width} px`);
  await page.setViewportSize({ width: 1280, height: 900 });

  // A reader, in a browser of its own: the form read-only, and why.
  const second = await launch();
  try {
    const reader = await second.page();
    await login(reader, s.url, 'demo-reader');
    await reader.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
    await reader.locator('#maintenance-next').waitFor({ timeout: 30_000 });
    assert.equal(await reader.locator('#maintenance-zone').isDisabled(), true);
    assert.equal(await reader.locator('#maintenance-save').isDisabled(), true);
    assert.match((await reader.locator('#maintenance-save-why').textContent())!, /reader/);
  } finally {
    await second.close();
  }

  // The window comes (an injected clock): the worker's pass, as the cluster's application credential, begins it once.
  const pass = maintenancePass(s.h.t.app.services.db, s.h.t.config, new CloudFactory(s.h.t.config));
  const inWindow = new Date(Date.parse(m.next_window.start) + 60_000);
  const ran = (await pass(inWindow)).filter((r) => r.cluster === uuid);
  assert.deepEqual(ran, [{ cluster: uuid, window_start: m.next_window.start, outcome: 'started' }]);
  assert.deepEqual((await pass(new Date(inWindow.getTime() + 60_000))).filter((r) => r.cluster === uuid), [], 'once');
  await page.locator('#maintenance-last', { hasText: /started the upgrade to k8s-1359-x+ \(v1\.35\.1 → v1\.35\.9\)\.$/ }).waitFor({ timeout: 30_000 });
  await settled(s.h, uuid, 'UPDATE_COMPLETE', 180_000);
  await page.locator('#cluster-kube', { hasText: 'v1.35.9' }).waitFor({ timeout: 30_000 });
  await page.locator('#maintenance-next', { hasText: /will run nothing: Already at the latest patch of 1\.35 \(v1\.35\.9\)\.$/ }).waitFor({ timeout: 30_000 });
  const events = (await api(s.h, 'GET', `/v1/clusters/${uuid}/events`)).body;
  assert.ok(JSON.stringify(events).includes('by its maintenance window of'), 'the timeline says why it upgraded');
});
