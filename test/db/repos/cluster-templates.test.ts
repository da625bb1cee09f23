// Queries on cluster templates (src/db/repos/cluster-templates.ts), scoped by who asks (spec §3.1
// "Visibility"): a project's own, the public ones, hidden public ones by id or name only; every write
// followed by its onWrite (the caches invalidate there); whether a cluster references a template.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterTemplateRow } from '../../../src/db/entities/cluster-template.js';
import { ClusterTemplateRepo, SORTABLE, type Visibility } from '../../../src/db/repos/cluster-templates.js';
import { openDb, type Db } from '../../support/database.js';

let db: Db;
let writes = 0;
let repo: ClusterTemplateRepo;
let mine: ClusterTemplateRow;
let pub: ClusterTemplateRow;
let hidden: ClusterTemplateRow;
let theirs: ClusterTemplateRow;

before(async () => {
  db = await openDb(2);
  repo = new ClusterTemplateRepo(db.ds, () => void writes++);
  const base = (await db.cluster({ project: 'p-mine', template: { name: 'mine' } })).template;
  const { id: _id, ...row } = base;
  mine = base;
  pub = await repo.insert({ ...row, uuid: crypto.randomUUID(), name: 'pub', project_id: 'p-admin', public: true } as ClusterTemplateRow);
  hidden = await repo.insert({ ...row, uuid: crypto.randomUUID(), name: 'hidden', project_id: 'p-admin', public: true, hidden: true } as ClusterTemplateRow);
  theirs = await repo.insert({ ...row, uuid: crypto.randomUUID(), name: 'theirs', project_id: 'p-theirs' } as ClusterTemplateRow);
});
after(() => db.close());

const member: Visibility = { all: false, projectId: 'p-mine', hiddenPublic: false };
const page = { sortKey: 'id', sortDir: 'asc' as const, limit: 50 };
const names = (rows: ClusterTemplateRow[] | 'bad-marker') => (rows === 'bad-marker' ? rows : rows.map((r) => r.name));

test('a list shows the project’s own and the public ones not hidden; an admin every one', async () => {
  assert.deepEqual(names(await repo.list(member, page, undefined)), ['mine', 'pub']);
  assert.deepEqual(names(await repo.list({ all: true }, page, undefined)), ['mine', 'pub', 'hidden', 'theirs']);
  assert.deepEqual(names(await repo.list({ ...member, hiddenPublic: true }, page, undefined)), ['mine', 'pub', 'hidden']);
});

test('a marker the caller may see (a hidden public one too) pages; another project’s is bad', async () => {
  assert.deepEqual(names(await repo.list(member, page, mine.uuid.toUpperCase())), ['pub']);
  assert.deepEqual(names(await repo.list(member, page, hidden.uuid)), [], 'a hidden public template is a boundary, listed or not');
  assert.equal(await repo.list(member, page, theirs.uuid), 'bad-marker');
});

test('find: by uuid or name, hidden public ones too, never another project’s private one; ambiguous names', async () => {
  assert.equal((await repo.find(hidden.uuid, member) as ClusterTemplateRow).name, 'hidden');
  assert.equal((await repo.find('hidden', member) as ClusterTemplateRow).uuid, hidden.uuid);
  assert.equal(await repo.find('theirs', member), null);
  assert.equal(await repo.find(theirs.uuid, { all: false, projectId: null, hiddenPublic: false }), null);
  assert.equal((await repo.find(theirs.uuid, { all: true }) as ClusterTemplateRow).name, 'theirs');
  assert.equal((await repo.byUuid(theirs.uuid))?.name, 'theirs', 'byUuid: whoever owns it');
  const { id: _id, ...row } = mine;
  await repo.insert({ ...row, uuid: crypto.randomUUID() } as ClusterTemplateRow);
  assert.equal(await repo.find('mine', member), 'ambiguous');
});

test('every write calls onWrite once; a template a cluster uses is referenced', async () => {
  const before = writes;
  const { id: _id, ...row } = mine;
  const made = await repo.insert({ ...row, uuid: crypto.randomUUID(), name: 'w' } as ClusterTemplateRow);
  await repo.update({ ...made, name: 'w2' });
  assert.equal((await repo.byUuid(made.uuid))?.name, 'w2');
  await repo.remove(made.id);
  assert.equal(await repo.byUuid(made.uuid), null);
  assert.equal(writes - before, 3);
  assert.equal(await repo.isReferenced(mine.uuid), true);
  assert.equal(await repo.isReferenced(pub.uuid), false);
});

test('the sortable columns are the entity’s', () => {
  for (const c of ['id', 'uuid', 'name', 'created_at', 'labels']) assert.ok(SORTABLE.has(c), c);
  assert.equal(SORTABLE.has('bogus'), false);
});
