// `npm run bench -- soak [options]`: the soak of bench/soak/run.ts at full size (100 clusters).
// Options: --seed=20 --clusters=100 --in-flight=20 --workers=3 --apis=2 --concurrency=8
//          --time-scale=0.01 --fault-rate=0.1 --step-timeout=600000 (longest wait for one operation, ms)
//          --short (npm test's size) --keep --json=<file>
// The exit code is 1 when the proof fails (a life did not converge, a duplicate boot, a leftover,
// a crash), 0 otherwise.
import { writeFileSync } from 'node:fs';
import { FULL, runSoak, SHORT, type SoakOptions } from './soak/run.js';

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const num = (name: string, fallback: number): number => {
  const raw = arg(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number >= 0`);
  return n;
};

const base = process.argv.includes('--short') ? SHORT : FULL;
const opts: SoakOptions = {
  ...base,
  seed: num('seed', base.seed),
  clusters: num('clusters', base.clusters),
  inFlight: num('in-flight', base.inFlight),
  apis: num('apis', base.apis),
  workers: num('workers', base.workers),
  workerConcurrency: num('concurrency', base.workerConcurrency),
  timeScale: num('time-scale', base.timeScale),
  faultRate: num('fault-rate', base.faultRate),
  stepTimeoutMs: num('step-timeout', base.stepTimeoutMs),
  keep: process.argv.includes('--keep'),
  log: (line) => console.log(line),
};

const load = async () => (await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ');
console.log(`soak: seed ${opts.seed}, ${opts.clusters} clusters (${opts.inFlight} at once), ${opts.apis} API + ${opts.workers} worker processes; load average before: ${await load()}`);
const report = await runSoak(opts);
const ok = report.lives.failures.length === 0 && report.boots.duplicates === 0 && report.leftovers.cloud.length === 0 && report.chaos.crashes.length === 0
  && report.leftovers.operations === 0 && report.leftovers.clusters === 0 && report.leftovers.queue.jobsOfLiveOperations === 0;
console.log(JSON.stringify(report, null, 2));
console.log(`load average after: ${await load()}`);
console.table({
  'duration (s)': report.durationS,
  'lives converged': `${report.lives.converged} / ${report.lives.total} (${report.lives.overtaken} upgrades overtaken by the delete)`,
  operations: Object.entries(report.operations).map(([k, n]) => `${k} ${n}`).join(', '),
  'faults fired': `${Object.entries(report.faults.hits).map(([k, n]) => `${k} ${n}`).join(', ')} of ${report.faults.calls} calls (${(report.faults.share * 100).toFixed(1)} %)`,
  'worker kills / starts': `${report.chaos.workerKills} / ${report.chaos.workerStarts}`,
  'PostgreSQL, Redis, API restarts': `${report.chaos.postgresRestarts.length}, ${report.chaos.redisRestarts.length}, ${report.chaos.apiKills}`,
  crashes: report.chaos.crashes.length,
  'servers booted / duplicates': `${report.boots.booted} / ${report.boots.duplicates}`,
  'left in the cloud / clusters / operations / queue': `${report.leftovers.cloud.length} / ${report.leftovers.clusters} / ${report.leftovers.operations} / ${report.leftovers.queue.jobsOfLiveOperations}`,
  'worker CPU per cluster (ms)': report.processes.workerCpuMsPerCluster,
});
if (arg('json')) writeFileSync(arg('json')!, JSON.stringify(report, null, 2));
console.log(ok ? 'PASS' : `FAIL${report.dir ? ` (logs in ${report.dir})` : ''}`);
process.exit(ok ? 0 : 1);
