// Label value types: what each accepts, what it reads a value as, and the reason it gives for what it refuses
// (the text of the 400 naming the label).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bool, cidr, cidrList, dnsZone, imageTag, int, label, oneOf, registryPrefix, text } from '../../../src/cluster-spec/labels/types.js';

test('bool: oslo\'s strict spellings, in any case, blanks around', () => {
  for (const v of ['1', 't', 'TRUE', ' on ', 'y', 'Yes']) assert.equal(bool.parse(v), true, v);
  for (const v of ['0', 'f', 'False', 'off', 'n', 'NO']) assert.equal(bool.parse(v), false, v);
  for (const v of ['', 'maybe', '2', 'ja']) assert.throws(() => bool.parse(v), /^Error: Expected a boolean \('true' or 'false'\)\.$/, v);
  assert.equal(bool.accepts, 'true|false');
});

test('oneOf: exact by default, any case when asked (giving back the canonical spelling)', () => {
  const exact = oneOf(['Always', 'Never']);
  assert.equal(exact.parse(' Always '), 'Always');
  assert.throws(() => exact.parse('always'), /^Error: Expected one of: Always, Never\.$/);
  assert.equal(oneOf(['ROUND_ROBIN', 'SOURCE_IP'], { caseInsensitive: true }).parse('round_robin'), 'ROUND_ROBIN');
  assert.equal(exact.accepts, 'Always|Never');
});

test('int: whole numbers within the bounds', () => {
  const t = int(16, 28);
  assert.deepEqual([t.parse('16'), t.parse(' 28 ')], [16, 28]);
  for (const v of ['15', '29', '20.5', '1e1', '', 'x']) assert.throws(() => t.parse(v), /^Error: Expected an integer between 16 and 28\.$/, v);
  assert.equal(int(-5, 5).parse('-5'), -5);
  assert.equal(t.accepts, 'integer 16..28');
});

test('cidr and cidrList: each item\'s reason names the item; an empty list is no CIDR', () => {
  assert.equal(cidr.parse('10.0.0.0/8').text, '10.0.0.0/8');
  assert.deepEqual(cidrList.parse(' 192.0.2.0/24 ,, 198.51.100.0/24').map((c) => c.text), ['192.0.2.0/24', '198.51.100.0/24']);
  assert.deepEqual(cidrList.parse(''), []);
  assert.throws(() => cidrList.parse('192.0.2.0/24,192.0.2.1/24'), /^Error: '192\.0\.2\.1\/24': Host bits are set/);
});

test('imageTag: the OCI tag grammar', () => {
  for (const v of ['v1.35.0', '3.10.1', 'v1.8.0-flannel1', '_x', 'a'.repeat(128)]) assert.equal(imageTag.parse(v), v);
  for (const v of ['', '-x', '.x', 'a:b', 'a/b', 'a'.repeat(129)]) assert.throws(() => imageTag.parse(v), /Expected a container image tag/, v);
});

test('registryPrefix: a registry host (and port) with a path, lower case, its trailing slashes dropped', () => {
  assert.equal(registryPrefix.parse('registry.example.org:5000/k8s/upstream//'), 'registry.example.org:5000/k8s/upstream');
  assert.equal(registryPrefix.parse('mirror'), 'mirror');
  assert.equal(registryPrefix.parse(' / '), '');
  for (const v of ['https://mirror.example.org', 'Mirror.example.org', 'mirror.example.org/a b', '-mirror.org', 'mirror.org:123456']) {
    assert.throws(() => registryPrefix.parse(v), /registry prefix like registry\.example\.org\/k8s\//, v);
  }
});

test('dnsZone: Designate\'s form (lower case, trailing dot), two labels at least', () => {
  assert.equal(dnsZone.parse(' Apps.Example.ORG '), 'apps.example.org.');
  assert.equal(dnsZone.parse('apps.example.org.'), 'apps.example.org.');
  for (const v of ['localhost', 'no zone', 'a..b', '-a.org', `${'a'.repeat(64)}.org`, 'a_b.org', '']) assert.throws(() => dnsZone.parse(v), /Expected a DNS zone name/, v);
});

test('text: trimmed, without control characters', () => {
  assert.equal(text.parse('  fast ssd '), 'fast ssd');
  for (const v of ['a\nb', 'a\tb', 'a\u007fb', 'a\u0000b']) assert.throws(() => text.parse(v), /Control characters are not allowed/, JSON.stringify(v));
});

test('label(): a declaration with its doc, and when it is ignored or deprecated', () => {
  assert.deepEqual(label(bool, 'A switch.'), { type: bool, doc: 'A switch.' });
  assert.deepEqual(label(bool, 'Old.', { deprecated: 'use new.' }), { type: bool, doc: 'Old.', deprecated: 'use new.' });
  assert.deepEqual(label(bool, 'Tuning.', { ignored: 'without x=true' }).ignored, 'without x=true');
});
