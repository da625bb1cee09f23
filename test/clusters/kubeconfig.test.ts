// Issue 26 item 2: the identity kubeconfig. Its user runs client-keystone-auth (client-go's exec plugin of
// cloud-provider-openstack) with the caller's Keystone identity; no certificate, key, token or password is in it,
// only the cluster's CA certificate; readers of the project may have it, others not; a cluster without
// k8s-keystone-auth answers 409.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import { identityKubeconfigYaml, runsKeystoneAuth } from '../../src/clusters/kubeconfig.js';
import { insertCluster } from '../support/cluster-fixture.js';
import { testApp, type TestApp } from '../support/app.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

describe('the document', () => {
  test('one cluster with its CA, one user running client-keystone-auth with the caller\'s names, one context', () => {
    const doc = parse(identityKubeconfigYaml({ name: 'k1', api_address: 'https://203.0.113.10:6443' }, CA, { keystoneUrl: 'https://keystone.example.org/v3', userName: 'alice', userDomainName: 'Default', projectName: 'demo' }));
    assert.deepEqual(doc.clusters, [{ name: 'k1', cluster: { server: 'https://203.0.113.10:6443', 'certificate-authority-data': Buffer.from(`${CA}\n`).toString('base64') } }]);
    assert.equal(doc.users[0].name, 'alice@k1');
    const exec = doc.users[0].user.exec;
    assert.equal(exec.apiVersion, 'client.authentication.k8s.io/v1beta1');
    assert.equal(exec.command, 'client-keystone-auth');
    assert.deepEqual(exec.args, ['--keystone-url=https://keystone.example.org/v3', '--domain-name=Default', '--user-name=alice', '--project-name=demo']);
    assert.equal(exec.interactiveMode, 'IfAvailable');
    assert.deepEqual(Object.keys(doc.users[0].user), ['exec'], 'no client certificate, key or token');
    assert.deepEqual(doc.contexts, [{ name: 'k1', context: { cluster: 'k1', user: 'alice@k1' } }]);
    assert.equal(doc['current-context'], 'k1');
  });

  test('keystone_auth_enabled: on unless the label says false', () => {
    assert.equal(runsKeystoneAuth({ labels: {} }), true);
    assert.equal(runsKeystoneAuth({ labels: { keystone_auth_enabled: 'false' } }), false);
    assert.equal(runsKeystoneAuth({ labels: { keystone_auth_enabled: 'True' } }), true);
  });
});

describe('GET /v1/clusters/{cluster}/kubeconfig', () => {
  let t: TestApp;
  let ids: { user: string; project: string };
  before(async () => {
    t = await testApp();
    ids = { user: t.keystone.state.userId('demo'), project: t.keystone.state.projectId('demo') };
  });
  after(() => t.close());
  const get = (user: 'demo' | 'demo-reader' | 'other', ident: string) => t.as(user, { method: 'GET', url: `/v1/clusters/${ident}/kubeconfig` });

  test('members and readers of the project get it, naming themselves; another project does not see the cluster', async () => {
    const { cluster, pki } = await insertCluster(t.app, { user: ids.user, project: ids.project, name: 'idk' });
    for (const [user, name] of [['demo', 'demo'], ['demo-reader', 'demo-reader']] as const) {
      const r = await get(user, cluster.uuid);
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.headers['cache-control'], 'no-store');
      const body = r.json();
      assert.deepEqual([body.cluster_uuid, body.kind, body.expires_at], [cluster.uuid, 'identity', null]);
      const doc = parse(body.kubeconfig);
      assert.equal(Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString().trim(), pki!.ca.cert.trim());
      assert.equal(doc.clusters[0].cluster.server, cluster.api_address);
      const args: string[] = doc.users[0].user.exec.args;
      assert.ok(args.includes(`--user-name=${name}`), args.join(' '));
      assert.ok(args.includes('--project-name=demo'), args.join(' '));
      assert.match(args[0]!, /^--keystone-url=http:\/\/127\.0\.0\.1:\d+\/v3$/);
      assert.deepEqual(Object.keys(doc.users[0].user), ['exec'], 'no client certificate, key or token');
      assert.equal(doc.users[0].user.exec.env, undefined, 'no password or credential in the environment it sets');
      assert.doesNotMatch(body.kubeconfig, /PRIVATE KEY/);
    }
    assert.equal((await get('other', cluster.uuid)).statusCode, 404);
  });

  test('without k8s-keystone-auth, or before the cluster has an API address: 409', async () => {
    const off = await insertCluster(t.app, { user: ids.user, project: ids.project, name: 'no-ka', template: { labels: { kube_tag: 'v1.35.2', keystone_auth_enabled: 'false' } } });
    const r = await get('demo', off.cluster.uuid);
    assert.equal(r.statusCode, 409, r.body);
    assert.equal(r.json().errors[0].detail, 'Cluster no-ka does not run k8s-keystone-auth (label keystone_auth_enabled=false): Keystone identities cannot sign in to it; use a certificate (openstack coe cluster config).');
    const building = await insertCluster(t.app, { user: ids.user, project: ids.project, name: `b-${randomUUID().slice(0, 6)}`, status: 'CREATE_IN_PROGRESS' });
    await t.app.services.db.query('UPDATE cluster SET api_address = NULL WHERE uuid = $1', [building.cluster.uuid]);
    assert.equal((await get('demo', building.cluster.uuid)).statusCode, 409);
  });
});
