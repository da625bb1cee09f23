// The worker's client of a cluster's Kubernetes API. Against a real HTTPS server on loopback (the cluster CA's
// serving certificate): the paths and verbs of each call, Status errors, routing and the server's identity; and
// against a hostile server (issue 15 hole 8): the cluster is the tenant's, so an answer is bounded in size and in
// total time, and each failure says whether a later attempt may fare better. Then the pure helpers: resource paths,
// Node readiness, which failures retry, and the simulator's routing.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { issueServingCert } from '../../cloudsim/kube/tls.js';
import { cloudsimConnect, isClusterScoped, KUBE_LIMITS, KubeClient, KubeError, nodeReady, resourceOf, resourcePath, type Connect, type KubeEndpoint, type KubeLimits } from '../../src/kube/api-client.js';
import { createCa } from '../../src/pki/ca.js';
import { issueClientCert } from '../../src/pki/client-cert.js';
import { failureOf, isRetryable } from '../../src/steps/errors.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('cluster API client limits', () => {
  let server: Server;
  let handler: Handler = (_req, res) => res.end('{}');
  let client: (limits: Partial<KubeLimits>, over?: Partial<KubeEndpoint>) => KubeClient;
  let port = 0;
  const open = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const clients: KubeClient[] = [];

  before(async () => {
    const ca = await createCa('kubernetes');
    const serving = await issueServingCert(ca, ['127.0.0.1']);
    const id = await issueClientCert(ca, { commonName: 'magnum:worker', organizations: ['system:masters'], minutes: 10 });
    server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
      open.add(res);
      res.on('close', () => open.delete(res));
      handler(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
    client = (limits, over = {}) => {
      const c = new KubeClient({ server: `https://127.0.0.1:${port}`, caCerts: [ca.cert], clientCert: id.cert, clientKey: id.key, limits, ...over });
      clients.push(c);
      return c;
    };
  });
  after(async () => {
    for (const t of timers) clearInterval(t);
    for (const c of clients) c.close();
    for (const r of open) r.destroy();
    await new Promise((r) => server.close(r));
  });

  /** Writes `chunk` every `ms` until the client goes. */
  function drip(res: ServerResponse, chunk: string, ms: number): void {
    const t = setInterval(() => {
      if (res.destroyed) clearInterval(t);
      else res.write(chunk);
    }, ms);
    timers.add(t);
    res.on('close', () => clearInterval(t));
  }

  async function failure(p: Promise<unknown>): Promise<KubeError> {
    try {
      await p;
    } catch (e) {
      assert.ok(e instanceof KubeError, `a KubeError, not ${String(e)}`);
      return e;
    }
    assert.fail('expected a failure');
  }

  test('an endless body is cut at maxResponseBytes: terminal (the same request gets the same answer)', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[');
      drip(res, `${JSON.stringify({ metadata: { name: 'x'.repeat(1000) } })},`, 1);
    };
    const started = Date.now();
    const e = await failure(client({ maxResponseBytes: 256 * 1024 }).listNodes());
    assert.equal(e.reason, 'ResponseTooLarge');
    assert.match(e.message, /exceeds 262144 bytes/);
    assert.ok(Date.now() - started < 5000, 'cut as it streams, not at the end of time');
    assert.equal(e.retryable, false);
    assert.equal(isRetryable(e), false);
    assert.equal(failureOf(e).reason, 'ClusterApiResponseTooLarge');
  });

  test('a declared Content-Length above the cap is refused before reading the body', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.write('{');
    };
    const e = await failure(client({ maxResponseBytes: 1024 * 1024 }).version());
    assert.equal(e.reason, 'ResponseTooLarge');
    assert.match(e.message, /10485760 bytes/);
  });

  test('a slow drip (a byte before every idle timeout) ends at the total timeout: retryable', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      drip(res, ' ', 50);
    };
    const started = Date.now();
    // The idle timeout is 20 drips long, so that a loaded machine's late timers do not end the call by it.
    const e = await failure(client({ timeoutMs: 2500, idleTimeoutMs: 1000 }).listNodes());
    const took = Date.now() - started;
    assert.equal(e.reason, 'Timeout');
    assert.match(e.message, /no complete answer within 2500 ms/);
    assert.ok(took >= 2400 && took < 8000, `ended by the total timeout (${took} ms)`);
    assert.equal(isRetryable(e), true);
    assert.equal(failureOf(e).reason, 'ClusterApiUnavailable');
  });

  test('silence ends at the idle timeout, before the total one: retryable', async () => {
    handler = () => undefined;
    const started = Date.now();
    const e = await failure(client({ timeoutMs: 10_000, idleTimeoutMs: 300 }).version());
    assert.equal(e.reason, 'Timeout');
    assert.match(e.message, /nothing received for 300 ms/);
    assert.ok(Date.now() - started < 5000);
    assert.equal(isRetryable(e), true);
  });

  test('readyz never throws: a hostile answer is just not ready', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      drip(res, 'ok', 1);
    };
    assert.equal(await client({ maxResponseBytes: 1024, timeoutMs: 2000 }).readyz(), false);
  });

  test('status answers: 429 and 5xx retry, 4xx refusals end the step', async () => {
    const answer = (status: number) => {
      handler = (_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: status === 429 ? 'TooManyRequests' : status >= 500 ? 'InternalError' : 'Forbidden', message: 'no', code: status }));
      };
    };
    for (const [status, retry] of [[429, true], [500, true], [503, true], [403, false], [422, false]] as const) {
      answer(status);
      const e = await failure(client({}).listNodes());
      assert.equal(e.status, status);
      assert.equal(isRetryable(e), retry, `${status}`);
      assert.equal(failureOf(e).reason, retry ? 'ClusterApiUnavailable' : 'ClusterApiError');
    }
  });

  test('within the limits, answers arrive whole', async () => {
    const items = Array.from({ length: 200 }, (_, i) => ({ metadata: { name: `n${i}` } }));
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items }));
    };
    const nodes = await client({ maxResponseBytes: 1024 * 1024, timeoutMs: 5000 }).listNodes();
    assert.equal(nodes.length, 200);
  });
  /** Answers every call with `answer` and records what was asked. */
  function recording(answer: (req: IncomingMessage) => [number, unknown]): { method: string; url: string; type?: string; body: string }[] {
    const seen: { method: string; url: string; type?: string; body: string }[] = [];
    handler = (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, ...(req.headers['content-type'] ? { type: req.headers['content-type'] } : {}), body });
        const [status, payload] = answer(req);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      });
    };
    return seen;
  }

  test('calls: the verb, path and content type of each; apply is a forced server-side apply, a namespaced object without one lands in default', async () => {
    const seen = recording(() => [200, { items: [], metadata: { name: 'x' } }]);
    const c = client({});
    await c.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
    await c.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r', namespace: 'ignored' } }, 'magnum-addons');
    await c.list('apps/v1', 'Deployment', 'kube-system', 'app=x,tier in (a)');
    await c.podsOn('node-1');
    await c.cordon('node-1');
    await c.mergePatch('apps/v1', 'Deployment', 'kube-system', 'coredns', { spec: { replicas: 2 } });
    await c.evict('default', 'web-0');
    assert.deepEqual(seen.map((r) => `${r.method} ${r.url} ${r.type ?? ''}`), [
      'PATCH /api/v1/namespaces/default/configmaps/cm?fieldManager=magnum&force=true application/apply-patch+yaml',
      'PATCH /apis/rbac.authorization.k8s.io/v1/clusterroles/r?fieldManager=magnum-addons&force=true application/apply-patch+yaml',
      'GET /apis/apps/v1/namespaces/kube-system/deployments?labelSelector=app%3Dx%2Ctier+in+%28a%29 ',
      'GET /api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1 ',
      'PATCH /api/v1/nodes/node-1 application/strategic-merge-patch+json',
      'PATCH /apis/apps/v1/namespaces/kube-system/deployments/coredns application/merge-patch+json',
      'POST /api/v1/namespaces/default/pods/web-0/eviction application/json',
    ]);
    assert.deepEqual(JSON.parse(seen[4]!.body), { spec: { unschedulable: true } });
    assert.deepEqual(JSON.parse(seen[6]!.body), { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'web-0', namespace: 'default' } });
  });

  test('gone objects: get and mergePatch give undefined, delete false, evict nothing; other refusals are KubeErrors with the Status\' reason and causes', async () => {
    const status = (code: number, reason: string) => ({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message: `it is ${reason}`, code, details: { causes: [{ reason: 'FieldValueInvalid', field: 'spec.x' }] } });
    recording((req) => (req.method === 'DELETE' && req.url!.endsWith('/here') ? [200, {}] : req.url!.includes('forbidden') ? [403, status(403, 'Forbidden')] : [404, status(404, 'NotFound')]));
    const c = client({});
    assert.equal(await c.get('v1', 'Secret', 'kube-system', 'missing'), undefined);
    assert.equal(await c.getNode('missing'), undefined);
    assert.equal(await c.mergePatch('v1', 'Node', undefined, 'missing', {}), undefined);
    assert.equal(await c.delete('v1', 'ConfigMap', 'default', 'missing'), false);
    assert.equal(await c.deleteNode('here'), true);
    await c.evict('default', 'gone');
    const e = await failure(c.get('v1', 'Secret', 'kube-system', 'forbidden'));
    assert.deepEqual([e.status, e.reason, e.message, e.causes], [403, 'Forbidden', 'GET /api/v1/namespaces/kube-system/secrets/forbidden: it is Forbidden', [{ reason: 'FieldValueInvalid', field: 'spec.x' }]]);
  });

  test('an error that is not a Status: HTTP<code> as reason, the start of the body as message; readyz true only for ok', async () => {
    recording((req) => (req.url === '/readyz' ? [200, 'ok\n'] : [502, '<html>bad gateway</html>']));
    const c = client({});
    const e = await failure(c.version());
    assert.deepEqual([e.status, e.reason, e.message, e.retryable], [502, 'HTTP502', 'GET /version: <html>bad gateway</html>', true]);
    assert.equal(await c.readyz(), true);
  });

  test('routing: connect decides where the connection goes; nowhere and a failed routing are Unreachable (retryable), a slow one times out', async () => {
    recording(() => [200, { major: '1', minor: '35', gitVersion: 'v1.35.5' }]);
    const routed: string[] = [];
    const via: Connect = async (host, p) => (routed.push(`${host}:${p}`), { host: '127.0.0.1', port });
    assert.equal((await client({}, { server: 'https://127.0.0.1:6443', connect: via }).version()).gitVersion, 'v1.35.5');
    assert.deepEqual(routed, ['127.0.0.1:6443']);
    const nowhere = await failure(client({}, { connect: async () => undefined }).version());
    assert.deepEqual([nowhere.reason, nowhere.retryable], ['Unreachable', true]);
    assert.match(nowhere.message, /is not reachable/);
    const broken = await failure(client({}, { connect: async () => { throw new Error('admin API down'); } }).version());
    assert.match(broken.message, /routing to https:\/\/127\.0\.0\.1:\d+ failed: admin API down/);
    const slow = await failure(client({ timeoutMs: 300 }, { connect: () => new Promise(() => undefined) }).version());
    assert.deepEqual([slow.reason, slow.retryable], ['Timeout', true]);
  });

  test('the server\'s identity is checked against the host of `server`, wherever connect routes', async () => {
    recording(() => [200, {}]);
    // The serving certificate names 127.0.0.1 only: a server called localhost routed to it is not who it says.
    const e = await failure(client({}, { server: `https://localhost:${port}`, connect: async () => ({ host: '127.0.0.1', port }) }).version());
    assert.equal(e.reason, 'Unreachable');
    assert.match(e.message, /localhost|altnames|Hostname/i);
  });
});

test('resourceOf: the plural resource of a kind, its irregular ones spelled out', () => {
  const cases: [string, string][] = [
    ['Pod', 'pods'], ['Endpoints', 'endpoints'], ['Ingress', 'ingresses'], ['NetworkPolicy', 'networkpolicies'], ['StorageClass', 'storageclasses'],
    ['PriorityClass', 'priorityclasses'], ['IngressClass', 'ingressclasses'], ['TigeraStatus', 'tigerastatuses'], ['IPPool', 'ippools'],
    ['ValidatingAdmissionPolicy', 'validatingadmissionpolicies'], ['Gateway', 'gateways'], ['Mesh', 'meshes'], ['Box', 'boxes'], ['Key', 'keys'], ['APIService', 'apiservices'],
  ];
  for (const [kind, resource] of cases) assert.equal(resourceOf(kind), resource, kind);
});

test('resourcePath: core or grouped API, namespaced unless the kind is cluster-scoped, names escaped', () => {
  assert.equal(resourcePath('v1', 'Pod', 'kube-system'), '/api/v1/namespaces/kube-system/pods');
  assert.equal(resourcePath('v1', 'Pod', undefined), '/api/v1/pods');
  assert.equal(resourcePath('apps/v1', 'DaemonSet', 'kube-system', 'node-exporter'), '/apis/apps/v1/namespaces/kube-system/daemonsets/node-exporter');
  assert.equal(resourcePath('v1', 'Namespace', 'ignored', 'monitoring'), '/api/v1/namespaces/monitoring');
  assert.equal(resourcePath('operator.tigera.io/v1', 'Installation', 'x', 'default'), '/apis/operator.tigera.io/v1/installations/default');
  assert.equal(resourcePath('v1', 'ConfigMap', 'a b', 'c/d'), '/api/v1/namespaces/a%20b/configmaps/c%2Fd');
  assert.ok(isClusterScoped('StorageClass') && isClusterScoped('CSIDriver') && !isClusterScoped('Secret'));
});

test('nodeReady: a Ready condition that is True, nothing else', () => {
  assert.equal(nodeReady({ metadata: { name: 'n' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } }), true);
  assert.equal(nodeReady({ metadata: { name: 'n' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }, { type: 'MemoryPressure', status: 'True' }] } }), false);
  assert.equal(nodeReady({ metadata: { name: 'n' } }), false);
});

test('KubeError.retryable: no answer, 408, 429 and 5xx but 501; never an answer too large', () => {
  const retryable = (status: number, reason = 'x') => new KubeError(status, reason, 'm').retryable;
  assert.deepEqual([0, 408, 429, 500, 502, 503, 504].map((s) => retryable(s)), [true, true, true, true, true, true, true]);
  assert.deepEqual([400, 401, 403, 404, 409, 422, 501].map((s) => retryable(s)), [false, false, false, false, false, false, false]);
  assert.equal(retryable(0, 'ResponseTooLarge'), false);
  assert.equal(retryable(503, 'ResponseTooLarge'), false);
  const e = new KubeError(404, 'NotFound', 'gone');
  assert.deepEqual([e.name, e.causes, e instanceof Error], ['KubeError', [], true]);
  assert.deepEqual(KUBE_LIMITS, { timeoutMs: 30_000, idleTimeoutMs: 10_000, maxResponseBytes: 64 * 1024 * 1024 });
});

test('cloudsimConnect: the simulator\'s answer for an address, kept briefly; 404 or a malformed answer is nowhere (not kept); other failures thrown', async () => {
  const asked: string[] = [];
  let answer: () => Promise<unknown> = async () => ({ host: '127.0.0.1', port: 40001 });
  const connect = cloudsimConnect(async (path) => (asked.push(path), answer()), 50);
  assert.deepEqual(await connect('10.0.0.10', 6443), { host: '127.0.0.1', port: 40001 });
  assert.deepEqual(await connect('10.0.0.10', 6443), { host: '127.0.0.1', port: 40001 });
  assert.deepEqual(asked, ['/kube/endpoints?address=10.0.0.10&port=6443'], 'the second from the cache');
  await new Promise((r) => setTimeout(r, 80));
  answer = async () => { throw Object.assign(new Error('not found'), { status: 404 }); };
  assert.equal(await connect('10.0.0.10', 6443), undefined, 'the cache expired; nothing answers there now');
  answer = async () => ({ host: '127.0.0.1', port: '40001' });
  assert.equal(await connect('10.0.0.11', 6443), undefined);
  answer = async () => { throw Object.assign(new Error('boom'), { status: 500 }); };
  await assert.rejects(connect('10.0.0.12', 6443), /boom/);
  assert.equal(asked.length, 4);
});

