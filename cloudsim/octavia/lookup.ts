// How the Octavia routes find what a call names: an object of a kind the caller may see (404 in
// Octavia's words otherwise) and the load balancer a child hangs from.
import { SimError } from '../common/errors.js';
import type { SimCaller } from '../common/keystone-auth.js';
import { KIND_NAMES, type AnyObject, type Kind, type LoadBalancer, type OctaviaState } from './state.js';

export type Caller = SimCaller & { projectId: string };

/** A route's path parameters. */
export type P<T extends string> = { Params: Record<T, string> };

/** Admins see every project's objects, others their own project's. */
export const visible = (c: Caller, o: { project_id: string }): boolean => c.isAdmin || o.project_id === c.projectId;

export function find<T extends AnyObject>(s: OctaviaState, kind: Kind, id: string, c: Caller): T {
  const o = s.map(kind).get(id);
  if (!o || !visible(c, o)) throw new SimError(404, `${KIND_NAMES[kind]} ${id} not found.`);
  return o as T;
}

/** The load balancer a child belongs to (children go with it, so it is there). */
export const lbOf = (s: OctaviaState, o: { loadbalancer_id: string }): LoadBalancer => s.loadbalancers.get(o.loadbalancer_id)!;
