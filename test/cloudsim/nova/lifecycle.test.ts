// A server that cannot be scheduled is in ERROR with Nova's NoValidHost fault within a second of its POST, at
// the cloud's real delays (a boot takes 15 s or more): a flavor no host can hold (vCPUs, RAM or disk beyond a
// hypervisor's), or a build-failure rule (the fault mode); a schedulable server meanwhile is still building.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CloudSims } from '../../../cloudsim/cloud.js';
import { BUILTIN_USERS } from '../../../cloudsim/embedded.js';
import type { KeystoneSim } from '../../../cloudsim/keystone/index.js';
import { HYPERVISOR } from '../../../cloudsim/nova/hosts.js';
import { NO_VALID_HOST } from '../../../cloudsim/nova/lifecycle.js';
import { passwordToken, startKeystone, startSims } from '../../support/app.js';

let keystone: KeystoneSim;
let sims: CloudSims;
let demo: string;
before(async () => {
  keystone = await startKeystone();
  sims = await startSims(keystone, 1);
  demo = await passwordToken(keystone, 'demo', BUILTIN_USERS.demo.password, 'demo');
});
after(async () => {
  await sims?.close();
  await keystone?.app.close();
});

async function nova(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sims.urls.compute}${path}`, {
    method,
    headers: { accept: 'application/json', 'x-auth-token': demo, 'openstack-api-version': 'compute 2.37', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

const boot = async (name: string, flavorRef: string) => {
  const image = [...sims.glance.state.images.values()].find((i) => i.name === 'cirros')!.id;
  const r = await nova('POST', '/servers', { server: { name, flavorRef, imageRef: image, networks: 'none' } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  return r.body.server.id as string;
};

test('NoValidHost within a second: a flavor bigger than every host, a failing-build rule; the others build on', async () => {
  const huge = sims.nova.state.addFlavor({ id: 'huge', name: 'huge', vcpus: 1, ram: 1024, disk: HYPERVISOR.localGb * 2 });
  const undo = sims.nova.state.failBuilds({ name: 'doomed', times: 1 });
  try {
    const [big, doomed, fine] = await Promise.all([boot('too-big', huge.id), boot('doomed-1', '2'), boot('fine', '2')]);
    // Scheduling takes at most a second of the cloud's time, a boot 15 s or more: both are in ERROR while the
    // schedulable server, booted at the same moment, is still building (no wall-clock bound: loaded machines).
    const seen = new Map<string, any>();
    const giveUp = Date.now() + 30_000;
    while (Date.now() < giveUp && seen.size < 2) {
      for (const id of [big, doomed]) {
        const s = (await nova('GET', `/servers/${id}`)).body.server;
        if (s.status === 'ERROR' && !seen.has(id)) seen.set(id, s);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(seen.size, 2, 'both in ERROR');
    assert.equal((await nova('GET', `/servers/${fine}`)).body.server.status, 'BUILD', 'the schedulable server is still building');
    for (const id of [big, doomed]) {
      const s = seen.get(id);
      assert.equal(s.status, 'ERROR');
      assert.equal(s.fault.code, 500);
      assert.equal(s.fault.message, NO_VALID_HOST);
      assert.equal(s['OS-EXT-STS:task_state'], null);
    }
    for (const id of [big, doomed, fine]) await nova('DELETE', `/servers/${id}`);
  } finally {
    undo();
  }
});
