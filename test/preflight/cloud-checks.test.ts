// What the template API asks of Glance, Nova and Neutron (src/preflight/cloud-checks.ts, spec magnum-api
// §3.1), against the simulated cloud: what each failure looks like to the user, and that nothing is stored when one fails.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/domain/errors.js';
import { checkNodeImage, cloudChecks, isUuidLike, nodeImageOf } from '../../src/preflight/cloud-checks.js';
import { callerOf } from '../support/callers.js';
import { closedPort } from '../support/net.js';
import { testApp, type TestApp, type User } from '../support/app.js';

let t: TestApp;
before(async () => {
  t = await testApp({ cloud: true });
});
after(() => t.close());

const cloud = () => t.cloud!;
const base = { coe: 'kubernetes', image_id: 'fedora-coreos-43', external_network_id: 'public' };

async function create(user: User, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const r = await t.as(user, { method: 'POST', url: '/v1/clustertemplates', payload: { ...base, ...body }, headers });
  return { status: r.statusCode, body: r.json(), headers: r.headers };
}

const patch = (user: User, ident: string, ops: unknown) =>
  t.as(user, { method: 'PATCH', url: `/v1/clustertemplates/${ident}`, payload: ops as object });

const detail = (body: unknown) => (body as { errors: { detail: string }[] }).errors[0]!.detail;

async function count(): Promise<number> {
  const r = await t.as('admin', { method: 'GET', url: '/v1/clustertemplates' });
  return (r.json() as { clustertemplates: unknown[] }).clustertemplates.length;
}

/** Expects a 4xx/5xx with exactly this detail, and no new template. */
async function refused(user: User, body: Record<string, unknown>, status: number, message: string) {
  const before = await count();
  const r = await create(user, body);
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(detail(r.body), message);
  assert.equal(await count(), before, 'nothing stored');
}

describe('create', () => {
  test('no 404 probes: image, flavors and external network given by name are asked for by name; the flavors are listed once', async () => {
    const probes = [
      cloud().nova.faults.inject({ method: 'GET', path: /\/flavors\/m1\./, status: 400, message: 'probed by id' }),
      cloud().glance.faults.inject({ method: 'GET', path: /\/images\/fedora/, status: 400, message: 'probed by id' }),
      cloud().neutron.faults.inject({ method: 'GET', path: /\/networks\/public/, status: 400, message: 'probed by id' }),
    ];
    cloud().sims.resetCalls();
    try {
      const r = await create('demo', { name: 'no-probes', flavor_id: 'm1.small', master_flavor_id: 'm1.medium' });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    } finally {
      for (const remove of probes) remove();
    }
    assert.equal(cloud().sims.calls()['nova GET /flavors/detail'], 1, 'both flavors from one list');
  });

  test('fills cluster_distro from the image; images, flavors and networks by name or id', async () => {
    const r = await create('demo', { name: 'by-name', flavor_id: 'm1.small', master_flavor_id: 'm1.medium', cluster_distro: 'ignored' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.cluster_distro, 'fedora-coreos');
    const shown = await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/${r.body.uuid}` });
    assert.equal(shown.json().cluster_distro, 'fedora-coreos');

    const image = cloud().glance.byName('fedora-coreos-43')!;
    const network = [...cloud().neutron.networks.values()].find((n) => n.name === 'public')!;
    const byId = await create('demo', { name: 'by-id', image_id: image.id, flavor_id: '2', master_flavor_id: '5', external_network_id: network.id });
    assert.equal(byId.status, 201, JSON.stringify(byId.body));
    assert.equal(byId.body.image_id, image.id);
    assert.equal(byId.body.cluster_distro, 'fedora-coreos');
  });

  test('an image that does not exist, by name or id', async () => {
    await refused('demo', { image_id: 'no-such-image' }, 400, 'Image no-such-image could not be found.');
    const id = 'e2d1c3a4-0000-4000-8000-000000000000';
    await refused('demo', { image_id: id }, 400, `Image ${id} could not be found.`);
  });

  test('an image without os_distro', async () => {
    await refused('demo', { image_id: 'cirros' }, 400, "Image cirros doesn't contain os_distro field.");
  });

  test("another project's private image is not found (Glance hides it); its owner may use it", async () => {
    const priv = cloud().glance.byName('demo-private-coreos')!;
    await refused('other', { image_id: 'demo-private-coreos' }, 400, 'Image demo-private-coreos could not be found.');
    await refused('other', { image_id: priv.id }, 400, `Image ${priv.id} could not be found.`);
    const mine = await create('demo', { image_id: 'demo-private-coreos' });
    assert.equal(mine.status, 201, JSON.stringify(mine.body));
  });

  test('the node image contract: an os_distro no agent of ours reads is refused, naming the images that work', async () => {
    const centos = cloud().glance.addImage({ name: 'centos-stream-9', properties: { os_distro: 'centos', os_version: '9' } });
    const focal = cloud().glance.addImage({ name: 'ubuntu-20.04', properties: { os_distro: 'ubuntu', os_version: '20.04' } });
    const odd = cloud().glance.addImage({ name: 'odd-version', properties: { os_distro: 'ubuntu', kube_version: 'latest' } });
    try {
      await refused('demo', { image_id: 'centos-stream-9' }, 400,
        "Cluster type (vm, centos, kubernetes) not supported. Image centos-stream-9 cannot boot Kubernetes nodes: its os_distro is 'centos'; nodes boot from images with os_distro ubuntu (cloud-init) or fedora-coreos (Ignition).");
      await refused('demo', { image_id: 'ubuntu-20.04' }, 400,
        'Cluster type (vm, ubuntu, kubernetes) not supported. Image ubuntu-20.04 cannot boot Kubernetes nodes: it is Ubuntu 20.04, which boots with cgroup v1; kubelet needs cgroup v2 (Ubuntu 22.04 or later).');
      await refused('demo', { image_id: 'odd-version' }, 400,
        "Cluster type (vm, ubuntu, kubernetes) not supported. Image odd-version cannot boot Kubernetes nodes: its kube_version 'latest' is not a Kubernetes release such as v1.35.5.");
      // Bare metal is not a node image's contract.
      await refused('demo', { image_id: 'ubuntu-24.04', server_type: 'bm' }, 400,
        'Cluster type (bm, ubuntu, kubernetes) not supported. Image ubuntu-24.04 cannot boot Kubernetes nodes: Kubernetes nodes are virtual machines (server_type vm).');
      for (const image of ['ubuntu-24.04', 'ubuntu-2404-kube-v1.35.5', 'fedora-coreos-43']) {
        const ok = await create('demo', { image_id: image });
        assert.equal(ok.status, 201, `${image}: ${JSON.stringify(ok.body)}`);
      }
    } finally {
      for (const i of [centos, focal, odd]) cloud().glance.images.delete(i.id);
    }
  });

  test('two images with the same name: 409, the id still works', async () => {
    const a = cloud().glance.addImage({ name: 'twin', properties: { os_distro: 'fedora-coreos' } });
    const b = cloud().glance.addImage({ name: 'twin', properties: { os_distro: 'fedora-coreos' } });
    try {
      await refused('demo', { image_id: 'twin' }, 409, "Multiple 'images' exist with same name 'twin'. Please use the resource id instead.");
      assert.equal((await create('demo', { image_id: a.id })).status, 201);
    } finally {
      cloud().glance.removeImage(a.id);
      cloud().glance.removeImage(b.id);
    }
  });

  test('an unknown flavor or master flavor', async () => {
    await refused('demo', { flavor_id: 'm9.huge' }, 400, 'Unable to find flavor m9.huge.');
    await refused('demo', { flavor_id: 'm1.small', master_flavor_id: '42' }, 400, 'Unable to find flavor 42.');
  });

  test('no external network of that name or id; a network that is not external does not count', async () => {
    await refused('demo', { external_network_id: 'nowhere' }, 400, 'Unable to find external network nowhere.');
    const internal = cloud().neutron.addNetwork({ name: 'private', projectId: t.keystone.state.projectId('demo') });
    try {
      await refused('demo', { external_network_id: 'private' }, 400, 'Unable to find external network private.');
      await refused('demo', { external_network_id: internal.id }, 400, `Unable to find external network ${internal.id}.`);
    } finally {
      cloud().neutron.removeNetwork(internal.id);
    }
  });

  test('two external networks named public: 409, the id still works', async () => {
    const second = cloud().neutron.addNetwork({ name: 'public', external: true, shared: true, projectId: t.keystone.state.projectId('admin') });
    try {
      await refused('demo', {}, 409, "Multiple external networks exist with same name 'public'. Please use the external network ID instead.");
      assert.equal((await create('demo', { external_network_id: second.id })).status, 201);
    } finally {
      cloud().neutron.removeNetwork(second.id);
    }
  });
});

describe('a cloud that fails', () => {
  test('Glance, Nova or Neutron answering 503: 503 and nothing stored', async () => {
    for (const [state, name, body] of [
      [cloud().glance, 'Glance', {}],
      [cloud().nova, 'Nova', { flavor_id: 'm1.small' }],
      [cloud().neutron, 'Neutron', {}],
    ] as const) {
      const clear = state.faults.inject({ status: 503 });
      try {
        await refused('demo', body, 503, `The ${name} service is temporarily unavailable.`);
      } finally {
        clear();
      }
    }
  });

  test('Glance unreachable or missing from the catalog: 503', async () => {
    const catalog = t.keystone.state.catalog;
    const url = cloud().sims.urls.image;
    // A fresh token for each case: the API caches a token's catalog with its validation.
    const fresh = async () => ({ 'x-auth-token': await t.token('demo') });
    try {
      catalog.upsert({ type: 'image', name: 'glance', url: `http://127.0.0.1:${await closedPort()}` });
      let r = await create('demo', {}, await fresh());
      assert.equal(r.status, 503);
      assert.equal(detail(r.body), 'The Glance service is temporarily unavailable.');
      catalog.remove('image');
      r = await create('demo', {}, await fresh());
      assert.equal(r.status, 503);
    } finally {
      catalog.upsert({ type: 'image', name: 'glance', url });
    }
    assert.equal((await create('demo', {}, await fresh())).status, 201);
  });

  test('Glance refusing the image (403): Not authorized for image', async () => {
    const clear = cloud().glance.faults.inject({ status: 403, path: '/v2/images' });
    try {
      await refused('demo', {}, 403, 'Not authorized for image fedora-coreos-43.');
    } finally {
      clear();
    }
  });

  test('a token revoked after the API cached it: the cloud says 401, so does the API', async () => {
    const token = await t.token('demo');
    const headers = { 'x-auth-token': token };
    assert.equal((await create('demo', {}, headers)).status, 201);
    const del = await t.keystone.app.inject({ method: 'DELETE', url: '/v3/auth/tokens', headers: { 'x-auth-token': token, 'x-subject-token': token } });
    assert.equal(del.statusCode, 204);
    const r = await create('demo', {}, headers);
    assert.equal(r.status, 401);
    assert.match(String(r.headers['www-authenticate']), /^Keystone uri="http:\/\/127\.0\.0\.1:\d+\/v3"$/);
  });
});

describe('PATCH re-validates what changed', () => {
  test('image, flavors and network; other fields do not ask the cloud', async () => {
    const ct = (await create('demo', { name: 'patched', flavor_id: 'm1.small' })).body;
    const op = (path: string, value: string) => [{ op: 'replace', path, value }];
    const expectDetail = async (ops: unknown, status: number, message: string) => {
      const r = await patch('demo', ct.uuid, ops);
      assert.equal(r.statusCode, status, r.body);
      assert.equal(detail(r.json()), message);
    };

    await expectDetail(op('/image_id', 'missing'), 400, 'Image missing could not be found.');
    await expectDetail(op('/image_id', 'cirros'), 400, "Image cirros doesn't contain os_distro field.");
    const centos = cloud().glance.addImage({ name: 'centos-for-patch', properties: { os_distro: 'centos' } });
    await expectDetail(op('/image_id', 'centos-for-patch'), 400,
      "Cluster type (vm, centos, kubernetes) not supported. Image centos-for-patch cannot boot Kubernetes nodes: its os_distro is 'centos'; nodes boot from images with os_distro ubuntu (cloud-init) or fedora-coreos (Ignition).");
    cloud().glance.images.delete(centos.id);
    await expectDetail(op('/flavor_id', 'm9.huge'), 400, 'Unable to find flavor m9.huge.');
    await expectDetail(op('/master_flavor_id', 'm9.huge'), 400, 'Unable to find flavor m9.huge.');
    await expectDetail(op('/external_network_id', 'nowhere'), 400, 'Unable to find external network nowhere.');

    const moved = await patch('demo', ct.uuid, [
      { op: 'replace', path: '/image_id', value: 'ubuntu-24.04' },
      { op: 'replace', path: '/flavor_id', value: 'm1.large' },
    ]);
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().cluster_distro, 'ubuntu');
    assert.equal(moved.json().flavor_id, 'm1.large');

    // With every service down, a change that names no cloud resource still goes through.
    const clears = [cloud().glance, cloud().nova, cloud().neutron].map((s) => s.faults.inject({ status: 503 }));
    try {
      const renamed = await patch('demo', ct.uuid, op('/name', 'renamed'));
      assert.equal(renamed.statusCode, 200, renamed.body);
      await expectDetail(op('/image_id', 'fedora-coreos-43'), 503, 'The Glance service is temporarily unavailable.');
    } finally {
      for (const clear of clears) clear();
    }
    const shown = await t.as('demo', { method: 'GET', url: `/v1/clustertemplates/${ct.uuid}` });
    assert.equal(shown.json().image_id, 'ubuntu-24.04', 'the refused patches changed nothing');
  });
});

// Found by the fuzz test (test/scenarios/fuzz.test.ts).
test('a template naming a 255-character image, flavor or network: 400 naming it, not 503 (the simulated Glance, Nova and Neutron answered 414 past 100 characters)', async () => {
  const long = (c: string) => c.repeat(255);
  const base = { name: 'long-ids', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public', flavor_id: 'm1.small' };
  for (const [field, detail] of [
    ['image_id', `Image ${long('i')} could not be found.`],
    ['flavor_id', `Unable to find flavor ${long('f')}.`],
    ['external_network_id', `Unable to find external network ${long('n')}.`],
  ] as const) {
    const value = long(field === 'image_id' ? 'i' : field === 'flavor_id' ? 'f' : 'n');
    const r = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { ...base, [field]: value } });
    assert.equal(r.statusCode, 400, `${field}: ${r.body}`);
    assert.equal(r.json().errors[0].detail, detail);
  }
});

describe('the checks as functions', () => {
  const refusedWith = (status: number, message: string | RegExp) => (e: unknown) =>
    e instanceof ApiError && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));

  test('isUuidLike: oslo’s: dashes, braces, urn:uuid:, any case; nothing else', () => {
    for (const v of ['6f1d7f4e-2c52-4f0e-9a3e-1b1f0b6f2a10', '6F1D7F4E2C524F0E9A3E1B1F0B6F2A10', '{6f1d7f4e-2c52-4f0e-9a3e-1b1f0b6f2a10}', 'urn:uuid:6f1d7f4e-2c52-4f0e-9a3e-1b1f0b6f2a10']) assert.equal(isUuidLike(v), true, v);
    for (const v of ['public', '6f1d7f4e-2c52-4f0e-9a3e', '6f1d7f4e-2c52-4f0e-9a3e-1b1f0b6f2a1g']) assert.equal(isUuidLike(v), false, v);
  });

  test('called directly with a caller’s clients: the image’s distro and properties, flavors, external networks, zones', async () => {
    const checks = cloudChecks(t.app.services.clouds, { authUrl: t.config.keystone.authUrl });
    const demo = await callerOf(t, 'demo');
    assert.equal(await checks.imageDistro(demo, 'fedora-coreos-43'), 'fedora-coreos');
    assert.equal((await checks.imageProperties(demo, 'ubuntu-24.04')).os_distro, 'ubuntu');
    await checks.checkFlavor(demo, 'm1.small');
    await checks.checkFlavor(demo, '2');
    await assert.rejects(checks.checkFlavor(demo, 'm9.huge'), refusedWith(400, 'Unable to find flavor m9.huge.'));
    await checks.checkExternalNetwork(demo, 'public');
    await assert.rejects(checks.checkExternalNetwork(demo, 'nowhere'), refusedWith(400, 'Unable to find external network nowhere.'));
    await checks.checkZones(demo, [{ label: 'availability_zone', zone: 'nova' }]);
    await assert.rejects(checks.checkZones(demo, [{ label: 'availability_zone', zone: 'mars' }]), refusedWith(400, /^Invalid input for label availability_zone\. Value: 'mars'\. The cloud offers no availability zone mars \(Nova's zones: nova, az-2, az-3\)\.$/));
    await checks.checkZones(demo, []);
  });

  test('a failed call is told to onFailure before it becomes the API’s error', async () => {
    const seen: number[] = [];
    const checks = cloudChecks(t.app.services.clouds, { authUrl: t.config.keystone.authUrl, onFailure: (e) => seen.push(e.status) });
    const demo = await callerOf(t, 'demo');
    const clear = cloud().nova.faults.inject({ status: 503 });
    try {
      await assert.rejects(checks.checkFlavor(demo, 'm1.small'), refusedWith(503, 'The Nova service is temporarily unavailable.'));
    } finally {
      clear();
    }
    assert.ok(seen.includes(503));
  });

  test('the node image contract: a supported distro on a vm; the image’s own Kubernetes version against kube_tag', async () => {
    assert.equal(nodeImageOf({ os_distro: 'ubuntu' }, 'img', 'vm').distro, 'ubuntu');
    assert.throws(() => nodeImageOf({ os_distro: 'ubuntu' }, 'img', 'bm'), refusedWith(400, /^Cluster type \(bm, ubuntu, kubernetes\) not supported\. Image img cannot boot Kubernetes nodes: /));
    assert.throws(() => nodeImageOf({ os_distro: 'windows' }, 'img', 'vm'), refusedWith(400, /^Cluster type \(vm, windows, kubernetes\) not supported/));
    assert.throws(() => nodeImageOf({ os_distro: 'ubuntu', kube_version: 'v1.34.1' }, 'img', 'vm', 'v1.35.2'), refusedWith(400, /^Image img carries Kubernetes v1\.34\.1 \(property kube_version\) but the cluster's kube_tag is v1\.35\.2/));
    const checks = cloudChecks(t.app.services.clouds, { authUrl: t.config.keystone.authUrl });
    assert.equal((await checkNodeImage(checks, await callerOf(t, 'demo'), 'ubuntu-24.04', 'vm')).distro, 'ubuntu');
  });
});
