// The API's handlers and the workers reach the database only through the repositories (src/db/repos) and
// OpenStack only through the typed clients (src/openstack, src/keystone): a raw query, repository or
// request or hand-made session written in src/api or workers/ fails here, naming its file and line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What only a repository or a client may call. */
const RAW = [
  { pattern: /\bgetRepository\s*\(/, what: 'a TypeORM repository (use a repo of src/db/repos)' },
  { pattern: /\.query\s*\(/, what: 'raw SQL (use a repo of src/db/repos)' },
  { pattern: /\bcreateQueryBuilder\s*\(/, what: 'a query builder (use a repo of src/db/repos)' },
  { pattern: /\brequestJson\s*\(/, what: 'a raw OpenStack request (use a client of src/openstack)' },
  { pattern: /\bcallJson\s*\(/, what: 'a raw Keystone request (use a client of src/keystone or src/openstack)' },
  { pattern: /\b(tokenSessions|sessionFor)\s*\(/, what: 'a session made by hand (use the caller\'s clients, CallerClouds, or the worker\'s, workers/cloud.ts)' },
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Each raw call in `files`, as `file:line: what`, comments left out. */
function rawCalls(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      if (/^\s*(\*|\/\*)/.test(code)) return;
      for (const r of RAW) if (r.pattern.test(code)) found.push(`${relative(root, file)}:${i + 1}: ${r.what}`);
    });
  }
  return found;
}

test('src/api and workers/ make no raw database query and no raw OpenStack request', () => {
  const files = [...sources(join(root, 'src', 'api')), ...sources(join(root, 'workers'))];
  assert.ok(files.length > 50, 'the sources were found');
  assert.deepEqual(rawCalls(files), []);
});

test('the check finds each kind of raw call, and not one in a comment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layering-'));
  try {
    const file = join(dir, 'handler.ts');
    writeFileSync(file, [
      "const rows = await s.db.getRepository(ClusterEntity).find();",
      "await ds.query('SELECT 1');",
      "const qb = repo.createQueryBuilder('e');",
      "await requestJson(session, { path: '/servers' });",
      "await callJson(url, { method: 'GET', timeoutMs: 1 });",
      "const nova = new NovaClient(await tokenSessions(catalog, token, {}).session('compute'));",
      "// a comment naming getRepository( and .query( is fine",
    ].join('\n'));
    assert.deepEqual(rawCalls([file]).map((l) => l.replace(/^.*handler\.ts:/, '')), RAW.map((r, i) => `${i + 1}: ${r.what}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Each relative import of `file`, resolved to a path relative to the repository (`.js` read as the `.ts` it names). */
function importsOf(file: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      out.push({ line: i + 1, target: relative(root, join(file, '..', m[1]!)).replace(/\.js$/, '.ts') });
    }
  });
  return out;
}

/** `file:line -> target` for each import of `files` that `forbidden` refuses. */
function offending(files: string[], forbidden: (target: string, file: string) => boolean): string[] {
  return files.flatMap((f) => importsOf(f).filter((i) => forbidden(i.target, relative(root, f))).map((i) => `${relative(root, f)}:${i.line} -> ${i.target}`));
}

test('the product never imports the simulator but through src/simulator-seam.ts', () => {
  const files = [...sources(join(root, 'src')), ...sources(join(root, 'workers'))];
  assert.deepEqual(offending(files, (t, f) => t.startsWith('cloudsim/') && f !== 'src/simulator-seam.ts'), []);
});

const folderOf = (path: string): string => path.split('/').slice(0, path.startsWith('src/') ? 2 : 1).join('/');
const ROUTE_FOLDER = /^src\/api\/routes\/v1\/([^/]+)\//;

/** Folders each layer of src/ may not import: what stands above it. */
const ABOVE: Record<string, readonly string[]> = {
  'src/openstack': ['src/api', 'src/clusters', 'src/preflight', 'src/domain', 'src/db', 'src/steps', 'src/features', 'src/bootstrap', 'src/cluster-spec', 'src/operations'],
  'src/domain': ['src/api', 'src/clusters', 'src/preflight', 'src/steps', 'src/features', 'src/operations', 'src/db', 'src/bootstrap'],
  'src/cluster-spec': ['src/api', 'src/clusters', 'src/preflight', 'src/steps', 'src/operations', 'src/db'],
  'src/bootstrap': ['src/api', 'src/clusters', 'src/preflight', 'src/steps', 'src/operations', 'src/db'],
  'src/kube': ['src/api', 'src/clusters', 'src/preflight', 'src/steps', 'src/features', 'src/cluster-spec', 'src/db'],
  'src/db': ['src/api', 'src/clusters', 'src/preflight', 'src/steps', 'src/features', 'src/operations'],
  'src/operations': ['src/api', 'src/clusters', 'src/preflight', 'src/steps', 'src/features'],
  'src/preflight': ['src/api', 'src/clusters', 'src/steps', 'src/features'],
  'src/clusters': ['src/api', 'src/steps'],
  'src/steps': ['src/api', 'src/clusters'],
};

test('layers import downward: nothing below src/api reaches into it, the clients reach no layer above them', () => {
  const files = sources(join(root, 'src'));
  assert.deepEqual(offending(files, (t, f) => (ABOVE[folderOf(f)] ?? []).includes(folderOf(t))), []);
});

test('src/ never imports workers/ (the composition root src/server.ts starts them)', () => {
  const files = sources(join(root, 'src'));
  assert.deepEqual(offending(files, (t, f) => t.startsWith('workers/') && f !== 'src/server.ts'), []);
});

test('no route folder imports another: each resource is its own adapter, use cases live in src/clusters/', () => {
  const files = sources(join(root, 'src', 'api', 'routes'));
  assert.deepEqual(offending(files, (t, f) => {
    const [from, to] = [ROUTE_FOLDER.exec(f)?.[1], ROUTE_FOLDER.exec(t)?.[1]];
    return from !== undefined && to !== undefined && from !== to;
  }), []);
});

test('no cast hides a type: zero `as never` and `as unknown as` in src/ and workers/ (the simulator seam re-exports, casts nothing)', () => {
  const files = [...sources(join(root, 'src')), ...sources(join(root, 'workers'))];
  const found = files.flatMap((f) =>
    readFileSync(f, 'utf8').split('\n').flatMap((line, i) => (/\bas (never|unknown as)\b/.test(line.replace(/\/\/.*$/, '')) ? [`${relative(root, f)}:${i + 1}`] : [])),
  );
  assert.deepEqual(found, []);
});

test('the checks find what they look for (a route folder importing another, a cast, a layer reaching up)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layering-'));
  try {
    const nested = join(dir, 'src', 'api', 'routes', 'v1', 'a');
    mkdirSync(nested, { recursive: true });
    const file = join(nested, 'routes.ts');
    writeFileSync(file, "import { x } from '../b/schema.js';\nconst y = z as never;\n");
    const imports = importsOf(file).map((i) => i.target);
    assert.ok(imports.some((t) => t.endsWith('src/api/routes/v1/b/schema.ts')), 'the import is resolved');
    assert.equal(/\bas (never|unknown as)\b/.test("const y = z as never;"), true);
    assert.equal(folderOf('src/openstack/nova.ts'), 'src/openstack');
    assert.ok((ABOVE['src/domain'] ?? []).includes(folderOf('src/api/app.ts')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The test of a source file: test/<its path>.test.ts, a leading src/ dropped (workers/cluster/ports.ts → test/workers/cluster/ports.test.ts). */
const mirroredTest = (file: string): string => join('test', file.replace(/^src\//, '').replace(/\.ts$/, '.test.ts'));

/** A worker step as the runner takes one (src/steps/step.ts), or an operation made of them. */
const isStep = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && ((typeof (v as { name?: unknown }).name === 'string' && typeof (v as { run?: unknown }).run === 'function') || Array.isArray((v as { steps?: unknown }).steps));

/**
 * The step files under `base` (a file of workers/cluster/, or a src/features/<name>/steps.ts, exporting a Step or an
 * operation of steps) without their mirrored test, or whose mirrored test does not import them.
 */
async function untestedSteps(base: string): Promise<string[]> {
  const candidates = [
    ...sources(join(base, 'workers', 'cluster')),
    ...readdirSync(join(base, 'src', 'features')).map((f) => join(base, 'src', 'features', f, 'steps.ts')).filter((p) => existsSync(p)),
  ];
  const out: string[] = [];
  for (const file of candidates) {
    const exported = Object.values(await import(pathToFileURL(file).href));
    if (!exported.some(isStep)) continue;
    const path = relative(base, file);
    const testFile = join(base, mirroredTest(path));
    if (!existsSync(testFile)) out.push(`${path}: no ${mirroredTest(path)}`);
    else if (!importsOf(testFile).some((i) => join(root, i.target) === file)) out.push(`${path}: ${mirroredTest(path)} does not import it`);
  }
  return out;
}

test('every step file has its mirrored test, which imports it', async () => {
  assert.deepEqual(await untestedSteps(root), []);
});

test('the check names a step file without its test, one whose test does not import it, and passes a tested one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'layering-steps-'));
  try {
    const write = (path: string, text: string) => {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    const step = "export const s = { name: 'x', async run() {} };\n";
    write('workers/cluster/untested.ts', step);
    write('workers/cluster/elsewhere.ts', step);
    write('test/workers/cluster/elsewhere.test.ts', "import '../../../workers/cluster/untested.js';\n");
    write('workers/cluster/tested.ts', "export const op = { kind: 'create', steps: [] };\n");
    write('test/workers/cluster/tested.test.ts', "import { op } from '../../../workers/cluster/tested.js';\nvoid op;\n");
    write('workers/cluster/helpers.ts', 'export const twice = (n: number): number => 2 * n;\n');
    write('src/features/thing/steps.ts', step);
    write('src/features/thing/addon.ts', step);
    assert.deepEqual((await untestedSteps(dir)).sort(), [
      'src/features/thing/steps.ts: no test/features/thing/steps.test.ts',
      'workers/cluster/elsewhere.ts: test/workers/cluster/elsewhere.test.ts does not import it',
      'workers/cluster/untested.ts: no test/workers/cluster/untested.test.ts',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
