// What a cluster delete takes as made by the cluster's cloud provider: the descriptions
// cloud-provider-openstack gives its floating IPs (OCCM for Services, octavia-ingress-controller for
// Ingresses, --cluster-name = the cluster uuid), and nothing of another cluster or of the project's own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { occmFloatingIp } from '../../../workers/cluster/floating-ips.js';

const mine = '3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e42';
const other = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

test('floating IPs: those OCCM and the ingress controller made for the cluster, no one else\'s', () => {
  const cases: [string, boolean][] = [
    [`Floating IP for Kubernetes external service default/web from cluster ${mine}`, true],
    [`Floating IP for Kubernetes ingress shop in namespace prod from cluster ${mine}`, true],
    [`Floating IP for Kubernetes external service default/web from cluster ${other}`, false],
    ['Floating IP for my bastion', false],
  ];
  for (const [description, ours] of cases) assert.equal(occmFloatingIp(mine).test(description), ours, description);
});
