// Why servers that run do not become Nodes, read from their console logs (src/kube/console.ts):
// looked at while a step waits for them — once a server has run for ninety polls (three minutes by
// default: a healthy node, even one installing Kubernetes, has joined by then), at most every ten polls
// per operation — and
// shown in the waited-on condition, so status_reason names the cause while the create still runs and
// the create's deadline failure keeps it. Best effort: a cloud whose policy hides console logs, or a
// server still building, just gives no finding.
import { bootFinding, type BootFinding } from '../../src/bootstrap/console.js';
import type { RunContext } from '../../src/steps/step.js';
import type { ObservedServer } from './ports.js';

/** Lines of the console's end that are read (the bootstrap's failure line is among its last). */
const CONSOLE_LINES = 200;
/** Servers looked at per pass. */
const PER_PASS = 5;

export interface Diagnosis {
  server: string;
  finding: BootFinding;
}

/** When Nova launched the server (naive UTC), in ms; 0 when it does not say. */
function launchedAt(s: ObservedServer): number {
  const at = (s.server as { 'OS-SRV-USG:launched_at'?: string | null })['OS-SRV-USG:launched_at'];
  const ms = at ? Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(at) ? at : `${at}Z`) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

export async function diagnose(ctx: RunContext, servers: ObservedServer[]): Promise<Diagnosis | undefined> {
  const settled = Date.now() - ctx.pollMs * 90;
  const running = servers.filter((s) => s.server.status === 'ACTIVE' && launchedAt(s) <= settled);
  if (running.length === 0) return undefined;
  const state = await ctx.memoRuns('boot-diagnosis', async () => ({ at: 0, found: new Map<string, BootFinding>() }));
  const known = running.find((s) => state.found.has(s.server.id));
  if (Date.now() - state.at < ctx.pollMs * 10) return known && { server: known.name, finding: state.found.get(known.server.id)! };
  state.at = Date.now();
  const nova = await ctx.cloud().servers();
  for (const s of running.slice(0, PER_PASS)) {
    const log = await nova.consoleOutput(s.server.id, CONSOLE_LINES).catch(() => '');
    const finding = bootFinding(log);
    if (finding) state.found.set(s.server.id, finding);
    else state.found.delete(s.server.id);
  }
  const hit = running.find((s) => state.found.has(s.server.id));
  return hit && { server: hit.name, finding: state.found.get(hit.server.id)! };
}

/** `<message>; server <name>: <finding>` when there is one. */
export function withDiagnosis(message: string, d: Diagnosis | undefined): string {
  return d ? `${message.replace(/\.$/, '')}; server ${d.server}: ${d.finding.message}.` : message;
}
