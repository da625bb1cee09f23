// A node group's nodes as they are now (the API's node list: the cluster's records checked against Nova):
// name, role, zone, status, addresses, age, and for worker groups "Remove" (a confirm, then the resize with
// nodes_to_remove). Read again whenever the live cluster changes, so a removed or replaced node goes.
import { useEffect, useState } from 'preact/hooks';
import { api, must, type ClusterLive, type Schemas } from '../api';
import type { Scope } from '../session';
import { AcceptedNote, useAccepted } from '../ui/accepted';
import { ago, Badge, Cli, Dialog, Notice, WriteButton } from '../ui/components';
import { shq } from '../ui/shell';

type Group = ClusterLive['nodegroups'][number];
type Nodes = Schemas['NodeGroupNodes'];
type Node = Nodes['nodes'][number];

/** What changes when the group's nodes may have: the stream's view of the cluster and the group. */
const changeKey = (c: ClusterLive, g: Group) =>
  JSON.stringify([c.updated_at, c.status, g.node_count, g.status, g.node_addresses, c.servers.map((s) => s.id), c.conditions.workers?.message, c.conditions.control_plane?.message]);

export function GroupNodes({ c, g, scope, busy }: { c: ClusterLive; g: Group; scope: Scope; busy: boolean }) {
  const [nodes, setNodes] = useState<Nodes | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [removing, setRemoving] = useState<Node | undefined>();
  const [msg, setMsg] = useState<{ kind: 'error'; text: string } | undefined>();
  const progress = useAccepted(c.status);
  const key = changeKey(c, g);
  useEffect(() => {
    let live = true;
    must(api.GET('/v1/clusters/{cluster}/nodegroups/{nodegroup}/nodes', { params: { path: { cluster: c.uuid, nodegroup: g.uuid } } })).then(
      (n) => live && (setNodes(n), setError(undefined)),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [c.uuid, g.uuid, key]);
  const worker = g.role !== 'master';
  const atMin = g.node_count <= g.min_node_count;
  const why = busy ? 'Wait for the current operation to finish.' : atMin ? `The group is at its minimum (${g.min_node_count} node(s)).` : undefined;
  const id = `nodes-${g.name}`;
  async function remove(n: Node) {
    setRemoving(undefined);
    setMsg(undefined);
    progress.clear();
    try {
      await must(api.POST('/v1/clusters/{ident}/actions/resize', { params: { path: { ident: c.uuid } }, body: { node_count: g.node_count - 1, nodegroup: g.uuid, nodes_to_remove: [n.name] } }));
      progress.accept(`removal of ${n.name}`);
    } catch (e) {
      setMsg({ kind: 'error', text: (e as Error).message });
    }
  }
  return (
    <section class="group-nodes" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Nodes of {g.name}</h3>
      {!nodes && !error && <p role="status">Listing the nodes…</p>}
      {error && <Notice kind="error">{error}</Notice>}
      {nodes && nodes.unreachable.length > 0 && <Notice kind="warn">Nova did not answer: these are the cluster’s records alone, without status; some may be gone.</Notice>}
      {nodes && nodes.nodes.length === 0 && <p class="empty">No nodes.</p>}
      {nodes && nodes.nodes.length > 0 && (
        <div class="table-wrap">
          <table id={id}>
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">Role</th>
                <th scope="col">Zone</th>
                <th scope="col">Status</th>
                <th scope="col">Address</th>
                <th scope="col">Age</th>
                {worker && <th scope="col">Change</th>}
              </tr>
            </thead>
            <tbody>
              {nodes.nodes.map((n) => (
                <tr key={n.id}>
                  <th scope="row" class="mono">{n.name}</th>
                  <td>{n.role === 'control-plane' ? 'control plane' : 'worker'}</td>
                  <td>{n.availability_zone ?? '—'}</td>
                  <td>
                    {n.status ? <Badge status={n.status} /> : 'unknown'}
                    {n.fault && <span class="sub"> {n.fault}</span>}
                  </td>
                  <td class="mono">{n.addresses.join(', ') || '—'}</td>
                  <td title={n.created_at}>{ago(n.created_at)}</td>
                  {worker && (
                    <td>
                      <WriteButton id={`${id}-remove-${n.name}`} canWrite={scope.can_write} disabled={!!why} aria-label={`Remove ${n.name}`} onClick={() => setRemoving(n)}>
                        Remove
                      </WriteButton>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {worker && scope.can_write && why && nodes && nodes.nodes.length > 0 && (
        <p class="why" id={`${id}-why`}>
          Remove is off: {why}
        </p>
      )}
      <AcceptedNote accepted={progress.accepted} status={c.status} reason={c.status_reason} />
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      <Dialog title={`Remove node ${removing?.name ?? ''}?`} open={removing !== undefined} onClose={() => setRemoving(undefined)}>
        {removing && (
          <>
            <p>
              The node is drained, its server deleted, and {g.name} goes from {g.node_count} to {g.node_count - 1} node(s).
            </p>
            <Cli cmd={`openstack coe cluster resize ${shq(c.name)} --nodegroup ${shq(g.name)} --nodes-to-remove ${shq(removing.name)} ${g.node_count - 1}`} />
            <div class="buttons">
              <button type="button" class="secondary" onClick={() => setRemoving(undefined)}>
                Cancel
              </button>
              <button type="button" class="danger" id={`${id}-confirm`} onClick={() => void remove(removing)}>
                Remove {removing.name}
              </button>
            </div>
          </>
        )}
      </Dialog>
    </section>
  );
}
