// Live data over Server-Sent Events: the project's clusters (a snapshot, then changes) and one
// cluster (its state and event timeline). EventSource reconnects by itself; a stream refused with
// 401 means the session is gone. Streams open in layout effects: at once after the render, not
// after the next frame.
import { useLayoutEffect, useState } from 'preact/hooks';
import { onSessionLost, portal, stream, type ClusterLive, type ClusterSummary, type Schemas } from './api';

export type TimelineEvent = NonNullable<Schemas['ClusterEvents']['events']>[number];

async function checkSession(): Promise<void> {
  if (!(await portal.session())) onSessionLost.handler();
}

/**
 * The project's clusters, live. Changes that arrive together (a batch of `cluster` and `deleted`
 * events) are applied in one update on the next turn: one copy of the map and one render for the
 * batch, not one per event. `when` false: not yet (the page needs something else first).
 */
export function useClusterList(project: string, when = true): { clusters: Map<string, ClusterSummary> | undefined; live: boolean } {
  const [clusters, setClusters] = useState<Map<string, ClusterSummary> | undefined>();
  const [live, setLive] = useState(false);
  useLayoutEffect(() => {
    if (!when) return;
    const es = stream('/v1/streams/clusters');
    let pending: (ClusterSummary | string)[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const apply = () => {
      timer = undefined;
      const changes = pending;
      pending = [];
      if (changes.length === 0) return;
      setClusters((m) => {
        const n = new Map(m ?? []);
        for (const c of changes) {
          if (typeof c === 'string') n.delete(c);
          else n.set(c.uuid, c);
        }
        return n;
      });
    };
    const change = (c: ClusterSummary | string) => {
      pending.push(c);
      timer ??= setTimeout(apply, 0);
    };
    es.addEventListener('open', () => setLive(true));
    es.addEventListener('error', () => {
      setLive(false);
      if (es.readyState === EventSource.CLOSED) void checkSession();
    });
    es.addEventListener('snapshot', (e) => {
      const data = JSON.parse((e as MessageEvent).data) as { clusters: ClusterSummary[] };
      // The snapshot supersedes what came before it.
      pending = [];
      setClusters(new Map(data.clusters.map((c) => [c.uuid, c])));
    });
    es.addEventListener('cluster', (e) => change(JSON.parse((e as MessageEvent).data) as ClusterSummary));
    es.addEventListener('deleted', (e) => change((JSON.parse((e as MessageEvent).data) as { uuid: string }).uuid));
    es.addEventListener('expired', () => {
      es.close();
      void checkSession();
    });
    return () => {
      clearTimeout(timer);
      es.close();
    };
  }, [project, when]);
  return { clusters, live };
}

export interface LiveCluster {
  cluster: ClusterLive | undefined;
  events: TimelineEvent[];
  deleted: boolean;
  missing: boolean;
  live: boolean;
}

export function useCluster(project: string, id: string): LiveCluster {
  const [state, setState] = useState<LiveCluster>({ cluster: undefined, events: [], deleted: false, missing: false, live: false });
  useLayoutEffect(() => {
    setState({ cluster: undefined, events: [], deleted: false, missing: false, live: false });
    const es = stream(`/v1/streams/clusters/${encodeURIComponent(id)}`);
    let opened = false;
    es.addEventListener('open', () => {
      opened = true;
      setState((s) => ({ ...s, live: true }));
    });
    es.addEventListener('error', () => {
      setState((s) => ({ ...s, live: false, missing: !opened && es.readyState === EventSource.CLOSED }));
      if (es.readyState === EventSource.CLOSED) void checkSession();
    });
    es.addEventListener('cluster', (e) => setState((s) => ({ ...s, cluster: JSON.parse((e as MessageEvent).data) as ClusterLive })));
    es.addEventListener('events', (e) => {
      const more = JSON.parse((e as MessageEvent).data) as TimelineEvent[];
      setState((s) => ({ ...s, events: [...s.events.filter((x) => !more.some((m) => m.id === x.id)), ...more] }));
    });
    es.addEventListener('deleted', () => {
      setState((s) => ({ ...s, deleted: true }));
      es.close();
    });
    es.addEventListener('expired', () => {
      es.close();
      void checkSession();
    });
    return () => es.close();
  }, [project, id]);
  return state;
}

export const CONDITION_ORDER = ['network', 'security_groups', 'api_lb', 'control_plane', 'workers', 'addons'];
export const CONDITION_NAMES: Record<string, string> = {
  network: 'Network',
  security_groups: 'Security groups',
  api_lb: 'API load balancer',
  control_plane: 'Control plane',
  workers: 'Workers',
  addons: 'Add-ons',
  health: 'Health',
};

/** The step a busy cluster waits on, and how many steps are done. */
export function progressOf(c: Pick<ClusterSummary, 'conditions'>): { done: number; total: number; waiting: string | undefined; message: string | undefined } {
  const steps = CONDITION_ORDER.filter((k) => c.conditions[k]);
  const done = steps.filter((k) => c.conditions[k]!.status === 'True').length;
  const next = steps.find((k) => c.conditions[k]!.status !== 'True');
  return { done, total: steps.length, waiting: next, message: next ? c.conditions[next]!.message : undefined };
}
