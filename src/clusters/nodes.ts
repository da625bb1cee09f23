// A cluster's servers as they are now: the resource ledger's live server rows (what the workers made
// and have not seen go) checked against Nova, asked with the caller's token for the servers carrying
// the cluster's tag. A server Nova no longer has is gone, whatever the ledger still says (a replaced or
// removed node); one Nova has that the ledger lacks (made, then a crash before it was recorded) is
// there. When Nova does not answer, the ledger alone, with no status. Read by the node list of a node
// group and the delete preview.
import type { ClusterRow } from '../db/entities/cluster.js';
import type { NodeGroupRow } from '../db/entities/nodegroup.js';
import type { ResourceRepo } from '../db/repos/resources.js';
import { shortName } from '../cluster-spec/parse.js';
import type { CallerClouds, CloudCaller } from '../openstack/caller.js';
import type { Server } from '../openstack/nova-servers.js';
import { clusterTag, META } from '../domain/cloud-marks.js';

export interface NodeNow {
  /** Nova's id of the server. */
  id: string;
  /** The server's name, which is its Kubernetes node name too. */
  name: string;
  /** The node group's uuid, from the server's metadata (null when only the ledger answered). */
  nodegroup: string | null;
  role: 'control-plane' | 'worker';
  availability_zone: string | null;
  /** Nova's status (ACTIVE, BUILD, ERROR, SHELVED_OFFLOADED, ...); null when Nova did not answer. */
  status: string | null;
  /** Nova's fault message of a server in ERROR. */
  fault: string | null;
  /** IPv4 addresses: floating first, then fixed. */
  addresses: string[];
  /** When the server was made (the ledger's record, else Nova's). */
  created_at: string;
  /** Where the node is known from: both, or only one of them. */
  source: 'ledger' | 'cloud' | 'ledger+cloud';
}

export interface ClusterNodesNow {
  nodes: NodeNow[];
  /** Services that could not be asked ('compute'); the list is then the ledger's alone. */
  unreachable: string[];
}

type Address = { addr: string; version: number; 'OS-EXT-IPS:type'?: string };

function addressesOf(s: Server): string[] {
  const fixed: string[] = [];
  const floating: string[] = [];
  for (const list of Object.values((s.addresses ?? {}) as Record<string, Address[]>)) {
    for (const a of list) if (a.version === 4) (a['OS-EXT-IPS:type'] === 'floating' ? floating : fixed).push(a.addr);
  }
  return [...floating, ...fixed];
}

const roleOf = (metaRole: string | undefined, name: string, short: string): NodeNow['role'] =>
  metaRole === 'init' || metaRole === 'control-plane' || (metaRole === undefined && name.startsWith(`${short}-control-plane-`)) ? 'control-plane' : 'worker';

/** The cluster's servers now (see the head of this file). */
export async function clusterNodesNow(
  deps: { clouds: CallerClouds; ledger: Pick<ResourceRepo, 'live'> },
  who: CloudCaller,
  c: Pick<ClusterRow, 'uuid' | 'name'>,
  onError: (reason: string) => void = () => undefined,
): Promise<ClusterNodesNow> {
  const short = shortName(c.name, c.uuid);
  const rows = await deps.ledger.live(c.uuid, 'server');
  let servers: Server[] | undefined;
  try {
    servers = (await deps.clouds.for(who).servers().list({ tags: [clusterTag(c.uuid)] })).filter((s) => s.status !== 'DELETED' && s.status !== 'SOFT_DELETED');
  } catch (e) {
    onError((e as Error).message);
  }
  if (!servers) {
    const nodes = rows.map((r): NodeNow => {
      const name = r.name ?? r.cloud_id;
      return { id: r.cloud_id, name, nodegroup: null, role: roleOf(undefined, name, short), availability_zone: null, status: null, fault: null, addresses: [], created_at: r.created_at.toISOString(), source: 'ledger' };
    });
    return { nodes, unreachable: ['compute'] };
  }
  const recorded = new Map(rows.map((r) => [r.cloud_id, r]));
  const nodes = servers.map((s): NodeNow => {
    const md = (s.metadata ?? {}) as Record<string, string>;
    const row = recorded.get(s.id);
    return {
      id: s.id,
      name: s.name,
      nodegroup: md[META.nodegroup] ?? null,
      role: roleOf(md[META.role], s.name, short),
      availability_zone: s['OS-EXT-AZ:availability_zone'] ?? null,
      status: s.status,
      fault: s.fault?.message ?? null,
      addresses: addressesOf(s),
      created_at: (row?.created_at ?? new Date(s.created)).toISOString(),
      source: row ? 'ledger+cloud' : 'cloud',
    };
  });
  nodes.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.name.localeCompare(b.name));
  return { nodes, unreachable: [] };
}

/** Whether a node belongs to the group: by the server's metadata, else (the ledger alone) by its name, `<short>-<group>-<suffix>`. */
export function inGroup(n: NodeNow, g: Pick<NodeGroupRow, 'uuid' | 'name' | 'role' | 'is_default'>, c: Pick<ClusterRow, 'uuid' | 'name'>): boolean {
  if (n.nodegroup !== null) return n.nodegroup === g.uuid;
  const label = g.role === 'master' ? 'control-plane' : g.is_default ? 'worker' : g.name;
  const slug = label.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 20).replace(/-+$/, '') || 'nodes';
  return new RegExp(`^${shortName(c.name, c.uuid)}-${slug}-[a-z0-9]{5}$`).test(n.name);
}
