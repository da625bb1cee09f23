// A template's label warnings: what a cluster made from it as it stands would be told, and a value that such a
// create would refuse as a warning too (Magnum accepts any labels on a template).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { templateLabelWarnings } from '../../src/cluster-spec/template-warnings.js';

const template = (labels: Record<string, string> | null, more: Record<string, unknown> = {}) => ({ coe: 'kubernetes', network_driver: 'calico', master_lb_enabled: false, labels, ...more });

test('a template\'s labels warn as a cluster\'s would', () => {
  assert.deepEqual(templateLabelWarnings(template(null)), []);
  assert.deepEqual(templateLabelWarnings(template({ kube_tag: 'v1.36.1', monitoring_enabled: 'true' })), []);
  assert.deepEqual(templateLabelWarnings(template({ banana: '1', flannel_backend: 'vxlan' })), [
    'Label banana is unknown; it is kept and ignored.',
    'Label flannel_backend is ignored with network_driver=calico.',
  ]);
});

test('a value a cluster create would refuse is one warning: the 400\'s text and what it means for the template', () => {
  assert.deepEqual(templateLabelWarnings(template({ kube_tag: 'v1.20.0' })), [
    "Invalid input for label kube_tag. Value: 'v1.20.0'. Kubernetes 1.20 is not supported; supported minors are 1.34, 1.35, 1.36. A cluster create from this template is refused until it changes.",
  ]);
  const [w] = templateLabelWarnings(template({}, { network_driver: 'weave' }));
  assert.match(w!, /^Network driver type weave is not supported.* A cluster create from this template is refused until it changes\.$/);
});

test('a template of another COE, or without one, has no label warnings', () => {
  assert.deepEqual(templateLabelWarnings({ coe: 'swarm', labels: { kube_tag: 'banana' } }), []);
  assert.deepEqual(templateLabelWarnings({ labels: { kube_tag: 'banana' } }), []);
});
