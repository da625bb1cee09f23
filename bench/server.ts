// The server under test, in its own process (forked by bench/run.ts, which talks to it over IPC).
//
//   tsx bench/server.ts app   the real API, built by buildApp() exactly as src/server.ts does
//                             (own services, Prometheus process metrics, pino at LOG_LEVEL) from
//                             the environment the parent passes (DATABASE_URL, KEYSTONE_URL, ...)
//   tsx bench/server.ts bare  a bare Fastify serving the same JSON from memory (the ceiling): it
//                             waits for a {type:'data'} message with the bodies to serve
//
// Both listen on 127.0.0.1, port 0, and send {type:'ready', port}. Other messages:
//   {type:'profile-start'}  → starts the V8 CPU profiler      → {type:'profile-started'}
//   {type:'profile-stop', path} → writes a .cpuprofile there  → {type:'profile-stopped', path}
//   {type:'shutdown'}       → closes the server and exits 0
import { writeFile } from 'node:fs/promises';
import { Session, type Profiler } from 'node:inspector/promises';
import { findSourceMap } from 'node:module';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/api/app.js';
import { loadConfig } from '../src/config.js';
import { createOperation } from '../workers/cluster/create.js';

export type ToServer =
  | { type: 'data'; list: unknown; items: Record<string, unknown> }
  | { type: 'profile-start' }
  | { type: 'profile-stop'; path: string }
  | { type: 'shutdown' };

export type FromServer =
  | { type: 'ready'; port: number }
  | { type: 'profile-started' }
  | { type: 'profile-stopped'; path: string }
  | { type: 'error'; message: string };

const mode = process.argv[2];
if (mode !== 'app' && mode !== 'bare') {
  console.error('usage: tsx bench/server.ts app|bare');
  process.exit(2);
}
if (!process.send) {
  console.error('bench/server.ts must be forked with an IPC channel (by bench/run.ts)');
  process.exit(2);
}

const send = (m: FromServer): void => {
  process.send!(m);
};

/** The ceiling: the same JSON, from memory, no hooks, no auth, no database. */
async function buildBare(data: { list: unknown; items: Record<string, unknown> }): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/v1/clustertemplates', async () => data.list);
  app.get<{ Params: { ident: string } }>('/v1/clustertemplates/:ident', async (request, reply) => {
    const item = data.items[request.params.ident];
    if (item === undefined) return reply.code(404).send({ error: 'not found' });
    return item;
  });
  return app;
}

/** tsx compiles each .ts file to one line: put the original line/column back (tsx enables source maps). */
function toSourceLines(profile: Profiler.Profile): Profiler.Profile {
  for (const { callFrame: f } of profile.nodes) {
    if (!f.url.startsWith('file:') || f.url.includes('/node_modules/')) continue;
    const entry = findSourceMap(f.url)?.findEntry(f.lineNumber, f.columnNumber);
    if (entry && 'originalLine' in entry) {
      f.lineNumber = entry.originalLine;
      f.columnNumber = entry.originalColumn;
    }
  }
  return profile;
}

let app: FastifyInstance | undefined;
let profiler: Session | undefined;

async function start(data?: { list: unknown; items: Record<string, unknown> }): Promise<void> {
  if (mode === 'app') {
    const config = loadConfig(process.env);
    app = await buildApp(config, { steps: createOperation.steps });
  } else {
    app = await buildBare(data!);
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  if (addr === null || typeof addr === 'string') throw new Error(`unexpected listen address ${String(addr)}`);
  send({ type: 'ready', port: addr.port });
}

async function onMessage(m: ToServer): Promise<void> {
  switch (m.type) {
    case 'data':
      if (mode === 'bare' && !app) await start(m);
      break;
    case 'profile-start':
      profiler ??= new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
      await profiler.post('Profiler.start');
      send({ type: 'profile-started' });
      break;
    case 'profile-stop': {
      if (!profiler) throw new Error('profile-stop without profile-start');
      const { profile } = await profiler.post('Profiler.stop');
      await profiler.post('Profiler.disable');
      profiler.disconnect();
      await writeFile(m.path, JSON.stringify(toSourceLines(profile)));
      send({ type: 'profile-stopped', path: m.path });
      break;
    }
    case 'shutdown':
      await app?.close();
      process.exit(0);
  }
}

function fail(e: unknown): void {
  const message = e instanceof Error ? (e.stack ?? e.message) : String(e);
  try {
    send({ type: 'error', message });
  } finally {
    console.error(`[bench/server ${mode}] ${message}`);
    process.exit(1);
  }
}

process.on('message', (m: ToServer) => {
  onMessage(m).catch(fail);
});
// The parent went away (crash, Ctrl-C): do not linger.
process.on('disconnect', () => process.exit(0));

if (mode === 'app') start().catch(fail);
