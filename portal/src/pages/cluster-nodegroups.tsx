// A cluster's node groups: roles, flavors, counts and bounds; inline resize for worker groups, each
// group's nodes (cluster-nodes.tsx, with remove); add and delete node groups. A resize that adds nodes and a new group show
// their bill first (a shortage blocks them). Readers see all of it, disabled, with why.
import { useState } from 'preact/hooks';
import { api, must, type ClusterLive } from '../api';
import { flavorLabel, useChoices } from '../choices';
import type { Scope } from '../session';
import { BillPanel, blockedBy, refusalOf, useDryRun } from '../ui/bill';
import { AddGroup } from './cluster-nodegroup-add';
import { GroupNodes } from './cluster-nodes';
import { AcceptedNote, useAccepted } from '../ui/accepted';
import { Badge, Cli, Dialog, Notice, WriteButton } from '../ui/components';
import { shq, shqOr } from '../ui/shell';

type Group = ClusterLive['nodegroups'][number];

export function NodeGroups({ c, scope, busy }: { c: ClusterLive; scope: Scope; busy: boolean }) {
  const choices = useChoices(c.project_id);
  const [adding, setAdding] = useState(false);
  return (
    <section aria-labelledby="ng-title">
      <div class="page-head">
        <h2 id="ng-title">Node groups</h2>
        <WriteButton id="ng-add" canWrite={scope.can_write} disabled={busy} onClick={() => setAdding(true)}>
          Add node group
        </WriteButton>
      </div>
      <Cli cmd={`openstack coe nodegroup list ${shq(c.name)}`} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Flavor</th>
              <th scope="col">Nodes</th>
              <th scope="col">Min / max</th>
              <th scope="col">Status</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {c.nodegroups.map((g) => (
              <GroupRow key={g.uuid} c={c} g={g} scope={scope} busy={busy} flavor={flavorLabel(choices, g.flavor_id)} />
            ))}
          </tbody>
        </table>
      </div>
      {c.nodegroups.map((g) => (
        <GroupNodes key={g.uuid} c={c} g={g} scope={scope} busy={busy} />
      ))}
      <Dialog title="Add a node group" open={adding} onClose={() => setAdding(false)}>
        <AddGroup c={c} choices={choices} onDone={() => setAdding(false)} />
      </Dialog>
    </section>
  );
}

function GroupRow({ c, g, scope, busy, flavor }: { c: ClusterLive; g: Group; scope: Scope; busy: boolean; flavor: string }) {
  const [count, setCount] = useState(String(g.node_count));
  const [msg, setMsg] = useState<{ kind: 'error'; text: string } | undefined>();
  const progress = useAccepted(c.status);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const master = g.role === 'master';
  const id = `ng-${g.name}`;
  const run = async (p: Promise<unknown>, what: string) => {
    setMsg(undefined);
    progress.clear();
    try {
      await p;
      progress.accept(what);
    } catch (e) {
      setMsg({ kind: 'error', text: (e as Error).message });
    }
  };
  const resize = (n: number) =>
    run(must(api.POST('/v1/clusters/{ident}/actions/resize', { params: { path: { ident: c.uuid } }, body: { node_count: n, nodegroup: g.uuid } })), `resize of ${g.name} to ${n}`);
  const grows = !master && scope.can_write && !busy && /^\d+$/.test(count) && Number(count) > g.node_count;
  const bill = useDryRun(
    grows ? () => must(api.POST('/v1/dry-run/clusters/{ident}/actions/resize', { params: { path: { ident: c.uuid } }, body: { node_count: Number(count), nodegroup: g.uuid } })) : undefined,
    `${g.uuid}:${count}`,
  );
  // A shortage or another refusal of the dry-run disables Resize, naming why.
  const blocked = grows ? (blockedBy(bill.answer) ?? refusalOf(bill.answer)) : undefined;
  const why = master ? 'Control planes are not resized (Magnum: resizing a master nodegroup is not supported).' : busy ? 'Wait for the current operation to finish.' : blocked;
  return (
    <tr>
      <th scope="row">{g.name}</th>
      <td>{master ? 'control plane' : 'worker'}{g.is_default ? ' (default)' : ''}</td>
      <td>{flavor}</td>
      <td>{g.node_count}</td>
      <td>
        {g.min_node_count} / {g.max_node_count ?? '—'}
      </td>
      <td>
        <Badge status={g.status} />
      </td>
      <td class="change">
        {master ? (
          <span class="why">{why}</span>
        ) : (
          <>
            <form
              class="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                void resize(Number(count));
              }}
            >
              <label for={`${id}-count`}>Nodes</label>
              <input id={`${id}-count`} type="number" min={g.min_node_count} max={g.max_node_count ?? undefined} value={count} disabled={!scope.can_write || busy} onInput={(e) => setCount((e.target as HTMLInputElement).value)} />
              <WriteButton id={`${id}-resize`} canWrite={scope.can_write} reason={!scope.can_write ? undefined : why} disabled={busy || Number(count) === g.node_count || !!blocked || (grows && bill.loading)} type="submit">
                Resize
              </WriteButton>
            </form>
            {grows && <BillPanel id={`${id}-bill`} title={`Adding ${Number(count) - g.node_count} node(s) takes`} what="resize" state={bill} />}
            <Cli cmd={`openstack coe cluster resize ${shq(c.name)} --nodegroup ${shq(g.name)} ${shqOr(count, 'node count')}`} />
            {!g.is_default && (
              <WriteButton id={`${id}-delete`} canWrite={scope.can_write} disabled={busy} class="danger" onClick={() => setConfirmDelete(true)}>
                Delete node group
              </WriteButton>
            )}
          </>
        )}
        <AcceptedNote accepted={progress.accepted} status={c.status} reason={c.status_reason} />
        {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
        <Dialog title={`Delete node group ${g.name}?`} open={confirmDelete} onClose={() => setConfirmDelete(false)}>
          <p>Its {g.node_count} node(s) are drained and deleted. The cluster keeps its other groups.</p>
          <Cli cmd={`openstack coe nodegroup delete ${shq(c.name)} ${shq(g.name)}`} />
          <div class="buttons">
            <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
            <button
              type="button"
              class="danger"
              onClick={() => {
                setConfirmDelete(false);
                void run(must(api.DELETE('/v1/clusters/{cluster}/nodegroups/{nodegroup}', { params: { path: { cluster: c.uuid, nodegroup: g.uuid } } })), `delete of node group ${g.name}`);
              }}
            >
              Delete {g.name}
            </button>
          </div>
        </Dialog>
      </td>
    </tr>
  );
}
