// Pods that write files of their node's disk: the service's host-sync agent (src/kube/host-sync.ts),
// recognised by its command (the simulator knows what that script does, as it knows what kubeadm
// does). Once its container starts it copies each `source=target` of its arguments, in order, from
// what it mounted of its Secret to the node through a writable hostPath volume, then it is Ready and
// idles. One that cannot (a source it did not get, a target outside a writable hostPath) stops at that
// pair (set -e) and never becomes Ready; the files written before stay.
import { isDeepStrictEqual } from 'node:util';
import { HOST_SYNC_COMMAND } from '../../src/bootstrap/host-sync.js';
import { terminating } from './disruption.js';
import { volumeAt, type Container, type PodMounts } from './mounts.js';
import type { Obj, ObjectStore } from './store.js';

const isAgent = (c: Container): boolean => isDeepStrictEqual(c.command, [...HOST_SYNC_COMMAND]);

export class HostAgents {
  /** Pod uid → whether its copies all succeeded. */
  private readonly ran = new Map<string, boolean>();

  /**
   * Runs the agents whose containers started since the last pass on a node whose files `filesOf`
   * gives (a live one); true when a node's files changed.
   */
  run(store: ObjectStore, mounts: PodMounts, filesOf: (node: string) => Record<string, string> | undefined): boolean {
    let changed = false;
    const seen = new Set<string>();
    for (const p of store.peekList('', 'pods')) {
      const uid = p.metadata.uid ?? '';
      const spec = p.spec as { nodeName?: string; containers?: Container[] } | undefined;
      const agent = spec?.containers?.find(isAgent);
      if (!agent || !spec?.nodeName || terminating(p)) continue;
      seen.add(uid);
      if (this.ran.has(uid)) continue;
      const files = filesOf(spec.nodeName);
      if (!files) continue;
      const pairs = (agent.args ?? []).slice(1);
      // Its container starts once it has its Secret.
      if (pairs.some((pair) => volumeAt(p, agent, pair.split('=')[0]!)?.volume.secret && mounts.file(p, agent, pair.split('=')[0]!) === undefined)) continue;
      let ok = true;
      for (const pair of pairs) {
        const i = pair.indexOf('=');
        const content = i > 0 ? mounts.file(p, agent, pair.slice(0, i)) : undefined;
        const target = i > 0 ? volumeAt(p, agent, pair.slice(i + 1)) : undefined;
        const host = target?.volume.hostPath && !target.readOnly ? `${target.volume.hostPath.path.replace(/\/$/, '')}/${target.rest}` : undefined;
        if (content === undefined || !host) {
          ok = false;
          break;
        }
        if (files[host] !== content) {
          files[host] = content;
          changed = true;
        }
      }
      this.ran.set(uid, ok);
    }
    for (const uid of this.ran.keys()) if (!seen.has(uid)) this.ran.delete(uid);
    return changed;
  }

  /** An agent's pod is Ready once its copies succeeded; undefined for other pods. */
  ready(pod: Obj | undefined): boolean | undefined {
    const containers = (pod?.spec as { containers?: Container[] } | undefined)?.containers ?? [];
    if (!pod || !containers.some(isAgent)) return undefined;
    return this.ran.get(pod.metadata.uid ?? '') === true;
  }
}
