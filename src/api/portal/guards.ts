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
  /** Login attempts one client (the real peer: TRUSTED_PROXIES) may make in the window. */
  perClient: number;
  /** Failed logins of one user (from anywhere) before the clients failing for it are slowed. */
  perUser: number;
  /** The window of the client's attempts; a user's failures are forgotten this long after the last one. */
  windowSeconds: number;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const clientCounter = (prefix: string, client: string) => `${prefix}:portal:login:client:${client}`;
const userRecord = (prefix: string, user: string) => `${prefix}:portal:login:user:${sha(user.toLowerCase())}`;
/** The failures of one client for one user: the client has been failing for it while this exists. */
const pairCounter = (prefix: string, user: string, client: string) => `${userRecord(prefix, user)}:client:${client}`;

/**
 * How long after a user's last failure a client failing for it must wait, once the user has `failures` (at least
 * `perUser`): 1 s, doubling with each further failure, at most the window.
 */
export function userDelayMs(limits: LoginLimits, failures: number): number {
  if (failures < limits.perUser) return 0;
  return Math.min(limits.windowSeconds * 1000, 1000 * 2 ** Math.min(30, failures - limits.perUser));
}

/**
 * Before a login. Per client (the real peer): every attempt counts, and past `perClient` in the window the client
 * waits for the window (429). Per user: nothing locks a user out. A client that has not been failing for this user
 * is never refused for the user's sake, so the right password from anywhere else always gets through; a client
 * that has been failing for it waits out a delay after the user's last failure, growing with the user's failures
 * from everywhere (429 with Retry-After): guessing slows down, from one address or many.
 */
export async function checkLoginAllowed(redis: Redis, prefix: string, limits: LoginLimits, client: string, user: string, now = Date.now()): Promise<void> {
  const counter = clientCounter(prefix, client);
  const [[, attempts], [, ttl], [, record], [, mine]] = (await redis
    .multi()
    .incr(counter)
    .pttl(counter)
    .hmget(userRecord(prefix, user), 'failures', 'last')
    .get(pairCounter(prefix, user, client))
    .exec()) as [[null, number], [null, number], [null, (string | null)[]], [null, string | null]];
  if (ttl < 0) await redis.pexpire(counter, limits.windowSeconds * 1000);
  if (attempts > limits.perClient) throw errors.loginRateLimited(Math.max(1, Math.ceil((ttl < 0 ? limits.windowSeconds * 1000 : ttl) / 1000)));
  if (Number(mine ?? 0) === 0) return;
  const [failures, last] = [Number(record[0] ?? 0), Number(record[1] ?? 0)];
  const wait = last + userDelayMs(limits, failures) - now;
  if (wait > 0) throw errors.loginRateLimited(Math.ceil(wait / 1000));
}

/** After a refused login: one more failure for the user (its record lives a window past its last failure) and for this client with it. */
export async function countLoginFailure(redis: Redis, prefix: string, limits: LoginLimits, client: string, user: string, now = Date.now()): Promise<void> {
  const window = limits.windowSeconds * 1000;
  const record = userRecord(prefix, user);
  const pair = pairCounter(prefix, user, client);
  await redis.multi().hincrby(record, 'failures', 1).hset(record, 'last', String(now)).pexpire(record, window).incr(pair).pexpire(pair, window).exec();
}

/** After a successful login: the client is no longer failing for this user (the user's own count stays). */
export async function clearClientFailures(redis: Redis, prefix: string, client: string, user: string): Promise<void> {
  await redis.del(pairCounter(prefix, user, client));
}
