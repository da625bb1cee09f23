// POST /bootstrap/v1/material: a node's first boot fetches its secrets (outside Magnum's v1 surface; no Keystone
// token: the node presents the one-time token its user-data carries and its own Nova id). src/clusters/
// node-material.ts decides; the answer is one `<mode> <path> <base64>` line per file, written by the node's
// bootstrap script with the shell alone (src/bootstrap/user-data/material.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { takeNodeMaterial } from '../../clusters/node-material.js';
import { MATERIAL_PATH } from '../../bootstrap/user-data/material.js';
import { errors } from '../../domain/errors.js';
import { errorResponses } from '../schemas/common.js';

const Headers = Type.Object({
  authorization: Type.Optional(Type.String({ maxLength: 512, description: 'Bearer <the one-time token of the node’s user-data>' })),
  'x-server-id': Type.Optional(Type.String({ maxLength: 64, description: 'The node’s own Nova server id (the metadata service’s uuid)' })),
});

export const bootstrapRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  app.post(
    MATERIAL_PATH,
    {
      config: { public: true },
      schema: {
        tags: ['bootstrap'],
        summary: 'A node’s secrets, once, at its first boot (an extension; not Keystone-authenticated)',
        description:
          'The CA and service-account keys of a control plane, the join token, the KMS credential: what never rides in a node’s user-data. The node presents the one-time token its user-data carries (single use, bound to its server, valid NODE_MATERIAL_TTL_S) and its Nova id. 200: text/plain, one `<mode> <path> <base64 content>` line per file. 401 unknown token, 403 another server’s, 409 not yet bound to the server, or the node closed its side of the connection before the answer (ask again: nothing was taken), 410 used or expired; a used, expired or foreign token is written in the cluster’s events.',
        headers: Headers,
        produces: ['text/plain'],
        response: { 200: Type.String({ description: 'text/plain: `<mode> <path> <base64>` per line' }), ...errorResponses(401, 403, 409, 410) },
      },
    },
    async (request, reply) => {
      const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
      // A node whose curl gave up (--max-time) on a slow answer asks again: an answer it never got must not spend
      // its one token (it would be refused, 410, and never join). Its closed side is seen before the take and
      // before the answer (the material is then not sent and the token given back); a connection that closes while
      // the answer is written gives it back too.
      const gone = () => request.socket.destroyed || request.socket.readableEnded;
      if (gone()) throw errors.nodeMaterialClientGone();
      const taken = await takeNodeMaterial(s, { token: bearer, serverId: request.headers['x-server-id'], peer: request.socket.remoteAddress ?? 'unknown' });
      const giveBack = () => taken.undelivered().catch((e: unknown) => request.log.warn({ err: e }, 'node material not given back'));
      if (gone()) {
        await giveBack();
        throw errors.nodeMaterialClientGone();
      }
      let written = false;
      reply.raw.once('finish', () => (written = true));
      reply.raw.once('close', () => {
        if (!written) void giveBack();
      });
      return reply.header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(taken.lines);
    },
  );
};
