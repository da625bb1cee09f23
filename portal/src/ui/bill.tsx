// The bill of a change before it is sent: the API's dry-run (POST /v1/dry-run/...) of the same request,
// every quota it takes against what the project uses and may use. A shortage blocks the submit and names
// the quota; another refusal the real call would give is shown; label warnings are listed.
import { useEffect, useState } from 'preact/hooks';
import type { DryRun } from '../api';
import { mib, Notice } from './components';

type Line = DryRun['bill'][number];

const NAMES: Record<string, string> = {
  clusters: 'Clusters (Magnum)',
  instances: 'Servers (Nova instances)',
  cores: 'vCPUs (Nova cores)',
  ram: 'RAM (Nova)',
  server_groups: 'Server groups (Nova)',
  server_group_members: 'Servers in one server group (Nova)',
  volumes: 'Volumes (Cinder)',
  gigabytes: 'Volume storage (Cinder gigabytes)',
  network: 'Networks (Neutron)',
  subnet: 'Subnets (Neutron)',
  router: 'Routers (Neutron)',
  port: 'Ports (Neutron)',
  floatingip: 'Floating IPs (Neutron)',
  security_group: 'Security groups (Neutron)',
  security_group_rule: 'Security group rules (Neutron)',
  load_balancer: 'Load balancers (Octavia)',
  listener: 'Listeners (Octavia)',
  pool: 'Pools (Octavia)',
  member: 'Pool members (Octavia)',
  health_monitor: 'Health monitors (Octavia)',
  zone_recordsets: 'DNS records in the zone (Designate)',
  secrets: 'Secrets (Barbican)',
};

export const quotaName = (q: string) => NAMES[q] ?? q;
const amount = (l: Line, n: number) => (l.quota === 'ram' ? mib(n) : l.quota === 'gigabytes' ? `${n} GB` : String(n));

/** The quotas a dry-run finds short, named as the table names them. */
export const shortOf = (a: DryRun | undefined): Line[] => a?.bill.filter((l) => l.short) ?? [];

/** Why the submit is blocked (a shortage), or undefined. */
export function blockedBy(a: DryRun | undefined): string | undefined {
  const short = shortOf(a);
  if (short.length === 0) return undefined;
  return `Not enough quota: ${short.map((l) => `${quotaName(l.quota)} needs ${amount(l, l.needed)}, ${l.limit === null ? '' : `${amount(l, Math.max(0, l.limit - (l.in_use ?? 0)))} left`}`).join('; ')}.`;
}

/** What else the real call would refuse (not a quota short): its message, or undefined. */
export function refusalOf(a: DryRun | undefined): string | undefined {
  if (!a || a.accepted || shortOf(a).length > 0) return undefined;
  return a.errors[0]?.detail ?? a.errors[0]?.title ?? 'The service refuses it.';
}

export interface DryRunState {
  answer?: DryRun;
  error?: string;
  loading: boolean;
  refresh(): void;
}

/** Runs `dry` (when given) whenever `key` changes, and again on refresh(). */
export function useDryRun(dry: (() => Promise<DryRun>) | undefined, key: string): DryRunState {
  const [state, setState] = useState<{ answer?: DryRun; error?: string; loading: boolean }>({ loading: false });
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!dry) return setState({ loading: false });
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    dry().then(
      (answer) => live && setState({ answer, loading: false }),
      (e: Error) => live && setState({ error: e.message, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [key, round, !!dry]);
  return { ...state, refresh: () => setRound((n) => n + 1) };
}

/** The bill as a table: the quotas the change takes (all of them with `all`), then what stops it, if anything. */
export function BillPanel(props: { id: string; title: string; what: string; state: DryRunState; all?: boolean }) {
  const { answer, error, loading, refresh } = props.state;
  const lines = answer?.bill.filter((l) => l.needed > 0 || l.short || props.all) ?? [];
  const short = shortOf(answer);
  const refusal = refusalOf(answer);
  return (
    <section class="bill-panel" aria-labelledby={`${props.id}-title`} aria-busy={loading ? 'true' : 'false'}>
      <div class="page-head">
        <h3 id={`${props.id}-title`}>{props.title}</h3>
        <button type="button" class="secondary" id={`${props.id}-refresh`} onClick={refresh} disabled={loading}>
          {loading ? 'Checking…' : 'Check again'}
        </button>
      </div>
      {error && <Notice kind="warn">The quotas could not be checked: {error}</Notice>}
      {answer && !answer.checked && answer.accepted && <Notice kind="info">This service does not ask the cloud for its quotas: the {props.what} is checked when it runs.</Notice>}
      {answer && !answer.checked && !answer.accepted && <p class="sub">The quotas were not weighed: the {props.what} is refused before that (below).</p>}
      {answer && lines.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Quota</th>
                <th scope="col">This {props.what} takes</th>
                <th scope="col">In use</th>
                <th scope="col">Limit</th>
                <th scope="col">Fits</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l) => (
                <tr key={l.quota} class={l.short ? 'short' : undefined}>
                  <th scope="row">
                    {quotaName(l.quota)}
                    {l.per ? <span class="sub"> (limit per {l.per})</span> : null}
                  </th>
                  <td>{amount(l, l.needed)}</td>
                  <td>{l.in_use === null ? '—' : amount(l, l.in_use)}</td>
                  <td>{l.limit === null ? 'not reported' : l.limit < 0 ? 'unlimited' : amount(l, l.limit)}</td>
                  <td>
                    {l.short ? (
                      <strong class="over">
                        <span aria-hidden="true">✕ </span>short by {amount(l, l.needed + (l.in_use ?? 0) - (l.limit ?? 0))}
                      </strong>
                    ) : l.limit === null ? (
                      <span class="sub">not checked</span>
                    ) : (
                      <span class="fits">
                        <span aria-hidden="true">✓ </span>fits
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {answer && lines.length === 0 && answer.accepted && <p class="sub">It takes nothing more from the project’s quotas.</p>}
      {short.length > 0 && (
        <Notice kind="error">
          <span id={`${props.id}-short`}>
            {blockedBy(answer)} The {props.what} would be refused: ask for a larger quota or make it smaller.
          </span>
        </Notice>
      )}
      {refusal && (
        <Notice kind="error">
          <span id={`${props.id}-refused`}>
            The {props.what} would be refused: {refusal}
          </span>
        </Notice>
      )}
      {answer && answer.warnings.length > 0 && (
        <ul class="warnings" aria-label="Label warnings">
          {answer.warnings.map((w) => (
            <li key={w}>
              <span aria-hidden="true">! </span>
              {w}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
