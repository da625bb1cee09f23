// What a write the service accepted is doing now, from the live cluster: accepted and not yet started, in
// progress, complete or failed. The page never says "Done" for a change that is still running.
import { useEffect, useState } from 'preact/hooks';
import { Notice } from './components';

interface Accepted {
  /** e.g. "resize of default-worker to 3". */
  what: string;
  /** The cluster was seen *_IN_PROGRESS since the service accepted it. */
  running: boolean;
}

const RUNNING = /_IN_PROGRESS$/;

/** A write's progress, following `status` (the live cluster's). */
export function useAccepted(status: string) {
  const [a, setA] = useState<Accepted | undefined>();
  useEffect(() => {
    if (a && !a.running && RUNNING.test(status)) setA({ ...a, running: true });
  }, [status, a]);
  return {
    accepted: a,
    /** The service accepted it (202); the cluster may already be in progress. */
    accept: (what: string) => setA({ what, running: RUNNING.test(status) }),
    clear: () => setA(undefined),
  };
}

export function AcceptedNote({ accepted, status, reason }: { accepted: Accepted | undefined; status: string; reason: string | null }) {
  if (!accepted) return null;
  if (!accepted.running || RUNNING.test(status)) {
    return (
      <Notice kind="info">
        <span class="accepted" data-state="running">
          The {accepted.what} is {accepted.running ? `in progress (${status.toLowerCase().replace(/_/g, ' ')})` : 'accepted; waiting for it to start'}.
        </span>
      </Notice>
    );
  }
  if (status.endsWith('_FAILED')) {
    return (
      <Notice kind="error">
        <span class="accepted" data-state="failed">
          The {accepted.what} failed{reason ? `: ${reason}` : '.'}
        </span>
      </Notice>
    );
  }
  return (
    <Notice kind="ok">
      <span class="accepted" data-state="done">
        The {accepted.what} is complete.
      </span>
    </Notice>
  );
}
