// The checks a cookie-borne request must pass: same origin (Origin / Sec-Fetch-Site), the
// session's synchronizer token, the login form's own token, and the login rate limits (counted
// in Redis so they hold across API processes).
import { createHmac, timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { errors } from '../../domain/errors.js';
import { hostUrl } from '../views.js';

export const SESSION_COOKIE = 'magnum_session';
export const LOGIN_COOKIE = 'magnum_login';
export const CSRF_HEADER = 'x-csrf-token';
export const PROJECT_HEADER = 'x-portal-project';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Cookies of the request (RFC 6265 pairs; the first of a repeated name wins). */
export function cookies(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    if (k && !(k in out)) out[k] = part.slice(i + 1).trim();
  }
  return out;
}

export function cookieHeader(name: string, value: string, request: FastifyRequest, opts: { path?: string; maxAge?: number } = {}): string {
  const parts = [`${name}=${value}`, `Path=${opts.path ?? '/'}`, 'HttpOnly', 'SameSite=Strict'];
  if (opts.maxAge !== undefined) parts.push(`Max-Age=${opts.maxAge}`);
  if (request.protocol === 'https') parts.push('Secure');
  return parts.join('; ');
}

/** An URL's origin (scheme, host, port; a default port left out), or undefined when it is none ("null", garbage). */
function originOf(url: string): string | undefined {
  try {
    const o = new URL(url).origin;
    return o === 'null' ? undefined : o;
  } catch {
    return undefined;
  }
}

/** Throws unless the request comes from a page of this origin (the public URL's, or the direct request's). */
export function requireSameOrigin(request: FastifyRequest): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') throw errors.csrfRefused(`Sec-Fetch-Site is ${site}`);
  const origin = request.headers.origin;
  const own = originOf(hostUrl(request));
  if (origin !== undefined && (own === undefined || originOf(origin) !== own)) throw errors.csrfRefused(`Origin ${origin} is not ${own ?? 'this service'}`);
  if (!SAFE.has(request.method) && origin === undefined && site === undefined) throw errors.csrfRefused('neither Origin nor Sec-Fetch-Site is sent');
}

export function sameSecret(a: string | undefined, b: string): boolean {
  if (typeof a !== 'string' || a === '') return false;
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

/** The login form's token: an HMAC of its pre-session cookie under a key derived from SECRET_KEYS. */
export function loginToken(key: Buffer, cookie: string): string {
  return createHmac('sha256', key).update(`portal-login|${cookie}`).digest('base64url');
}

export interface LoginLimits {
  perClient: number;
  perUser: number;
  windowSeconds: number;
}

const userKey = (prefix: string, user: string) => `${prefix}:portal:login:user:${createHash('sha256').update(user.toLowerCase()).digest('hex')}`;

async function over(redis: Redis, key: string, limit: number, windowSeconds: number, count: boolean): Promise<void> {
  const [[, n], [, ttl]] = (await (count ? redis.multi().incr(key) : redis.multi().get(key)).pttl(key).exec()) as [[null, number | string | null], [null, number]];
  if (count && ttl < 0) await redis.pexpire(key, windowSeconds * 1000);
  if (Number(n ?? 0) > (count ? limit : limit - 1)) throw errors.loginRateLimited(Math.max(1, Math.ceil((ttl < 0 ? windowSeconds * 1000 : ttl) / 1000)));
}

/** Before a login: counts the attempt for the client address, and refuses a user with too many recent failures (429). */
export async function checkLoginAllowed(redis: Redis, prefix: string, limits: LoginLimits, client: string, user: string): Promise<void> {
  await over(redis, `${prefix}:portal:login:client:${client}`, limits.perClient, limits.windowSeconds, true);
  await over(redis, userKey(prefix, user), limits.perUser, limits.windowSeconds, false);
}

/** After a refused login: one more failure for the user. */
export async function countLoginFailure(redis: Redis, prefix: string, limits: LoginLimits, user: string): Promise<void> {
  const key = userKey(prefix, user);
  const n = await redis.incr(key);
  if (n === 1) await redis.pexpire(key, limits.windowSeconds * 1000);
}
