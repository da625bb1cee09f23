// Issue 26 item 6: http_proxy and https_proxy are proxy URLs, no_proxy a list of hosts, domains, addresses and
// CIDRs; anything else is Magnum's 400 naming the field, at template create and update and at cluster create.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/domain/errors.js';
import { ClusterTemplateEntity } from '../../src/db/entities/cluster-template.js';
import { parseClusterSpec } from '../../src/cluster-spec/parse.js';
import { checkProxies, noProxyProblem, proxyUrlProblem } from '../../src/cluster-spec/proxy.js';
import { testApp, type TestApp } from '../support/app.js';

/** A cluster's parse input with the template's fields given (the spec fixtures' shape, kept here). */
const input = (template: Record<string, string>) => ({
  template: { coe: 'kubernetes', network_driver: 'calico', master_lb_enabled: true, floating_ip_enabled: true, ...template },
  cluster: { uuid: '5d12f6fd-a196-4bf0-ae4c-1f639a523a52', name: 'k1', project_id: '4c2a3b1e9f8d47a6b5c4d3e2f1a09b8c', master_count: 3, node_count: 2 },
  labels: {},
});

describe('the rules', () => {
  test('proxy URLs: http, https or socks5 to a host, credentials percent-encoded, nothing after the port', () => {
    for (const ok of ['http://proxy.example.org:3128', 'https://10.0.0.1:8443/', 'http://user:p%40ss@proxy:3128', 'http://user:p$w@proxy:3128', 'socks5h://[fd00::1]:1080', 'http://proxy']) {
      assert.equal(proxyUrlProblem(ok), undefined, ok);
    }
    for (const bad of ['proxy.example.org:3128', 'ftp://proxy:21', 'http://', 'http://proxy:3128/path', 'http://proxy:3128?x=1', 'http://proxy:3128#f', 'http://pro xy:3128',
      'http://proxy:3128"', "http://proxy:3128'", 'http://proxy:3128\\', 'http://proxy:3128\n', 'http://u:50%@proxy', 'http://proxy:3128%0a', '%h.example.org', 'javascript:alert(1)']) {
      assert.ok(proxyUrlProblem(bad), bad);
    }
  });

  test('no_proxy: host names, .domains, addresses, CIDRs, each maybe with a port, or *', () => {
    for (const ok of ['localhost,127.0.0.1,.svc,.cluster.local', '10.0.0.0/8,172.16.0.0/12,fd00::/8', 'registry.example.org:5000,[fd00::5]:443', '*', '*.example.org', 'a,,b', '']) {
      assert.equal(noProxyProblem(ok), undefined, ok);
    }
    for (const bad of ['a b', 'a;b', 'host%', 'host"', "h'", 'a\\b', 'exa_mple.org', '10.0.0.0/33', 'h:99999', '-bad.example', 'a..b', '$(id)', 'a\u202eb']) {
      assert.ok(noProxyProblem(bad), bad);
    }
  });

  test('checkProxies names the field and echoes the value in Magnum’s words', () => {
    assert.throws(() => checkProxies({ http_proxy: 'http://ok:3128', no_proxy: 'a b' }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.status, 400);
      assert.match(e.message, /^Invalid input for field\/attribute no_proxy\. Value: 'a b'\. /);
      return true;
    });
  });

  test('a cluster’s spec with a template that bypassed the check (an older row) is refused too', () => {
    assert.throws(() => parseClusterSpec(input({ http_proxy: 'http://proxy:3128/%h' })), /http_proxy/);
    assert.throws(() => parseClusterSpec(input({ http_proxy: 'http://proxy:3128', no_proxy: 'x;reboot' })), /no_proxy/);
  });
});

describe('through the API', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  const body = { name: 'proxied', coe: 'kubernetes', image_id: 'ubuntu-24.04', external_network_id: 'public' };

  test('a template with a bad proxy is a 400 naming the field, nothing stored; good ones are stored as given', async () => {
    for (const [field, value] of [['http_proxy', 'proxy:3128'], ['https_proxy', 'http://p:3128/%i'], ['no_proxy', 'a.example.org b.example.org']] as const) {
      const r = await t.as('admin', { method: 'POST', url: '/v1/clustertemplates', payload: { ...body, [field]: value } });
      assert.equal(r.statusCode, 400, r.body);
      assert.match(r.json().errors[0].detail, new RegExp(`^Invalid input for field/attribute ${field}\\. `));
    }
    assert.equal(await t.app.services.db.getRepository(ClusterTemplateEntity).countBy({ name: 'proxied' }), 0);
    const good = { http_proxy: 'http://user:p%25w@proxy.example.org:3128', https_proxy: 'http://proxy.example.org:3128', no_proxy: '10.0.0.0/8,.example.org,localhost' };
    const r = await t.as('admin', { method: 'POST', url: '/v1/clustertemplates', payload: { ...body, ...good } });
    assert.equal(r.statusCode, 201, r.body);
    assert.deepEqual([r.json().http_proxy, r.json().https_proxy, r.json().no_proxy], Object.values(good));
    const patched = await t.as('admin', { method: 'PATCH', url: `/v1/clustertemplates/${r.json().uuid}`, payload: [{ op: 'replace', path: '/no_proxy', value: 'a;b' }] });
    assert.equal(patched.statusCode, 400, patched.body);
    assert.match(patched.json().errors[0].detail, /^Invalid input for field\/attribute no_proxy\. Value: 'a;b'\./);
  });
});
