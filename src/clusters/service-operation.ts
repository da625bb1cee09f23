// What became of an operation the service starts by itself (auto-healing's repair, the autoscaler's resize):
// they go through the one beginOperation the API uses, with origin `service`, so only a settled cluster with
// nothing else running takes one; the health pass notes why not otherwise.
import type { Begun } from '../operations/begin.js';

/** Undefined when queued; otherwise why not (the cluster is gone, not settled, or busy). */
export function serviceOutcome<T>(begun: Begun<T>): string | undefined {
  switch (begun.outcome) {
    case 'started':
      return undefined;
    case 'gone':
      return 'the cluster is gone';
    case 'refused':
      return begun.why === 'state' ? `the cluster is ${begun.status}` : 'another operation runs';
    default:
      return `the cluster's operation is ${begun.outcome}`;
  }
}
