// Glance's schema documents (GET /v2/schemas/image, images, member, members), which glanceclient reads
// before it lists or shows (its models are built from them: Horizon's image client, and so magnum-ui's
// image choice, need them). The documents are Zed's as Debian's glance-api serves them: the base image
// schema with the custom properties of its /etc/glance/schema-image.json (`is_base: false`).
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

const load = (name: string): Record<string, unknown> => JSON.parse(readFileSync(new URL(`./schemas/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;

/** A collection's schema as glance.schema.CollectionSchema.raw() renders it: the item's schema in an array, paging links. */
function collection(name: string, item: Record<string, unknown>): Record<string, unknown> {
  return {
    name,
    properties: { [name]: { type: 'array', items: item }, first: { type: 'string' }, next: { type: 'string' }, schema: { type: 'string' } },
    links: [
      { rel: 'first', href: '{first}' },
      { rel: 'next', href: '{next}' },
      { rel: 'describedby', href: '{schema}' },
    ],
  };
}

/** CollectionSchema.minimal(), which Glance serves for members: no paging. */
function minimalCollection(name: string, item: Record<string, unknown>): Record<string, unknown> {
  return {
    name,
    properties: { [name]: { type: 'array', items: item }, schema: { type: 'string' } },
    links: [{ rel: 'describedby', href: '{schema}' }],
  };
}

export const IMAGE_SCHEMA = load('image');
/** Served minimal (Schema.minimal(): name and properties only), as Glance serves the member schemas. */
export const MEMBER_SCHEMA = load('member');
const DOCUMENTS: Record<string, Record<string, unknown>> = {
  image: IMAGE_SCHEMA,
  images: collection('images', IMAGE_SCHEMA),
  member: MEMBER_SCHEMA,
  members: minimalCollection('members', MEMBER_SCHEMA),
};

/** Authenticated, as in Glance (only the version documents are public). */
export function registerSchemaRoutes(scope: FastifyInstance): void {
  for (const [name, doc] of Object.entries(DOCUMENTS)) scope.get(`/v2/schemas/${name}`, async () => doc);
}
