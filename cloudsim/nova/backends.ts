// What Nova asks of the other services: Glance for images, Neutron for networks and ports, Cinder
// for volumes. cloud.ts passes adapters over the other simulators' state (backend-*.ts); without
// them Nova falls back to accepting any image, a flat local network and volumes it only records.
import { randomUUID } from 'node:crypto';
import { SimError } from '../common/errors.js';

export interface NovaImage {
  id: string;
  name: string | null;
  status: string;
  /** GiB. */
  minDisk: number;
  /** MiB. */
  minRam: number;
  /** Bytes, when known. */
  size: number | null;
}

export interface NovaImages {
  /** The image when `projectId` may use it. */
  image(id: string, projectId: string): NovaImage | undefined;
}

export interface NovaNetwork {
  id: string;
  name: string;
  projectId: string;
  shared: boolean;
  external: boolean;
  subnets: string[];
  portSecurityEnabled: boolean;
}

/** A port as Nova shows it in `addresses` and `security_groups`. */
export interface NovaPort {
  id: string;
  projectId: string;
  networkId: string;
  networkName: string;
  macAddress: string;
  /** Fixed addresses, then the floating ones associated with them. */
  fixedIps: string[];
  floatingIps: string[];
  deviceId: string;
  deviceOwner: string;
  securityGroupNames: string[];
}

export interface PortRequest {
  projectId: string;
  networkId: string;
  fixedIp?: string | undefined;
  /** Security group ids (default: the project's `default` group). */
  securityGroupIds?: string[] | undefined;
  deviceId: string;
  deviceOwner: string;
  hostId: string;
}

export interface NovaNetworking {
  /** A network `projectId` can see (its own, shared or external ones). */
  network(id: string, projectId: string): NovaNetwork | undefined;
  /** Networks Nova may pick by itself for `projectId`: its own and shared ones. */
  availableNetworks(projectId: string): NovaNetwork[];
  port(id: string): NovaPort | undefined;
  /** A security group of the project by name or id. */
  securityGroup(projectId: string, nameOrId: string): { id: string; name: string } | undefined;
  /** How many more ports the project may create (Infinity when unlimited). */
  portRoom(projectId: string): number;
  /** Creates a port bound to the server (a SimError when the network has no free address). */
  createPort(req: PortRequest): NovaPort;
  /** Binds a user's port to the server. */
  bindPort(portId: string, deviceId: string, deviceOwner: string, hostId: string): void;
  /** Clears the binding of a user's port (the server is gone). */
  unbindPort(portId: string): void;
  deletePort(portId: string): void;
}

export interface NovaVolume {
  id: string;
  status: string;
  /** GiB. */
  size: number;
  availabilityZone: string;
  /** Made from this Glance image (Cinder's volume_image_metadata): what a server booted from it runs. */
  imageRef: string | null;
  bootable: boolean;
}

export interface NovaVolumes {
  volume(id: string, projectId: string): NovaVolume | undefined;
  /** Creates a volume (Cinder's 413 SimError when over quota, 404 for an unknown type); no zone: Cinder's default one. */
  create(req: { projectId: string; userId: string; size: number; imageRef?: string | undefined; name: string; availabilityZone?: string | undefined; volumeType?: string | undefined }): NovaVolume;
  /** Does Cinder know this volume type (name or id)? Absent: every type is taken. */
  hasType?(idOrName: string): boolean;
  /** Reserves the volume for the server; returns the attachment id (a SimError 400 when not available). */
  reserve(volumeId: string, serverId: string): string;
  /** The attachment is connected: the volume is in-use. */
  attach(attachmentId: string, device: string): void;
  /** Starts a detach (the volume shows `detaching`); `detached` finishes it. */
  detaching(attachmentId: string): void;
  detached(attachmentId: string): void;
  /** Deletes a volume, ignoring one already gone. */
  delete(volumeId: string): void;
}

/** Without Glance: every UUID is an active image. */
export const anyImage: NovaImages = {
  image: (id) => ({ id, name: null, status: 'active', minDisk: 0, minRam: 0, size: null }),
};

/** Without Neutron: any network id is a flat private network on 10.0.0.0/24. */
export class LocalNetworking implements NovaNetworking {
  readonly ports = new Map<string, NovaPort>();
  private next = 3;

  network(id: string, projectId: string): NovaNetwork {
    return { id, name: 'private', projectId, shared: false, external: false, subnets: [`subnet-${id}`], portSecurityEnabled: true };
  }

  availableNetworks(): NovaNetwork[] {
    return [];
  }

  port(id: string): NovaPort | undefined {
    return this.ports.get(id);
  }

  securityGroup(_projectId: string, nameOrId: string): { id: string; name: string } {
    return { id: nameOrId, name: nameOrId };
  }

  portRoom(): number {
    return Infinity;
  }

  createPort(req: PortRequest): NovaPort {
    if (this.next > 254) throw new SimError(409, `No more IP addresses available on network ${req.networkId}.`);
    const n = this.next++;
    const port: NovaPort = {
      id: randomUUID(),
      projectId: req.projectId,
      networkId: req.networkId,
      networkName: 'private',
      macAddress: `fa:16:3e:00:00:${n.toString(16).padStart(2, '0')}`,
      fixedIps: [req.fixedIp ?? `10.0.0.${n}`],
      floatingIps: [],
      deviceId: req.deviceId,
      deviceOwner: req.deviceOwner,
      securityGroupNames: ['default'],
    };
    this.ports.set(port.id, port);
    return port;
  }

  bindPort(portId: string, deviceId: string, deviceOwner: string): void {
    const p = this.ports.get(portId);
    if (p) Object.assign(p, { deviceId, deviceOwner });
  }

  unbindPort(portId: string): void {
    this.bindPort(portId, '', '');
  }

  deletePort(portId: string): void {
    this.ports.delete(portId);
  }
}
