// Glance's schema documents, as glanceclient (Horizon's image client) reads them before a list or show:
// Zed's image and member schemas with Debian's custom image properties, their collections, behind the token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, withSims } from '../support-sims.js';

const t = withSims();
const schema = (name: string, token?: string) => getJson(`${t.sims.urls.image}/v2/schemas/${name}`, token);
test('the image schema: permissive (string extras), the base properties, the custom ones marked is_base false, the links', async () => {
  const { status, body } = await schema('image', t.demo);
  assert.equal(status, 200);
  assert.equal(body.name, 'image');
  assert.deepEqual(body.additionalProperties, { type: 'string' });
  assert.deepEqual(body.links, [
    { rel: 'self', href: '{self}' },
    { rel: 'enclosure', href: '{file}' },
    { rel: 'describedby', href: '{schema}' },
  ]);
  const base = ['id', 'name', 'status', 'visibility', 'protected', 'os_hidden', 'checksum', 'os_hash_algo', 'os_hash_value', 'owner', 'size', 'virtual_size', 'container_format', 'disk_format', 'created_at', 'updated_at', 'tags', 'direct_url', 'min_ram', 'min_disk', 'self', 'file', 'stores', 'schema', 'locations'];
  const custom = ['kernel_id', 'ramdisk_id', 'instance_uuid', 'architecture', 'os_distro', 'os_version', 'description', 'cinder_encryption_key_id', 'cinder_encryption_key_deletion_policy'];
  assert.deepEqual(Object.keys(body.properties), [...base, ...custom]);
  for (const k of custom) assert.equal(body.properties[k].is_base, false, k);
  for (const k of base) assert.equal(body.properties[k].is_base, undefined, k);
  assert.deepEqual(body.properties.status.enum, ['queued', 'saving', 'active', 'killed', 'deleted', 'uploading', 'importing', 'pending_delete', 'deactivated']);
  assert.deepEqual(body.properties.visibility.enum, ['community', 'public', 'private', 'shared']);
});

test('every image the simulator lists fits the schema glanceclient validates it with', async () => {
  const { body: image } = await schema('image', t.demo);
  const images = (await getJson(`${t.sims.urls.image}/v2/images`, t.demo)).body.images as Record<string, unknown>[];
  assert.ok(images.length > 0);
  for (const i of images) {
    for (const [k, v] of Object.entries(i)) {
      const p = image.properties[k] as { type?: string | string[]; enum?: unknown[] } | undefined;
      const types = p ? [p.type ?? []].flat() : ['string'];
      const kind = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v;
      assert.ok(types.length === 0 || types.includes(kind), `${i.name}: ${k} is ${kind}, the schema says ${types.join('|')}`);
      if (p?.enum) assert.ok(p.enum.includes(v), `${i.name}: ${k} = ${String(v)}`);
    }
  }
});

test('the images collection wraps the image schema with paging links; the member schemas are minimal', async () => {
  const [image, images, member, members] = (await Promise.all(['image', 'images', 'member', 'members'].map((n) => schema(n, t.demo)))).map((r) => r.body);
  assert.deepEqual(images.properties.images, { type: 'array', items: image });
  assert.deepEqual(Object.keys(images.properties), ['images', 'first', 'next', 'schema']);
  assert.deepEqual(images.links.map((l: { rel: string }) => l.rel), ['first', 'next', 'describedby']);
  assert.equal(member.name, 'member');
  assert.deepEqual(Object.keys(member), ['name', 'properties'], 'minimal, as Glance serves it');
  assert.deepEqual(Object.keys(member.properties), ['member_id', 'image_id', 'created_at', 'updated_at', 'status', 'schema']);
  assert.deepEqual(member.properties.status.enum, ['pending', 'accepted', 'rejected']);
  assert.deepEqual(members, { name: 'members', properties: { members: { type: 'array', items: member }, schema: { type: 'string' } }, links: [{ rel: 'describedby', href: '{schema}' }] });
});

test('the schemas need a token, as the rest of /v2 does', async () => {
  assert.equal((await schema('image')).status, 401);
  assert.equal((await schema('nothing', t.demo)).status, 404);
});
