// openstacksdk 4.x (Debian trixie's python3-openstacksdk; PyPI is out of reach here, so the newest release
// a Debian archive signs) against the service and the simulator, through the resource layer
// (conn.container_infrastructure_management: templates paged and found by name, clusters, certificates,
// services) and the cloud layer (create_coe_cluster, scale). Its known limit is Magnum's too: Cluster.resize
// and Cluster.upgrade send no OpenStack-API-Version, so both answer 406 (a check proves it changes nothing).
import { after, before, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { aptInstall } from '../../support/apt.js';
import { debianOverlay, TRIXIE_CLIENTS, TRIXIE_CLIENTS_BASE, type Overlay } from '../../support/debian-overlay.js';
import { reportChecks, runPythonChecks, type PythonLane } from './python-checks.js';

let overlay: Overlay;
let lane: PythonLane;

before(async () => {
  await aptInstall(TRIXIE_CLIENTS_BASE);
  overlay = await debianOverlay('trixie', TRIXIE_CLIENTS);
  lane = await runPythonChecks(fileURLToPath(new URL('./openstacksdk-current-checks.py', import.meta.url)), { pythonPath: overlay.pythonPath });
});
after(async () => {
  await lane?.close();
});

const EXPECTED = [
  'resource layer: cluster_templates, two pages of one',
  'resource layer: create_cluster_template',
  'resource layer: find_cluster_template by name',
  'resource layer: update_cluster_template: by id or fetched 400, listed ok',
  'resource layer: create_cluster, 1+1, to CREATE_COMPLETE',
  'resource layer: find_cluster by name, clusters lists it',
  'resource layer: get_cluster_certificate and create_cluster_certificate',
  'resource layer: services (admin)',
  'resource layer: resize and upgrade send no microversion: 406',
  'cloud layer: update_coe_cluster scales to 2 workers',
  'resource layer: delete_cluster and wait_for_delete',
  'cloud layer: create_coe_cluster, 1+1, to CREATE_COMPLETE',
  'cloud layer: delete_coe_cluster, then delete_cluster_template',
];

/** The 406 and 400s the checks ask for, and the 404s find-by-name and wait_for_delete read on their way. */
const expectedFailure = (e: { method: string; url: string; status: number; requestBody: string }) =>
  (e.status === 406 && e.method === 'POST' && /\/actions\/(resize|upgrade)$/.test(e.url)) ||
  (e.status === 400 && e.method === 'PATCH' && /"op": ?"move"|"path": ?"\/id"/.test(e.requestBody)) ||
  (e.status === 404 && e.method === 'GET');

test('openstacksdk 4.x (Debian trixie) against the service', { timeout: 600_000 }, async (t: TestContext) => {
  t.diagnostic(`from trixie: ${Object.entries(overlay.versions).map(([p, v]) => `${p} ${v}`).join(', ')}`);
  await reportChecks(t, lane, EXPECTED, expectedFailure);
});
