// Issue 26 item 6: the template's proxy lands in containerd's systemd drop-in escaped for it: a '%' (a proxy
// password's escape) is a systemd specifier unless doubled, a '\' or '"' would end or bend the quoted value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerdProxy, systemdQuoted } from '../../../src/bootstrap/user-data/host.js';
import { parseClusterSpec } from '../../../src/cluster-spec/parse.js';

const input = (template: Record<string, string>) => ({
  template: { coe: 'kubernetes', network_driver: 'calico', master_lb_enabled: true, floating_ip_enabled: true, ...template },
  cluster: { uuid: '5d12f6fd-a196-4bf0-ae4c-1f639a523a52', name: 'k1', project_id: '4c2a3b1e9f8d47a6b5c4d3e2f1a09b8c', master_count: 3, node_count: 2 },
  labels: {},
});

test('the proxy in the drop-in: "%" doubled, the rest as given', () => {
  const { spec } = parseClusterSpec(input({ http_proxy: 'http://user:p%40ss%25@proxy.example.org:3128', https_proxy: 'http://proxy.example.org:3128', no_proxy: 'a.example.org' }));
  const dropIn = containerdProxy(spec, '10.0.0.10')!;
  assert.match(dropIn, /^Environment="HTTP_PROXY=http:\/\/user:p%%40ss%%25@proxy\.example\.org:3128"$/m);
  assert.match(dropIn, /^Environment="HTTPS_PROXY=http:\/\/proxy\.example\.org:3128"$/m);
  assert.match(dropIn, /^Environment="NO_PROXY=a\.example\.org,localhost,127\.0\.0\.1,10\.0\.0\.10,/m);
  // Every '%' left is the first of a pair: no specifier survives.
  for (const line of dropIn.split('\n')) assert.doesNotMatch(line.replace(/%%/g, ''), /%/, line);
});

test('systemdQuoted: specifiers, backslashes and quotes', () => {
  assert.equal(systemdQuoted('a%hb'), 'a%%hb');
  assert.equal(systemdQuoted('a"b\\c'), 'a\\"b\\\\c');
});
