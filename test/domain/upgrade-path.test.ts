// Whether a cluster at one Kubernetes version may move to a template's (src/domain/upgrade-path.ts): never down,
// never the same, never past the next minor, only to a template naming a supported version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareKubeVersions, latestPatch, runningMinor, upgradeVerdict } from '../../src/domain/upgrade-path.js';

test('the upgrade verdict refuses a skipped minor', () => {
  const v = upgradeVerdict('v1.34.1', { kube_tag: 'v1.36.0' });
  assert.equal(v.ok, false);
  assert.match((v as { reason: string }).reason, /skips a minor version: upgrade to 1.35.x first/);
  assert.equal(upgradeVerdict('v1.34.1', { kube_tag: 'v1.35.0' }).ok, true);
  assert.equal(upgradeVerdict('v1.34.1', {}).ok, false);
});

const cases: [string, string | undefined, Record<string, string>, string][] = [
  ['a patch up', 'v1.35.1', { kube_tag: 'v1.35.3' }, 'ok patch v1.35.1 → v1.35.3'],
  ['the next minor', 'v1.35.1', { kube_tag: 'v1.36.0' }, 'ok minor v1.35.1 → v1.36.0'],
  ['down', 'v1.35.1', { kube_tag: 'v1.34.9' }, 'down'],
  ['the same', 'v1.35.1', { kube_tag: 'v1.35.1' }, 'same'],
  ['two minors up', 'v1.34.1', { kube_tag: 'v1.36.0' }, 'skip'],
  ['a template naming no version', 'v1.35.1', { foo: 'bar' }, 'no_version'],
  ['an unsupported tag', 'v1.35.1', { kube_tag: 'v1.20.0' }, 'bad_tag'],
  ['a tag that is no version', 'v1.35.1', { kube_tag: 'banana' }, 'bad_tag'],
];
for (const [name, current, target, want] of cases) {
  test(`upgradeVerdict: ${name} → ${want.split(' ')[0]}`, () => {
    const v = upgradeVerdict(current, target);
    if (v.ok) assert.equal(`ok ${v.kind} ${v.from} → ${v.to}`, want);
    else {
      assert.equal(v.refusal, want);
      assert.ok(v.reason.length > 0);
    }
  });
}

test('compareKubeVersions: numeric by part, with or without the v', () => {
  assert.ok(compareKubeVersions('v1.35.10', 'v1.35.9') > 0);
  assert.ok(compareKubeVersions('1.34.0', 'v1.35.0') < 0);
  assert.equal(compareKubeVersions('v1.35', '1.35.0'), 0);
});

test('latestPatch: the newest template of the running minor the path accepts (ties: the newest template, then by name)', () => {
  const t = (name: string, kube_tag: string, created: number, coe = 'kubernetes') => ({ name, coe, labels: { kube_tag }, created_at: new Date(created) });
  const templates = [t('p4', 'v1.35.4', 1), t('p9-old', 'v1.35.9', 1), t('p9-b', 'v1.35.9', 2), t('p9-a', 'v1.35.9', 2), t('next-minor', 'v1.36.0', 3), t('older', 'v1.35.0', 3), t('bad', 'banana', 3), t('swarm', 'v1.35.12', 3, 'swarm')];
  const best = latestPatch('v1.35.1', templates);
  assert.deepEqual([best?.template.name, best?.from, best?.to], ['p9-a', 'v1.35.1', 'v1.35.9']);
  assert.equal(latestPatch('v1.35.9', templates), undefined, 'already at the latest patch');
  assert.equal(latestPatch('v1.34.2', templates), undefined, 'no 1.34 patch: the next minor is no patch');
  assert.equal(runningMinor('v1.35.1'), '1.35');
  assert.equal(runningMinor('banana'), undefined);
});
