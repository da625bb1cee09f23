// The tag API of every taggable resource (spec openstack-apis §3.3): GET/PUT/POST/DELETE on
// /v2.0/{resource}/{id}/tags[/{tag}]. PUT of one tag is 201 even when it is already there.
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { callerOf } from '../common/service-app.js';
import { networkNotFound, visibleNetwork } from './routes-networks.js';
import { sgNotFound } from './routes-security-groups.js';
import type { NeutronState, Standard } from './state.js';
import { checkRevision, owns, touch, type Caller } from './writes.js';

export const MAX_TAGS = 50;
const MAX_TAG_LEN = 255;

const invalidInput = (msg: string) => new SimError(400, `Invalid input for operation: ${msg}`, 'InvalidInput');

/** A list of unique tags (each a string of 1-255 characters, at most 50). */
export function validateTags(raw: unknown): string[] {
  if (!Array.isArray(raw)) throw invalidInput(`'${JSON.stringify(raw)}' is not a list.`);
  for (const t of raw) {
    if (typeof t !== 'string' || t.length === 0) throw invalidInput(`'${JSON.stringify(t)}' is not a valid string.`);
    if (t.length > MAX_TAG_LEN) throw invalidInput(`'${t}' exceeds maximum length of ${MAX_TAG_LEN}.`);
  }
  const dups = raw.filter((t, i) => raw.indexOf(t) !== i);
  if (dups.length > 0) throw invalidInput(`Duplicate items in the list: '${[...new Set(dups)].join(', ')}'`);
  if (raw.length > MAX_TAGS) throw invalidInput(`The number of tags exceeds the maximum ${MAX_TAGS}.`);
  return raw as string[];
}

interface Taggable {
  /** The resource if the caller may see it. */
  find(id: string, caller: Caller): Standard | undefined;
  notFound(id: string): SimError;
}

export function registerTagRoutes(scope: FastifyInstance, state: NeutronState): void {
  const simple = (map: Map<string, Standard>, notFound: (id: string) => SimError): Taggable => ({
    find: (id, caller) => {
      const item = map.get(id);
      return item && owns(caller, item) ? item : undefined;
    },
    notFound,
  });
  const resources: Record<string, Taggable> = {
    networks: {
      find: (id, caller) => {
        const n = state.networks.get(id);
        return n && visibleNetwork(n, caller) ? n : undefined;
      },
      notFound: networkNotFound,
    },
    subnets: {
      find: (id, caller) => {
        const s = state.subnets.get(id);
        return s && (owns(caller, s) || state.networks.get(s.networkId)?.shared) ? s : undefined;
      },
      notFound: (id) => new SimError(404, `Subnet ${id} could not be found.`, 'SubnetNotFound'),
    },
    ports: {
      find: (id, caller) => {
        const p = state.ports.get(id);
        return p && (owns(caller, p) || state.networks.get(p.networkId)?.projectId === caller.projectId) ? p : undefined;
      },
      notFound: (id) => new SimError(404, `Port ${id} could not be found.`, 'PortNotFound'),
    },
    routers: simple(state.routers, (id) => new SimError(404, `Router ${id} could not be found`, 'RouterNotFound')),
    'security-groups': simple(state.securityGroups, sgNotFound),
    floatingips: simple(state.floatingIps, (id) => new SimError(404, `Floating IP ${id} could not be found`, 'FloatingIPNotFound')),
  };

  for (const [name, res] of Object.entries(resources)) {
    const base = `/v2.0/${name}/:id/tags`;
    const get = (id: string, caller: Caller) => {
      const item = res.find(id, caller);
      if (!item) throw res.notFound(id);
      return item;
    };
    /** Writers must own the resource (a shared network can be seen but not tagged). */
    const writable = (id: string, caller: Caller) => {
      const item = get(id, caller);
      if (!owns(caller, item)) throw new SimError(403, `(rule:update_${name.replace(/s$/, '').replace('-', '_')}:tags) is disallowed by policy`, 'PolicyNotAuthorized');
      return item;
    };
    const tagNotFound = (tag: string) => new SimError(404, `Tag ${tag} could not be found.`, 'TagNotFound');
    type P = { Params: { id: string; tag: string } };

    scope.get<P>(base, async (request) => ({ tags: get(request.params.id, callerOf(request)).tags }));

    scope.get<P>(`${base}/:tag`, async (request, reply) => {
      const item = get(request.params.id, callerOf(request));
      if (!item.tags.includes(request.params.tag)) throw tagNotFound(request.params.tag);
      return reply.code(204).send();
    });

    scope.put<P>(`${base}/:tag`, async (request, reply) => {
      const item = writable(request.params.id, callerOf(request));
      checkRevision(request, item);
      const { tag } = request.params;
      if (!item.tags.includes(tag)) {
        item.tags = validateTags([...item.tags, tag]);
        touch(item);
        state.refile(item);
      }
      return reply.code(201).send();
    });

    scope.put<P>(base, async (request) => {
      const item = writable(request.params.id, callerOf(request));
      checkRevision(request, item);
      item.tags = validateTags((request.body as { tags?: unknown } | undefined)?.tags);
      touch(item);
      state.refile(item);
      return { tags: item.tags };
    });

    scope.post<P>(base, async (request, reply) => {
      const item = writable(request.params.id, callerOf(request));
      const added = validateTags((request.body as { tags?: unknown } | undefined)?.tags);
      item.tags = validateTags([...item.tags, ...added.filter((t) => !item.tags.includes(t))]);
      touch(item);
      state.refile(item);
      return reply.code(201).send({ tags: item.tags });
    });

    scope.delete<P>(`${base}/:tag`, async (request, reply) => {
      const item = writable(request.params.id, callerOf(request));
      if (!item.tags.includes(request.params.tag)) throw tagNotFound(request.params.tag);
      item.tags = item.tags.filter((t) => t !== request.params.tag);
      touch(item);
      state.refile(item);
      return reply.code(204).send();
    });

    scope.delete<P>(base, async (request, reply) => {
      const item = writable(request.params.id, callerOf(request));
      item.tags = [];
      touch(item);
      state.refile(item);
      return reply.code(204).send();
    });
  }
}
