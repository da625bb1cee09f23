// A container's health check where no curl is: `node dist/src/probe.js <url>` exits 0 when the URL
// answers 2xx within 3 s, 1 otherwise (one line saying why). docker-compose.yml probes the API's
// /readyz, a worker's WORKER_HEALTH_PORT and the simulator's Keystone with it.
const url = process.argv[2];
if (!url || !/^https?:\/\//.test(url)) {
  console.error('usage: node dist/src/probe.js <http(s) URL>');
  process.exit(2);
}
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
  await res.body?.cancel();
  if (!res.ok) {
    console.error(`${url}: HTTP ${res.status}`);
    process.exit(1);
  }
} catch (e) {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  console.error(`${url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  process.exit(1);
}
