// What a cluster delete takes as made by the cluster's cloud provider (workers/cluster/lb-purge.ts): the
// descriptions cloud-provider-openstack gives its load balancers (OCCM for Services, octavia-ingress-controller for
// Ingresses, --cluster-name = the cluster uuid), and nothing of another cluster or of the project's own. The purge
// itself against the simulated Octavia and Neutron: test/workers/cluster/api-lb.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { occmLoadBalancer } from '../../../workers/cluster/lb-purge.js';

const mine = '3f0d9c1e-7a51-4a8e-9b55-2f6a9d1c0e42';
const other = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

test('load balancers: Services and Ingresses of the cluster (also once the ingress controller added its version), no one else\'s', () => {
  const cases: [string, boolean][] = [
    [`Kubernetes external service default/web from cluster ${mine}`, true],
    [`Kubernetes ingress shop in namespace prod from cluster ${mine}`, true],
    [`Kubernetes Ingress shop in namespace prod from cluster ${mine}, version: 48213`, true],
    [`Kubernetes external service default/web from cluster ${other}`, false],
    [`Kubernetes Ingress shop in namespace prod from cluster ${other}, version: 7`, false],
    [`Kubernetes external service default/web from cluster ${mine}-copy`, false],
    [`Magnum cluster ${mine}`, false],
    ['my own load balancer', false],
  ];
  for (const [description, ours] of cases) assert.equal(occmLoadBalancer(mine).test(description), ours, description);
});
