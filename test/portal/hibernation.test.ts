// Hibernation on the cluster page (issue 28): a member hibernates a running cluster with the button and its
// confirmation, the panel follows it live to Hibernated (with what it frees), Magnum's status stays
// UPDATE_COMPLETE, its schedule is set by the form (a zone the service refuses shown there), a reader sees the state with the button disabled and why, and Wake brings it back to Awake.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, type Browser } from '../support/browser.js';
import { login, type PortalStack } from '../support/portal.js';
import { portalSuite } from '../support/portal-suite.js';
import { api, createCluster, settled } from '../scenarios/lifecycle-support.js';

let s: PortalStack;
let browser: Browser;
portalSuite((stack, b) => {
  s = stack;
  browser = b;
});

test('Hibernate and Wake from the cluster page, confirmed, followed live; a reader sees why it may not', { timeout: 240_000 }, async () => {
  const uuid = await createCluster(s.h, 'nightly', 1, 1);
  await settled(s.h, uuid, 'CREATE_COMPLETE', 180_000);
  const page = await browser.page();
  await login(page, s.url, 'demo');
  await page.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
  const panel = page.locator('#hibernation');
  await panel.locator('.badge', { hasText: 'Awake' }).waitFor({ timeout: 30_000 });
  assert.match((await panel.textContent())!, /Frees 2 server\(s\): 3 vCPU and 6 GiB of RAM off the compute hosts\./);

  // the schedule: a zone the service refuses, then a good one with its next firings
  await page.fill('#schedule-hibernate', '0 19 * * 1-5');
  await page.fill('#schedule-wake', '0 7 * * 1-5');
  await page.fill('#schedule-zone', 'Mars/Olympus');
  await page.locator('#schedule-save').click();
  await panel.getByText(/Not an IANA time zone/).waitFor();
  assert.equal((await api(s.h, 'GET', `/v1/clusters/${uuid}/hibernation`)).body.schedule, null, 'nothing stored');
  await page.fill('#schedule-zone', 'Europe/Berlin');
  await page.locator('#schedule-save').click();
  await panel.getByText('Schedule saved.').waitFor();
  assert.match((await page.locator('#schedule-next').textContent())!, /^Next: hibernate .+; wake .+ \(Europe\/Berlin\)\.$/);
  assert.deepEqual((await api(s.h, 'GET', `/v1/clusters/${uuid}/hibernation`)).body.schedule, { hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5', timezone: 'Europe/Berlin' });

  await page.locator('#hibernation-action').click();
  await page.getByRole('dialog', { name: 'Hibernate nightly?' }).waitFor();
  await page.locator('#hibernation-confirm').click();
  await panel.getByText('Hibernation of nightly accepted.').waitFor();
  await panel.locator('.badge', { hasText: /^.Hibernated$/ }).waitFor({ timeout: 120_000 });
  assert.equal((await api(s.h, 'GET', `/v1/clusters/${uuid}`)).body.status, 'UPDATE_COMPLETE', "Magnum's clients see a settled cluster");
  assert.match((await panel.textContent())!, /since /);
  assert.equal((await page.locator('#hibernation-action').textContent())!.trim(), 'Wake…');

  // a reader, in a browser of its own (a session is a cookie)
  const second = await launch();
  try {
    const reader = await second.page();
    await login(reader, s.url, 'demo-reader');
    await reader.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
    await reader.locator('#hibernation .badge', { hasText: /^.Hibernated$/ }).waitFor({ timeout: 30_000 });
    assert.equal(await reader.locator('#hibernation-action').isDisabled(), true);
    assert.match((await reader.locator('#hibernation-action-why').textContent())!, /reader/);
  } finally {
    await second.close();
  }

  await page.locator('#hibernation-action').click();
  await page.getByRole('dialog', { name: 'Wake nightly?' }).waitFor();
  await page.locator('#hibernation-confirm').click();
  await panel.locator('.badge', { hasText: 'Awake' }).waitFor({ timeout: 120_000 });
  await settled(s.h, uuid, 'UPDATE_COMPLETE');
  assert.equal((await page.locator('#hibernation-action').textContent())!.trim(), 'Hibernate…');
});
