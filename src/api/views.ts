// Small helpers every resource view uses.
import type { FastifyRequest } from 'fastify';

/** `<scheme>://<host>` of the request, honouring X-Forwarded-* (trustProxy). */
export const hostUrl = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

/** Magnum's timestamp format: "2016-08-29T06:51:31+00:00". */
export const isoSeconds = (d: Date | null): string | null => (d ? `${d.toISOString().slice(0, 19)}+00:00` : null);

export const selfLinks = (host: string, path: string) => [
  { href: `${host}/v1/${path}`, rel: 'self' },
  { href: `${host}/${path}`, rel: 'bookmark' },
];
