// Labels accepted but ignored, deprecated or unknown reach the user: a `Warning: 299 - "..."` header per
// label on template create and update and on cluster create (the bodies stay Magnum's), and a warning
// event per label in the cluster's timeline at create.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { warningValue } from '../../src/api/warnings.js';
import { testApp, type TestApp } from '../support/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

/** The texts of a response's Warning headers. */
function warnings(headers: Record<string, unknown>): string[] {
  const raw = headers.warning;
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : String(raw).split(/, (?=299 )/);
  return values.map((v: string) => {
    const m = /^299 - "(.*)"$/.exec(v);
    assert.ok(m, `a 299 warning: ${v}`);
    return m[1]!.replace(/\\(.)/g, '$1');
  });
}

test('a Warning header value is a quoted, escaped, ASCII warn-text', () => {
  assert.equal(warningValue('Label a is "odd" \\ here → there'), '299 - "Label a is \\"odd\\" \\\\ here -> there"');
  assert.equal(warningValue('ünïcode'), '299 - "?n?code"');
});

test('template create and update: one Warning per label the parser warns of; none for clean labels; the body is Magnum’s', async () => {
  const labels = { kube_tag: 'v1.35.1', etcd_tag: '3.5.0', made_up: 'yes', prometheus_tag: 'v3.0.0' };
  const res = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'warned', coe: 'kubernetes', image_id: 'img', labels } });
  assert.equal(res.statusCode, 201, res.body);
  const got = warnings(res.headers);
  assert.deepEqual(got.length, 3, got.join(' | '));
  assert.ok(got.some((w) => /^Label etcd_tag is not supported and is ignored: /.test(w)));
  assert.ok(got.some((w) => w === 'Label made_up is unknown; it is kept and ignored.'));
  assert.ok(got.some((w) => /prometheus_tag is ignored without monitoring_enabled=true/.test(w)));
  assert.equal(res.json().labels.made_up, 'yes', 'kept on the template');
  assert.equal(Object.keys(res.json()).includes('warnings'), false, 'no new field in the body');

  const uuid = res.json().uuid as string;
  const clean = await t.as('demo', { method: 'PATCH', url: `/v1/clustertemplates/${uuid}`, payload: ['etcd_tag', 'made_up', 'prometheus_tag'].map((k) => ({ op: 'remove', path: `/labels/${k}` })) });
  assert.equal(clean.statusCode, 200, clean.body);
  assert.equal(clean.headers.warning, undefined);
  const bad = await t.as('demo', { method: 'PATCH', url: `/v1/clustertemplates/${uuid}`, payload: [{ op: 'replace', path: '/labels/kube_tag', value: 'v1.99.0' }] });
  assert.equal(bad.statusCode, 200, 'Magnum accepts any template labels');
  assert.match(warnings(bad.headers)[0]!, /^Invalid input for label kube_tag\. .* A cluster create from this template is refused until it changes\.$/);
});

test('cluster create: the same warnings in a header and as warning events of the timeline', async () => {
  const tpl = await t.as('demo', { method: 'POST', url: '/v1/clustertemplates', payload: { name: 'plain', coe: 'kubernetes', image_id: 'img', labels: { kube_tag: 'v1.35.1' } } });
  const res = await t.as('demo', {
    method: 'POST',
    url: '/v1/clusters',
    payload: { cluster_template_id: tpl.json().uuid, name: 'warned', labels: { kube_tag: 'v1.35.1', heapster_enabled: 'true', not_a_label: '1' }, merge_labels: true },
  });
  assert.equal(res.statusCode, 202, res.body);
  assert.deepEqual(Object.keys(res.json()), ['uuid']);
  const got = warnings(res.headers);
  assert.equal(got.length, 2, got.join(' | '));
  const events = (await t.as('demo', { method: 'GET', url: `/v1/clusters/${res.json().uuid}/events` })).json().events as { reason: string; message: string; severity: string }[];
  const shown = events.filter((e) => e.reason === 'LabelWarning');
  assert.deepEqual(shown.map((e) => e.message).sort(), [...got].sort());
  assert.ok(shown.every((e) => e.severity === 'warning'));
  const quiet = await t.as('demo', { method: 'POST', url: '/v1/clusters', payload: { cluster_template_id: tpl.json().uuid, name: 'quiet' } });
  assert.equal(quiet.headers.warning, undefined);
});
