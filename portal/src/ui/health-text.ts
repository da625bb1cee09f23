// The health step as words: the worker's check (Magnum's health_status_reason, {"api": "ok",
// "<node>.Ready": "True", ...}) said as a sentence about the nodes that exist now, and when it is older
// than the cluster's last change, said so: a node replaced since the check is not named.
import { fmtTime } from './components';

interface Condition {
  message: string;
  since: string;
}

function parse(message: string): Record<string, string> | undefined {
  try {
    const v = JSON.parse(message) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `health`: the condition; `servers`: the cluster's servers now (their names are the node names); `changedAt`: when another
 * condition last changed; `busy`: an operation is running (the check waits for it).
 */
export function healthText(health: Condition, servers: string[], changedAt: string | undefined, busy: boolean): string {
  const r = parse(health.message);
  if (!r) return health.message;
  const now = new Set(servers);
  const parts: string[] = [];
  if (r.api !== undefined) parts.push(r.api === 'ok' ? 'The API answers.' : `The API does not answer: ${r.api}.`);
  const nodes = Object.entries(r).filter(([k]) => k.endsWith('.Ready')).map(([k, v]) => [k.slice(0, -'.Ready'.length), String(v)] as const);
  const current = nodes.filter(([n]) => now.size === 0 || now.has(n));
  if (current.length > 0) {
    const notReady = current.filter(([, v]) => v !== 'True');
    parts.push(`${current.length - notReady.length} of ${current.length} node${current.length === 1 ? '' : 's'} Ready.`);
    if (notReady.length > 0) parts.push(`Not Ready: ${notReady.map(([n, v]) => `${n} (${v === 'False' ? 'not ready' : 'unknown'})`).join(', ')}.`);
  }
  const gone = nodes.length - current.length;
  if (gone > 0) parts.push(`${gone} node${gone === 1 ? '' : 's'} it checked ${gone === 1 ? 'has' : 'have'} been replaced or removed since.`);
  for (const [k, label] of [['auto_healing', 'Auto-healing'], ['auto_scaling', 'Auto-scaling']] as const) if (r[k]) parts.push(`${label}: ${r[k]}.`);
  const text = parts.join(' ') || 'Checked.';
  if (busy) return `Not checked while the cluster changes; the last check (${fmtTime(health.since)}) found: ${text}`;
  if (changedAt && Date.parse(changedAt) > Date.parse(health.since)) return `Checked before the last change (${fmtTime(health.since)}); the next check follows. It found: ${text}`;
  return text;
}
