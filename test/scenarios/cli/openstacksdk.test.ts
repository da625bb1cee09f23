// openstacksdk, as Debian bookworm ships it (python3-openstacksdk 0.101, Zed), against the service and the
// simulator: test/scenarios/cli/openstacksdk-checks.py reports one result per check (the cloud layer's COE
// calls: templates, a 1+1 cluster to CREATE_COMPLETE, a scale, the CA and a signed certificate, services,
// deletes; and the service proxy, which is all 0.101 has for Magnum: no resource classes). The next
// release's SDK (4.x, with the resource layer) has its own lane: openstacksdk-current.test.ts.
import { after, before, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { aptInstall } from '../../support/apt.js';
import { installedVersion } from '../../support/horizon-static.js';
import { reportChecks, runPythonChecks, type PythonLane } from './python-checks.js';

let lane: PythonLane;

before(async () => {
  if (!(await installedVersion('python3-openstacksdk'))) await aptInstall(['python3-openstacksdk']);
  lane = await runPythonChecks(fileURLToPath(new URL('./openstacksdk-checks.py', import.meta.url)));
});
after(async () => {
  await lane?.close();
});

const EXPECTED = [
  'service proxy: endpoint discovery and a paged list',
  'cloud layer: list_coe_cluster_templates',
  'cloud layer: create_coe_cluster_template',
  'cloud layer: get_coe_cluster_template by name',
  'cloud layer: update_coe_cluster_template (replace name)',
  'cloud layer: create_coe_cluster, 1+1, to CREATE_COMPLETE',
  'cloud layer: update_coe_cluster scales to 2 workers',
  'cloud layer: get and sign_coe_cluster_certificate',
  'cloud layer: list_magnum_services (admin)',
  'cloud layer: delete_coe_cluster, gone',
  'cloud layer: delete_coe_cluster_template',
];

test(`openstacksdk (Debian's python3-openstacksdk) against the service`, { timeout: 600_000 }, async (t: TestContext) => {
  t.diagnostic(`python3-openstacksdk ${await installedVersion('python3-openstacksdk')}`);
  await reportChecks(t, lane, EXPECTED);
});
