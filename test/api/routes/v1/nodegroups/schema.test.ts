// Issue 26 item 6: node group names follow the rule cluster names follow (a letter, then letters, digits, '_',
// '.' and '-'): RTL overrides, zero-width characters, spaces, ';', '/' and '../' are refused in Magnum's envelope,
// nothing is written; the names the rule allows are created.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { NodeGroupEntity } from '../../../../../src/db/entities/nodegroup.js';
import { testApp, type TestApp } from '../../../../support/app.js';
import { nodegroupCluster } from '../../../../support/nodegroup-fixture.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

test('names outside the cluster name rule are a 400 that writes nothing; names within it are created', async () => {
  const fx = await nodegroupCluster(t, { labels: { kube_tag: 'v1.35.2' } });
  const post = (name: unknown) => t.as('demo', { method: 'POST', url: `/v1/clusters/${fx.cluster.uuid}/nodegroups`, payload: { name } });
  for (const name of ['a b', 'a;b', '../etc', 'np/../x', 'gpu\u202egnp', 'gpu\u200bpool', 'np$(id)', '-pool', '1pool', 'pool\n', '', 'ünï']) {
    const r = await post(name);
    assert.equal(r.statusCode, 400, `${JSON.stringify(name)}: ${r.body}`);
    const e = r.json().errors[0];
    assert.equal(e.code, 'client');
    assert.match(e.detail, /^Invalid input for field\/attribute name\. Value: '.*'\. Value should (match the pattern \^\[a-zA-Z\]\[a-zA-Z0-9_\.-\]\*\$|have a minimum character requirement of 1)$/s, e.detail);
  }
  const names = (await t.app.services.db.getRepository(NodeGroupEntity).findBy({ cluster_id: fx.cluster.uuid })).map((g) => g.name).sort();
  assert.deepEqual(names, ['default-master', 'default-worker'], 'nothing was written');
  for (const name of ['a-b', 'gpu.pool_2', `p${'x'.repeat(254)}`]) {
    const r = await post(name);
    assert.equal(r.statusCode, 202, `${name}: ${r.body}`);
    // One operation at a time: let the next create start.
    await t.app.services.db.query(`UPDATE operation SET state = 'succeeded' WHERE cluster_id = $1`, [fx.cluster.uuid]);
    await t.app.services.db.query(`UPDATE cluster SET status = 'UPDATE_COMPLETE' WHERE uuid = $1`, [fx.cluster.uuid]);
  }
});
