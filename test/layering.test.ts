// The API's handlers and the workers reach the database only through the repositories (src/db/repos) and
// OpenStack only through the typed clients (src/openstack, src/keystone): a raw query, repository or
// request or hand-made session written in src/api or workers/ fails here, naming its file and line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

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
