// One cluster's life in the soak: create, resize, upgrade, delete, each asked of a random API
// process and followed until it settles; about one life in ten has its upgrade overtaken by the
// delete. Its shape and choices come from its own seeded stream, so a seed replays the same lives
// whatever order they end in. Every step checks what the API says and what the cloud holds.
import { SeededRandom } from '../../cloudsim/common/clock.js';
import type { Fleet } from '../../test/support/fleet/index.js';
import type { SoakClient } from './client.js';

export interface LifeContext {
  fleet: Fleet;
  client: SoakClient;
  templates: { from: string; to: string };
  projectId: string;
  /** Longest wait for one operation to settle (ms). */
  stepTimeoutMs: number;
  pollMs: number;
  tag: string;
  /** Called as each operation is accepted (the run's progress, for the chaos' set points). */
  onAccepted?: () => void;
}

export interface StepRecord {
  kind: 'create' | 'resize' | 'upgrade' | 'delete';
  /** When the API accepted it (ms since the life began) and how long it took to settle. */
  acceptedMs?: number;
  settledMs?: number;
  /** The write was tried again after an ambiguous failure. */
  retried?: boolean;
  outcome?: string;
}

export interface LifeResult {
  index: number;
  name: string;
  uuid?: string;
  shape: { masters: number; workers: number; resizeTo: number; overtake: boolean };
  steps: StepRecord[];
  /** Undefined when every step converged as expected. */
  failure?: string;
  /** After a failure: the cluster's last events. */
  events?: string[];
  /** After a failure: whether the cluster was deleted all the same. */
  cleanup?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function lifePlan(seed: number, index: number): LifeResult['shape'] {
  const rnd = new SeededRandom(seed * 1_000_003 + index);
  const masters = rnd.chance(0.2) ? 3 : 1;
  const workers = 1 + Math.floor(rnd.random() * 2);
  const resizeTo = workers > 1 && rnd.chance(0.5) ? workers - 1 : workers + 1;
  return { masters, workers, resizeTo, overtake: rnd.chance(0.1) };
}

export async function life(ctx: LifeContext, seed: number, index: number): Promise<LifeResult> {
  const shape = lifePlan(seed, index);
  // The calls' own stream (which API process, ...), apart from the shape's.
  const rnd = new SeededRandom(seed * 7_000_003 + index);
  const name = `${ctx.tag}-${index}`;
  const result: LifeResult = { index, name, shape, steps: [] };
  const began = Date.now();
  const step = (kind: StepRecord['kind']): StepRecord => {
    const s: StepRecord = { kind };
    result.steps.push(s);
    return s;
  };
  try {
    // Create. A create whose answer was lost may exist: look it up by name before asking again.
    const create = step('create');
    for (;;) {
      const r = await ctx.client.call(rnd, 'demo', 'POST', '/v1/clusters', { name, cluster_template_id: ctx.templates.from, master_count: shape.masters, node_count: shape.workers });
      if (r.status === 202) {
        result.uuid = r.body.uuid as string;
        break;
      }
      if (r.ambiguous) create.retried = true;
      const found = await byName(ctx, rnd, name);
      if (found) {
        result.uuid = found;
        break;
      }
      throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
    }
    create.acceptedMs = Date.now() - began;
    ctx.onAccepted?.();
    await settle(ctx, rnd, result, create, 'CREATE_COMPLETE', began);
    await expectServers(ctx, result, shape.masters + shape.workers, 'after the create');

    const resize = step('resize');
    await write(ctx, rnd, result, resize, 'POST', `/v1/clusters/${result.uuid}/actions/resize`, { node_count: shape.resizeTo }, began);
    await settle(ctx, rnd, result, resize, 'UPDATE_COMPLETE', began);
    await expectServers(ctx, result, shape.masters + shape.resizeTo, 'after the resize');

    const upgrade = step('upgrade');
    await write(ctx, rnd, result, upgrade, 'POST', `/v1/clusters/${result.uuid}/actions/upgrade`, { cluster_template: ctx.templates.to, max_batch_size: 1 }, began);
    if (!shape.overtake) {
      const c = await settle(ctx, rnd, result, upgrade, 'UPDATE_COMPLETE', began);
      if (c.cluster_template_id !== ctx.templates.to) throw new Error(`upgrade settled on template ${c.cluster_template_id}, not ${ctx.templates.to}`);
      await expectServers(ctx, result, shape.masters + shape.resizeTo, 'after the upgrade');
    } else {
      upgrade.outcome = 'overtaken by the delete';
    }

    const del = step('delete');
    for (;;) {
      const r = await ctx.client.call(rnd, 'demo', 'DELETE', `/v1/clusters/${result.uuid}`);
      if (r.status === 204 || r.status === 404) break;
      throw new Error(`delete: ${r.status} ${JSON.stringify(r.body)}`);
    }
    del.acceptedMs = Date.now() - began;
    ctx.onAccepted?.();
    const end = Date.now() + ctx.stepTimeoutMs;
    for (;;) {
      const r = await ctx.client.call(rnd, 'demo', 'GET', `/v1/clusters/${result.uuid}`);
      if (r.status === 404) break;
      if (r.body?.status === 'DELETE_FAILED') throw new Error(`delete failed: ${r.body.status_reason}`);
      if (Date.now() > end) throw new Error(`delete: still ${r.body?.status} after ${ctx.stepTimeoutMs} ms`);
      await sleep(ctx.pollMs);
    }
    del.settledMs = Date.now() - began;
    del.outcome = 'gone';
    await expectServers(ctx, result, 0, 'after the delete');
  } catch (e) {
    result.failure = (e as Error).message;
    // What the cluster was doing, before its delete takes its events with it.
    if (result.uuid) {
      const ev = await ctx.client.call(rnd, 'demo', 'GET', `/v1/clusters/${result.uuid}/events?limit=1000`).catch(() => undefined);
      const list = (ev?.body?.events ?? []) as { at: string; type: string; reason: string; message: string }[];
      result.events = list.slice(-12).map((x) => `${x.at} ${x.type} ${x.reason}: ${x.message}`);
      // And each of its servers' kubeadm, when one did not join.
      const agents = (await ctx.fleet.admin('GET', `/kube/agents?project_id=${ctx.projectId}`).catch(() => ({ agents: [] }))) as { agents: { nodeName: string; state: string; attempts: number; lastError?: string }[] };
      const prefix = `${name}-${result.uuid.slice(0, 5)}-`;
      result.events.push(...agents.agents.filter((a) => a.nodeName.startsWith(prefix) && a.state !== 'joined').map((a) => `kubeadm ${a.nodeName}: ${a.state} after ${a.attempts} attempts${a.lastError ? `: ${a.lastError}` : ''}`));
    }
    // The cluster still goes: the leftovers then also prove the delete of a cluster that failed.
    if (result.uuid) result.cleanup = await cleanup(ctx, rnd, result.uuid).catch((e2: Error) => `cleanup failed: ${e2.message}`);
  }
  return result;
}

async function cleanup(ctx: LifeContext, rnd: SeededRandom, uuid: string): Promise<string> {
  const end = Date.now() + ctx.stepTimeoutMs;
  let last = '';
  for (;;) {
    const r = await ctx.client.call(rnd, 'demo', 'GET', `/v1/clusters/${uuid}`);
    if (r.status === 404) return 'deleted';
    last = `${r.body?.status} ${r.body?.status_reason ?? ''}`;
    if (!String(r.body?.status).startsWith('DELETE_IN')) await ctx.client.call(rnd, 'demo', 'DELETE', `/v1/clusters/${uuid}`);
    if (Date.now() > end) return `not deleted: ${last}`;
    await sleep(ctx.pollMs);
  }
}

/** The uuid of the project's cluster named `name`, if one exists. */
async function byName(ctx: LifeContext, rnd: SeededRandom, name: string): Promise<string | undefined> {
  const r = await ctx.client.call(rnd, 'demo', 'GET', '/v1/clusters?limit=1000');
  return (r.body?.clusters as { uuid: string; name: string }[] | undefined)?.find((c) => c.name === name)?.uuid;
}

/**
 * A resize or upgrade: 202 is accepted. After an ambiguous failure, a 409 naming an operation in
 * progress, or the cluster already updating, means an earlier try took.
 */
async function write(ctx: LifeContext, rnd: SeededRandom, result: LifeResult, s: StepRecord, method: string, path: string, body: unknown, began: number): Promise<void> {
  for (;;) {
    const r = await ctx.client.call(rnd, 'demo', method, path, body);
    if (r.status === 202) break;
    if (r.ambiguous) {
      s.retried = true;
      const c = await ctx.client.call(rnd, 'demo', 'GET', `/v1/clusters/${result.uuid}`);
      if (r.status === 409 && c.body?.status === 'UPDATE_IN_PROGRESS') break;
    }
    throw new Error(`${s.kind}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  s.acceptedMs = Date.now() - began;
  ctx.onAccepted?.();
}

/** Polls the cluster until it leaves *_IN_PROGRESS; it must then be `want`. */
async function settle(ctx: LifeContext, rnd: SeededRandom, result: LifeResult, s: StepRecord, want: string, began: number): Promise<Record<string, any>> {
  const end = Date.now() + ctx.stepTimeoutMs;
  for (;;) {
    const r = await ctx.client.call(rnd, 'demo', 'GET', `/v1/clusters/${result.uuid}`);
    if (r.status !== 200) throw new Error(`${s.kind}: GET answered ${r.status} ${JSON.stringify(r.body)}`);
    const status = String(r.body.status);
    if (!status.endsWith('_IN_PROGRESS')) {
      s.settledMs = Date.now() - began;
      s.outcome = status;
      if (status !== want) throw new Error(`${s.kind} settled ${status}: ${r.body.status_reason}`);
      return r.body as Record<string, any>;
    }
    if (Date.now() > end) throw new Error(`${s.kind}: still ${status} after ${ctx.stepTimeoutMs} ms`);
    await sleep(ctx.pollMs);
  }
}

/** The cloud's truth: the cluster's live servers in the simulator's audit. */
async function expectServers(ctx: LifeContext, result: LifeResult, want: number, when: string): Promise<void> {
  const audit = (await ctx.fleet.admin('GET', `/audit?project_id=${ctx.projectId}`)) as { projects: { resources: { type: string; tags?: string[] }[] }[] };
  const tag = `magnum-cluster=${result.uuid}`;
  const live = audit.projects.flatMap((p) => p.resources).filter((r) => r.type === 'server' && (r.tags ?? []).includes(tag)).length;
  if (live !== want) throw new Error(`${when}: the cloud holds ${live} servers of the cluster, not ${want}`);
}
