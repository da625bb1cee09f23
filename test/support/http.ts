// Plain HTTP calls and polling for tests of services listening on loopback.

/** A JSON call; never throws on an HTTP error status. */
export async function call(method: string, target: string, token: string | undefined, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(target, {
    method,
    headers: { accept: 'application/json', ...(token ? { 'x-auth-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // JSON of many shapes: the asserts check it.
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as any };
}

/** Polls `probe` until `ok` holds (bounded by `ms`); returns the last value. */
export async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
