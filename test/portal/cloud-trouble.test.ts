// Cloud trouble the workers keep at shows on the cluster page as a retrying cloud error does (issue 28), live: a
// worker server Nova puts in ERROR is booted again and its step says so with Nova's fault, then the create completes
// and the step no longer says it; a load balancer Octavia leaves PENDING_CREATE makes the API load balancer step say
// it is stuck, naming the load balancer and its status; a node that never joins makes the control plane step say
// so with the cause read from its console.
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

async function create(name: string): Promise<string> {
  const r = await api(s.h, 'POST', '/v1/clusters', { cluster_template_id: s.h.templates.v135, name, master_count: 1, node_count: 1 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body.uuid as string;
}

test('a server in ERROR, a load balancer stuck PENDING_CREATE and a node that never joined show as steps in trouble, live', { timeout: 420_000 }, async () => {
  const page = await browser.page();
  await login(page, s.url, 'demo');

  // A worker Nova puts in ERROR twice (NoValidHost): booted again, the workers step says so, live.
  const unfail = s.h.t.cloud!.nova.failBuilds({ name: /-worker-/, times: 2, message: 'No valid host was found. There are not enough hosts available.' });
  try {
    const uuid = await create('flaky');
    await page.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
    const step = page.locator('li.step-retrying', { hasText: 'A server is in ERROR: booting it again' });
    await step.waitFor({ timeout: 120_000 });
    assert.match((await step.locator('.step-message').textContent())!, /^Server flaky-[a-z0-9]+-worker-[a-z0-9]+ \([0-9a-f-]+\) is in ERROR: .*No valid host was found.* Booting it again \(\d of 2\)\.$/);
    await settled(s.h, uuid, 'CREATE_COMPLETE', 240_000);
    await page.locator('li.step-retrying').waitFor({ state: 'detached', timeout: 30_000 });
  } finally {
    unfail();
  }

  // Octavia never finishing the API load balancer: the step says it is stuck, with its id and status.
  const octavia = s.h.t.cloud!.sims.octavia.state;
  octavia.behaviour.stuck = true;
  try {
    const uuid = await create('lb-stuck');
    await page.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${uuid}`);
    const step = page.locator('li.step-retrying', { hasText: 'The load balancer is stuck in Octavia' });
    await step.waitFor({ timeout: 120_000 });
    assert.match((await step.locator('.step-message').textContent())!, /^The API load balancer [0-9a-f-]+ stays PENDING_CREATE, longer than a build takes \(a few minutes\): Octavia has not finished it\. Still waiting\.$/);
    assert.equal((await api(s.h, 'GET', `/v1/clusters/${uuid}`)).body.status, 'CREATE_IN_PROGRESS');
  } finally {
    octavia.behaviour.stuck = false;
  }

  // A node that never joins (no Kubernetes on the image, installing at boot disabled): the cause from its console.
  const t = await api(s.h, 'POST', '/v1/clustertemplates', {
    name: 'no-install', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small', master_flavor_id: 'm1.medium',
    master_lb_enabled: false, floating_ip_enabled: true, network_driver: 'calico', labels: { kube_tag: 'v1.35.1', kube_install_at_boot: 'false' },
  });
  assert.equal(t.status, 201, JSON.stringify(t.body));
  const r = await api(s.h, 'POST', '/v1/clusters', { cluster_template_id: t.body.uuid, name: 'air-gapped', master_count: 1, node_count: 1 });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await page.goto(`${s.url}/ui/p/${s.projectId('demo')}/clusters/${r.body.uuid}`);
  const never = page.locator('li.step-retrying', { hasText: 'A node never joined: its bootstrap failed' });
  await never.waitFor({ timeout: 120_000 });
  assert.match((await never.locator('.step-message').textContent())!, /air-gapped-[a-z0-9]+-control-plane-[a-z0-9]+: its bootstrap failed: kubeadm and kubelet 1\.35\.x are required/);
});
