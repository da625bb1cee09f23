// Horizon's magnum-ui (Debian's openstack-dashboard and python3-magnum-ui, Zed) in Chromium against the
// service and the simulator: Horizon logs in at the simulated Keystone and reaches our API as the catalog's
// container-infra endpoint and the simulated Nova, Neutron and Glance. demo lists, creates (the form
// offering the cloud's images), shows, updates and deletes templates, creates a cluster with the wizard
// and watches it reach CREATE_COMPLETE on its page, downloads its CA, upgrades and deletes it, and upgrades one made with the
// wizard's defaults (no load balancer: its floating IP moves to the new control plane) (Horizon's resize
// dialog needs Heat: its own limit, in the README's client table, not tested);
// admin creates, updates and deletes a quota. Every call Horizon makes goes through a recording tap:
// a failing step names the calls that failed meanwhile, and the last step lists all of them.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { choose, detail, openPage, downloadOf, goneFromList, horizonLogin, modal, rowAction, rowNamed, settleOnPage, tab, tick } from '../../support/horizon-pages.js';
import { describeExchanges } from '../../support/wire-tap.js';
import { leftovers } from '../lifecycle-support.js';
import { expectedFailure, fromHorizon, horizonStack, PASSWORD, tracebackSummary, type HorizonStack } from './horizon-stack.js';

const KEYPAIR = 'horizon-key';
const SCRATCH = { name: 'horizon-scratch', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', network_driver: 'calico', labels: { kube_tag: 'v1.35.1' } };

let s: HorizonStack;
before(async () => {
  s = await horizonStack({ keypair: KEYPAIR, templates: [SCRATCH] });
});
after(async () => {
  await s?.close();
});

/** Waits for Horizon's POST of the cluster action to be answered (the page must not be read before it lands). */
async function actionLanded(since: number, uuid: string, action: 'upgrade', timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const sent = s.tap.exchanges().find((e) => e.at >= since && e.method === 'POST' && e.url.endsWith(`/v1/clusters/${uuid}/actions/${action}`));
    if (sent) {
      assert.ok(sent.status < 300, `the ${action} was refused:\n${describeExchanges([sent])}`);
      return;
    }
    assert.ok(Date.now() < end, `Horizon sent no ${action} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const templateByName = async (name: string) => ((await s.asDemo('GET', '/v1/clustertemplates')).body.clustertemplates as { name: string; uuid: string }[]).find((x) => x.name === name);

test('magnum-ui in Horizon against the service and the simulator', { timeout: 600_000 }, async (t: TestContext) => {
  const { page } = s;
  const url = s.horizon.url;
  let cluster = '';

  await s.step(t, 'demo logs in at the simulated Keystone', async () => {
    await horizonLogin(page, url, 'demo', PASSWORD.demo);
    assert.match(new URL(page.url()).pathname, /^\/project\//);
    await page.locator('.navbar').getByText('demo').first().waitFor();
  });

  await s.step(t, 'lists the cluster templates', async () => {
    await openPage(page, `${url}/project/cluster_templates/`);
    for (const name of ['k8s-135', 'k8s-136', SCRATCH.name]) await rowNamed(page, name).waitFor();
    assert.match(await rowNamed(page, 'k8s-135').innerText(), /kubernetes\s+-\s+calico/);
  });

  await s.step(t, 'creates a template with the form, which offers the cloud’s images', async () => {
    await openPage(page, `${url}/project/cluster_templates/`);
    await page.getByRole('button', { name: 'Create Cluster Template' }).click();
    const m = modal(page);
    await m.locator('input[name="name"]').fill('horizon-tpl');
    await choose(m, 'coe', 'Kubernetes');
    await tab(m, 'Node Spec');
    // magnum-ui offers the images Horizon's Glance client lists whose os_distro it knows.
    await choose(m, 'image_id', 'ubuntu-24.04');
    await choose(m, 'flavor_id', 'm1.small');
    await choose(m, 'master_flavor_id', 'm1.medium');
    await choose(m, 'keypair_id', KEYPAIR);
    await tab(m, 'Network');
    await choose(m, 'network_driver', 'Calico');
    await choose(m, 'external_network_id', 'public');
    await tick(m, 'master_lb_enabled');
    await tick(m, 'floating_ip_enabled');
    await tab(m, 'Labels');
    await m.locator('textarea').fill('kube_tag=v1.35.1');
    await m.getByRole('button', { name: 'Submit' }).click();
    await rowNamed(page, 'horizon-tpl').waitFor();
    const made = await templateByName('horizon-tpl');
    assert.ok(made, 'the API has the template');
    const body = (await s.asDemo('GET', `/v1/clustertemplates/${made.uuid}`)).body;
    assert.equal(body.image_id, 'ubuntu-24.04');
    assert.equal(body.keypair_id, KEYPAIR);
    assert.equal(body.master_lb_enabled, true);
    assert.deepEqual(body.labels, { kube_tag: 'v1.35.1' });
  });

  await s.step(t, 'shows a template', async () => {
    await openPage(page, `${url}/project/cluster_templates/`);
    await rowNamed(page, 'k8s-135').getByRole('link', { name: 'k8s-135', exact: true }).click();
    await page.waitForURL(/\/ngdetails\/OS::Magnum::ClusterTemplate\//);
    assert.equal(await detail(page, 'COE'), 'kubernetes');
    assert.equal(await detail(page, 'Image ID'), 'ubuntu-24.04');
    assert.equal(await detail(page, 'Network Driver'), 'calico');
    await page.getByText('v1.35.1').first().waitFor();
  });

  await s.step(t, 'updates a template: name and labels', async () => {
    await openPage(page, `${url}/project/cluster_templates/`);
    await rowAction(rowNamed(page, SCRATCH.name), 'Update Cluster Template');
    const m = modal(page);
    await m.locator('input[name="name"]').waitFor();
    await m.locator(`input[name="name"][value="${SCRATCH.name}"], input[name="name"]`).first().fill('horizon-scratch-2');
    await tab(m, 'Labels');
    await m.locator('textarea').fill('kube_tag=v1.35.1,auto_healing_enabled=true');
    await m.getByRole('button', { name: 'Submit' }).click();
    await rowNamed(page, 'horizon-scratch-2').waitFor();
    const updated = await templateByName('horizon-scratch-2');
    assert.ok(updated, 'renamed in the API');
    assert.deepEqual((await s.asDemo('GET', `/v1/clustertemplates/${updated.uuid}`)).body.labels, { kube_tag: 'v1.35.1', auto_healing_enabled: 'true' });
  });

  await s.step(t, 'deletes a template', async () => {
    const gone = await templateByName('horizon-scratch-2');
    assert.ok(gone, 'the updated template exists (previous step)');
    await openPage(page, `${url}/project/cluster_templates/`);
    await rowAction(rowNamed(page, 'horizon-scratch-2'), 'Delete Cluster Template');
    await modal(page).getByRole('button', { name: /Delete Cluster Template$/ }).click();
    await goneFromList(page, `${url}/project/cluster_templates/`, 'horizon-scratch-2');
    assert.equal((await s.asDemo('GET', `/v1/clustertemplates/${gone.uuid}`)).status, 404);
  });

  /** A 1+1 cluster of k8s-135 made with Horizon's wizard as a user does; its load balancer box ticked or left as it is. */
  const wizardCluster = async (name: string, loadBalancer: boolean) => {
    await openPage(page, `${url}/project/clusters/`);
    await page.getByRole('button', { name: 'Create Cluster' }).first().click();
    const m = modal(page);
    await m.locator('input[name="name"]').fill(name);
    await choose(m, 'cluster_template_id', 'k8s-135');
    await choose(m, 'availability_zone', 'nova');
    await choose(m, 'keypair', KEYPAIR);
    await tab(m, 'Size');
    await m.locator('input[name="master_count"]').fill('1');
    await choose(m, 'master_flavor_id', 'm1.medium');
    await m.locator('input[name="node_count"]').fill('1');
    await choose(m, 'flavor_id', 'm1.small');
    await tab(m, 'Network');
    // Left unticked, the wizard sends master_lb_enabled: false.
    if (loadBalancer) await tick(m, 'master_lb_enabled');
    await choose(m, 'floating_ip_enabled', 'Accessible on the public internet');
    await m.getByRole('button', { name: 'Submit' }).click();
    await rowNamed(page, name).waitFor();
  };

  await s.step(t, 'creates a cluster with the wizard and sees it reach CREATE_COMPLETE on its page', async () => {
    await wizardCluster('horizon-cl', true);
    const listed = ((await s.asDemo('GET', '/v1/clusters')).body.clusters as { name: string; uuid: string }[]).find((c) => c.name === 'horizon-cl');
    assert.ok(listed, 'the API has the cluster');
    cluster = listed.uuid;
    await rowNamed(page, 'horizon-cl').getByRole('link', { name: 'horizon-cl', exact: true }).click();
    await page.waitForURL(new RegExp(`/ngdetails/OS::Magnum::Cluster/${cluster}$`));
    assert.equal(await settleOnPage(page, page.url(), 'Status', /_IN_PROGRESS$/), 'CREATE_COMPLETE');
    assert.equal(await detail(page, 'COE Version'), 'v1.35.1');
    assert.equal(await detail(page, 'Keypair'), KEYPAIR);
    assert.match(await detail(page, 'API Address'), /^https:\/\/[\d.]+:6443$/);
  });

  const clusterPage = () => `${url}/ngdetails/OS::Magnum::Cluster/${cluster}`;

  await s.step(t, 'shows the cluster CA (downloaded as <name>_ca.pem)', async () => {
    assert.ok(cluster, 'a cluster (the create step)');
    await openPage(page, `${url}/project/clusters/`);
    const file = await downloadOf(page, () => rowAction(rowNamed(page, 'horizon-cl'), 'Show Certificate'));
    assert.equal(file.suggestedFilename(), 'horizon-cl_ca.pem');
    const pem = await readFile((await file.path())!, 'utf8');
    assert.equal(pem.trim(), String((await s.asDemo('GET', `/v1/certificates/${cluster}`)).body.pem).trim());
    assert.match(pem, /^-----BEGIN CERTIFICATE-----/);
  });

  await s.step(t, 'upgrades the cluster to k8s-136', async () => {
    assert.ok(cluster, 'a cluster (the create step)');
    await openPage(page, `${url}/project/clusters/`);
    await rowAction(rowNamed(page, 'horizon-cl'), 'Rolling Cluster Upgrade');
    const m = modal(page);
    await choose(m, 'cluster_template_id', 'k8s-136');
    const since = Date.now();
    await m.getByRole('button', { name: 'Submit' }).click();
    await actionLanded(since, cluster, 'upgrade');
    assert.equal(await settleOnPage(page, clusterPage(), 'Status', /_IN_PROGRESS$/), 'UPDATE_COMPLETE');
    assert.equal(await detail(page, 'COE Version'), 'v1.36.0');
  });

  await s.step(t, 'a cluster made with the wizard\'s defaults (no load balancer) upgrades too, its API address kept, and deletes', async () => {
    await wizardCluster('horizon-nolb', false);
    const made = ((await s.asDemo('GET', '/v1/clusters')).body.clusters as { name: string; uuid: string }[]).find((c) => c.name === 'horizon-nolb')!;
    assert.ok(made, 'the API has the cluster');
    const page2 = `${url}/ngdetails/OS::Magnum::Cluster/${made.uuid}`;
    assert.equal(await settleOnPage(page, page2, 'Status', /_IN_PROGRESS$/), 'CREATE_COMPLETE');
    const shown = (await s.asDemo('GET', `/v1/clusters/${made.uuid}`)).body;
    assert.equal(shown.master_lb_enabled, false, 'the wizard sent master_lb_enabled: false');
    await openPage(page, `${url}/project/clusters/`);
    await rowAction(rowNamed(page, 'horizon-nolb'), 'Rolling Cluster Upgrade');
    await choose(modal(page), 'cluster_template_id', 'k8s-136');
    const since = Date.now();
    await modal(page).getByRole('button', { name: 'Submit' }).click();
    await actionLanded(since, made.uuid, 'upgrade');
    assert.equal(await settleOnPage(page, page2, 'Status', /_IN_PROGRESS$/), 'UPDATE_COMPLETE');
    assert.equal(await detail(page, 'COE Version'), 'v1.36.0');
    assert.equal(await detail(page, 'API Address'), shown.api_address, 'the API address did not change');
    await openPage(page, `${url}/project/clusters/`);
    await rowAction(rowNamed(page, 'horizon-nolb'), 'Delete Cluster');
    await modal(page).getByRole('button', { name: /Delete Cluster$/ }).click();
    await goneFromList(page, `${url}/project/clusters/`, 'horizon-nolb');
  });

  await s.step(t, 'deletes the cluster, leaving nothing in the cloud', async () => {
    assert.ok(cluster, 'a cluster (the create step)');
    await openPage(page, `${url}/project/clusters/`);
    await rowAction(rowNamed(page, 'horizon-cl'), 'Delete Cluster');
    await modal(page).getByRole('button', { name: /Delete Cluster$/ }).click();
    await goneFromList(page, `${url}/project/clusters/`, 'horizon-cl');
    assert.equal((await s.asDemo('GET', `/v1/clusters/${cluster}`)).status, 404);
    assert.deepEqual(leftovers(s.h).map((x) => `${x.service}:${x.type}:${x.id}`), []);
  });

  const quotasPage = `${url}/admin/container_infra/quotas/`;
  const quotaRow = () => page.locator('tbody tr', { hasText: s.h.project });
  const demoQuota = async () => (await s.h.t.as('admin', { method: 'GET', url: `/v1/quotas/${s.h.project}/Cluster` })).json() as { hard_limit: number; id?: number };

  await s.step(t, 'admin creates a Cluster quota of 3 for demo', async () => {
    await horizonLogin(page, url, 'admin', PASSWORD.admin, '/admin/container_infra/quotas/');
    await openPage(page, quotasPage);
    await page.getByRole('button', { name: 'Create Quota' }).click();
    const m = modal(page);
    await choose(m, 'project_id', 'demo');
    await m.locator('input[name="hard_limit"]').fill('3');
    await m.getByRole('button', { name: 'Submit' }).click();
    await quotaRow().waitFor();
    const q = await demoQuota();
    assert.equal(q.hard_limit, 3);
    assert.equal(typeof q.id, 'number', 'a quota row exists');
  });

  await s.step(t, 'admin updates the quota to 5', async () => {
    await openPage(page, quotasPage);
    await rowAction(quotaRow(), 'Update Quota');
    const m = modal(page);
    const limit = m.locator('input[name="hard_limit"]');
    await limit.waitFor();
    await limit.fill('5');
    await m.getByRole('button', { name: 'Submit' }).click();
    await m.waitFor({ state: 'detached' });
    const end = Date.now() + 10_000;
    while ((await demoQuota()).hard_limit !== 5 && Date.now() < end) await page.waitForTimeout(200);
    assert.equal((await demoQuota()).hard_limit, 5);
    await openPage(page, quotasPage);
    assert.match(await quotaRow().innerText(), /Cluster\s+5\b/);
  });

  await s.step(t, 'admin deletes the quota', async () => {
    await openPage(page, quotasPage);
    await rowAction(quotaRow(), 'Delete Quota');
    await modal(page).getByRole('button', { name: /Delete/ }).click();
    const end = Date.now() + 20_000;
    for (;;) {
      await openPage(page, quotasPage);
      await page.getByText(/Displaying \d+ items?/).first().waitFor();
      if ((await quotaRow().count()) === 0) break;
      assert.ok(Date.now() < end, 'the quota row is gone');
    }
    assert.equal((await demoQuota()).id, undefined, 'back to the default (no row)');
  });

  await s.step(t, 'no call of Horizon’s to the service or the simulator failed, no traceback in its log', async () => {
    const failed = s.tap.failures((e) => fromHorizon(e) && !expectedFailure(e));
    const tracebacks = await s.horizon.tracebacks();
    t.diagnostic(`${s.tap.exchanges().filter(fromHorizon).length} calls of Horizon's, ${failed.length} failed, ${tracebacks.length} tracebacks`);
    assert.ok(
      failed.length === 0 && tracebacks.length === 0,
      `failed calls:\n${describeExchanges(failed)}\n\ntracebacks:\n${tracebacks.map(tracebackSummary).join('\n')}`,
    );
  });
});
