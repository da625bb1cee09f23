// A minimal JSON-over-HTTP call with a timeout, shared by the Keystone clients.

export class UnreachableError extends Error {}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function callJson(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: unknown; timeoutMs: number },
): Promise<JsonResponse> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method,
      headers: {
        accept: 'application/json',
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (e) {
    throw new UnreachableError(`${init.method} ${url}: ${(e as Error).message}`);
  }
  const text = await res.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (res.status >= 500) throw new UnreachableError(`${init.method} ${url}: HTTP ${res.status}`);
  return { status: res.status, headers: res.headers, body };
}
