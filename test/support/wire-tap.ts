// Recording reverse proxies put in front of every endpoint of the simulated Keystone's catalog (and of
// Keystone itself): a real client (Horizon, openstacksdk) reaches each service through its tap, and the
// test reads back every exchange, the answer included, to list the calls that failed.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeystoneSim } from '../../cloudsim/keystone/index.js';

export interface Exchange {
  /** The catalog type of the service (identity for Keystone). */
  service: string;
  method: string;
  /** The request target as sent. */
  url: string;
  userAgent: string;
  microversion: string | undefined;
  requestBody: string;
  status: number;
  responseBody: string;
  at: number;
}

export interface WireTap {
  /** Keystone's URL through its tap (http://127.0.0.1:<port>, /v3 beneath). */
  keystoneUrl: string;
  /** Every exchange so far. */
  exchanges(): Exchange[];
  /** Exchanges answered with a status ≥ 400, optionally only those matching `keep`. */
  failures(keep?: (e: Exchange) => boolean): Exchange[];
  close(): Promise<void>;
}

const MAX_BODY = 4000;
const SECRET_HEADERS = /^(x-auth-token|x-subject-token|cookie|set-cookie|authorization)$/i;

/** Passwords and secrets in recorded bodies are masked (the tap's listing may be printed). */
function masked(body: string): string {
  return body.replace(/("(?:password|secret|token|id_token)"\s*:\s*)"[^"]*"/g, '$1"***"').slice(0, MAX_BODY);
}

function headerOf(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

async function proxy(service: string, target: URL, log: Exchange[]): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        const out: Buffer[] = [];
        r.on('data', (c: Buffer) => out.push(c));
        r.on('end', () => {
          const answer = Buffer.concat(out);
          log.push({
            service,
            method: req.method ?? '',
            url: req.url ?? '',
            userAgent: headerOf(req.headers, 'user-agent') ?? '',
            microversion: headerOf(req.headers, 'openstack-api-version') ?? headerOf(req.headers, 'x-openstack-nova-api-version'),
            requestBody: masked(body.toString('utf8')),
            status: r.statusCode ?? 0,
            responseBody: masked(answer.toString('utf8')),
            at: Date.now(),
          });
          res.writeHead(r.statusCode ?? 502, r.headers);
          res.end(answer);
        });
      });
      up.on('error', (e) => {
        log.push({ service, method: req.method ?? '', url: req.url ?? '', userAgent: headerOf(req.headers, 'user-agent') ?? '', microversion: undefined, requestBody: masked(body.toString('utf8')), status: 502, responseBody: String(e), at: Date.now() });
        res.writeHead(502).end(String(e));
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * Taps every endpoint origin of `keystone`'s catalog, and Keystone itself (its public URL becomes the
 * tap's, so the version document and the catalog lead clients through it). Endpoints keep their paths.
 */
export async function tapCatalog(keystone: KeystoneSim): Promise<WireTap> {
  const log: Exchange[] = [];
  const servers: Server[] = [];
  const taps = new Map<string, string>();
  const tap = async (service: string, origin: string): Promise<string> => {
    const known = taps.get(origin);
    if (known) return known;
    const server = await proxy(service, new URL(origin), log);
    servers.push(server);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    taps.set(origin, url);
    return url;
  };
  const ksOrigin = `http://127.0.0.1:${(keystone.app.server.address() as AddressInfo).port}`;
  const keystoneUrl = await tap('identity', ksOrigin);
  keystone.setPublicUrl(keystoneUrl);
  for (const service of keystone.state.catalog.services) {
    for (const ep of service.endpoints) {
      const u = new URL(ep.url.replace(/%\(/g, '%25(')); // placeholders such as %(project_id)s survive URL parsing
      if (u.origin === keystoneUrl) continue;
      const through = await tap(service.type, u.origin);
      ep.url = through + ep.url.slice(u.origin.length);
    }
  }
  return {
    keystoneUrl,
    exchanges: () => [...log],
    failures: (keep = () => true) => log.filter((e) => e.status >= 400 && keep(e)),
    async close() {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}

/** One entry per distinct exchange (repeats counted): service, method, URL, microversion, status, then the bodies. */
export function describeExchanges(list: Exchange[]): string {
  const seen = new Map<string, { e: Exchange; n: number }>();
  for (const e of list) {
    const key = `${e.service} ${e.method} ${e.url} ${e.microversion} ${e.status} ${e.requestBody} ${e.responseBody}`;
    const got = seen.get(key);
    if (got) got.n++;
    else seen.set(key, { e, n: 1 });
  }
  return [...seen.values()]
    .map(({ e, n }) => `${e.service} ${e.method} ${e.url}${e.microversion ? ` [${e.microversion}]` : ''} → ${e.status}${n > 1 ? ` (×${n})` : ''}\n    request: ${e.requestBody || '(none)'}\n    answer: ${e.responseBody.replace(/\s+/g, ' ').slice(0, 600)}`)
    .join('\n');
}
