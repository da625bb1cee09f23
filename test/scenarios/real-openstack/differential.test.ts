// The differential test (issue 25): one scenario's calls through our own clients (src/openstack/), run once
// against the simulator (in process) and once against Debian's real Zed services (test/support/real-openstack/),
// each call recorded as (service, method, path template, query, status, the answer's keys and JSON types). The
// two recordings must be equal; a difference fails the test, printing both answers of that call. The simulator
// is made to answer as the real services do; only what genuinely varies is left out (IGNORED, each with its
// reason). Both clouds run Octavia's shipped default policy and no jobboard, as the real one does.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { CloudSims } from '../../../cloudsim/cloud.js';
import type { KeystoneSim } from '../../../cloudsim/keystone/index.js';
import { startKeystone, startSims } from '../../support/app.js';
import { differences, firstDifference, Recorder, type Ignored } from '../../support/differential/record.js';
import { runScenario, type Target } from '../../support/differential/scenario.js';
import { startRealOpenStack } from '../../support/real-openstack/index.js';

/** What genuinely varies between the two clouds, left out of the comparison. */
const IGNORED: Ignored[] = [
  ...['networks.*', 'network', 'routers.*', 'router'].map((field) => ({
    service: 'network',
    path: /^(GET|POST|PUT) \/v2\.0\/(networks|routers)/,
    field: `${field}.availability_zones`,
    reason: 'Neutron derives a network\'s and a router\'s zones from the DHCP and L3 agents hosting them; the real services run no agent (no packet flows), so theirs stay []',
  })),
];

const COMMON = { image: 'ubuntu-2404-kube-v1.35.5', flavor: 'm1.small', externalNetwork: 'public' };

async function simTarget(keystone: KeystoneSim, sims: CloudSims): Promise<Target> {
  const ks = keystone.state;
  const project = ks.createProject(`diff-${randomBytes(3).toString('hex')}`);
  const name = ks.projects.get(project)!.name;
  const member = { name, password: `${name}-secret`, project: name };
  const reader = { name: `${name}-reader`, password: `${name}-reader-secret`, project: name };
  const m = ks.createUser(member.name, member.password, project);
  ks.assignRole(m, project, 'member');
  ks.assignRole(m, project, 'load-balancer_member');
  ks.assignRole(ks.createUser(reader.name, reader.password, project), project, 'reader');
  // As the real Octavia runs: Zed's policy in code, no jobboard.
  sims.octavia.state.behaviour.policy = 'default';
  sims.octavia.state.behaviour.jobboard = false;
  return { authUrl: `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}/v3`, region: 'RegionOne', member, reader, ...COMMON };
}

describe('the differential test: one scenario through our clients, the simulator answering as the real services do', { timeout: 900_000 }, () => {
  let keystone: KeystoneSim;
  let sims: CloudSims;
  const sim = new Recorder(IGNORED);
  const real = new Recorder(IGNORED);

  before(async () => {
    keystone = await startKeystone();
    sims = await startSims(keystone);
  });

  after(async () => {
    await sims?.close();
    await keystone?.app.close();
  });

  it('runs the scenario against the simulator', async () => {
    await runScenario(sim, await simTarget(keystone, sims), 'sim');
    assert.ok(sim.calls.length > 80, `${sim.calls.length} calls recorded`);
  });

  it('runs the same scenario against the real services', async () => {
    const cloud = await startRealOpenStack();
    await cloud.setOctaviaPolicy('default');
    const tenant = await cloud.newTenant('diff');
    const member = { name: tenant.member.name, password: tenant.member.password, project: tenant.projectName };
    const reader = { name: tenant.reader.name, password: tenant.reader.password, project: tenant.projectName };
    await runScenario(real, { authUrl: cloud.authUrl, region: cloud.region, member, reader, ...COMMON }, 'real');
  });

  it('answers every call as the real services do (ids, times and the IGNORED fields aside)', () => {
    assert.ok(real.calls.length > 0 && sim.calls.length > 0, 'both runs recorded');
    const all = differences(sim.calls, real.calls);
    if (all.length) console.log(`${all.length} differing calls:\n${all.join('\n')}`);
    assert.equal(firstDifference(sim.calls, real.calls), undefined);
  });
});

