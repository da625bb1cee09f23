// Small helpers every resource view uses.
import type { FastifyRequest } from 'fastify';

/**
 * The base of the links the API gives: the configured public URL (API_PUBLIC_URL), else the direct request's own
 * scheme (X-Forwarded-Proto counts only from a configured proxy) and Host header. Never X-Forwarded-Host: a client
 * naming a host there gets links to this service all the same.
 */
export const hostUrl = (request: FastifyRequest): string =>
  request.server.services.config.api.publicUrl ?? `${request.protocol}://${request.headers.host ?? request.hostname}`;

/** Magnum's timestamp format: "2016-08-29T06:51:31+00:00". */
export const isoSeconds = (d: Date | null): string | null => (d ? `${d.toISOString().slice(0, 19)}+00:00` : null);

export const selfLinks = (host: string, path: string) => [
  { href: `${host}/v1/${path}`, rel: 'self' },
  { href: `${host}/${path}`, rel: 'bookmark' },
];
