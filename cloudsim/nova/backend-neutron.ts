// Nova's view of the Neutron simulator: networks it may attach to, the ports it creates for a
// server (device_owner compute:<az>, bound to the host) and the user's ports it binds and unbinds.
// Structurally a NovaNetworking; cloud.ts passes `neutronNetworking(neutron.state)`.
import { union } from '../neutron/collection.js';
import { allocateFixedIps } from '../neutron/ipam.js';
import { newMac, releaseFloatingIps } from '../neutron/routes-ports.js';
import { ensureDefaultGroup } from '../neutron/routes-security-groups.js';
import type { Network, NeutronState, Port } from '../neutron/state.js';
import type { NovaNetwork, NovaNetworking, NovaPort, PortRequest } from './backends.js';

const view = (n: Network): NovaNetwork => ({
  id: n.id,
  name: n.name,
  projectId: n.projectId,
  shared: n.shared,
  external: n.external,
  subnets: [...n.subnets],
  portSecurityEnabled: n.portSecurityEnabled,
});

export function neutronNetworking(state: NeutronState): NovaNetworking {
  const portView = (p: Port): NovaPort => {
    const floating = state.floatingIps.by('port', p.id).map((f) => f.floatingIpAddress);
    return {
      id: p.id,
      projectId: p.projectId,
      networkId: p.networkId,
      networkName: state.networks.get(p.networkId)?.name ?? '',
      macAddress: p.macAddress,
      fixedIps: p.fixedIps.map((f) => f.ipAddress),
      floatingIps: floating,
      deviceId: p.deviceId,
      deviceOwner: p.deviceOwner,
      securityGroupNames: p.securityGroups.map((id) => state.securityGroups.get(id)?.name ?? id),
    };
  };
  const touch = (p: Port) => {
    p.updatedAt = Date.now();
    p.revisionNumber++;
  };

  return {
    network(id, projectId) {
      const n = state.networks.get(id);
      return n && (n.projectId === projectId || n.shared || n.external) ? view(n) : undefined;
    },
    availableNetworks(projectId) {
      return union(state.networks.by('project', projectId), state.networks.by('open', 'yes').filter((n) => n.shared)).map(view);
    },
    port(id) {
      const p = state.ports.get(id);
      return p ? portView(p) : undefined;
    },
    securityGroup(projectId, nameOrId) {
      if (nameOrId === 'default') return { id: ensureDefaultGroup(state, projectId).id, name: 'default' };
      const byId = state.securityGroups.get(nameOrId);
      const sg = byId?.projectId === projectId ? byId : state.securityGroups.first('projectName', `${projectId}|${nameOrId}`);
      return sg ? { id: sg.id, name: sg.name } : undefined;
    },
    portRoom(projectId) {
      const limit = state.quota(projectId, 'port');
      return limit < 0 ? Infinity : Math.max(0, limit - state.usage(projectId, 'port'));
    },
    createPort(req: PortRequest) {
      const network = state.networks.get(req.networkId)!;
      const fixedIps = allocateFixedIps(state, network, req.fixedIp === undefined ? undefined : [{ ip_address: req.fixedIp }]);
      const groups = network.portSecurityEnabled ? (req.securityGroupIds ?? [ensureDefaultGroup(state, req.projectId).id]) : [];
      const port = state.addPort({
        ...state.newStandard(req.projectId),
        networkId: network.id,
        macAddress: newMac(state),
        fixedIps,
        deviceId: req.deviceId,
        deviceOwner: req.deviceOwner,
        bindingHostId: req.hostId,
        securityGroups: groups,
        portSecurityEnabled: network.portSecurityEnabled,
      });
      return portView(port);
    },
    bindPort(portId, deviceId, deviceOwner, hostId) {
      const p = state.ports.get(portId);
      if (!p) return;
      Object.assign(p, { deviceId, deviceOwner, bindingHostId: hostId });
      touch(p);
      state.ports.refile(p.id);
    },
    unbindPort(portId) {
      const p = state.ports.get(portId);
      if (!p) return;
      Object.assign(p, { deviceId: '', deviceOwner: '', bindingHostId: '' });
      touch(p);
      state.ports.refile(p.id);
    },
    deletePort(portId) {
      if (!state.ports.has(portId)) return;
      releaseFloatingIps(state, portId);
      state.ports.delete(portId);
    },
  };
}
