// The worker's cluster API client against a hostile server (issue 15 hole 8): the cluster is the
// tenant's, so an answer is bounded in size and in total time, and each failure says whether a later
// attempt may fare better. A real HTTPS server on loopback, with the cluster CA's serving certificate.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { issueServingCert } from '../../cloudsim/kube/tls.js';
import { KubeClient, KubeError, type KubeLimits } from '../../src/kube/api-client.js';
import { createCa } from '../../src/pki/ca.js';
import { issueClientCert } from '../../src/pki/client-cert.js';
import { failureOf, isRetryable } from '../../src/steps/errors.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

describe('cluster API client limits', () => {
  let server: Server;
  let handler: Handler = (_req, res) => res.end('{}');
  let client: (limits: Partial<KubeLimits>) => KubeClient;
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
    const { port } = server.address() as AddressInfo;
    client = (limits) => {
      const c = new KubeClient({ server: `https://127.0.0.1:${port}`, caCerts: [ca.cert], clientCert: id.cert, clientKey: id.key, limits });
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
});
