// Cinder CSI's controller (cloud-provider-openstack pkg/csi/cinder/controllerserver.go) with the
// external-provisioner beside it (--extra-create-metadata), reduced to what the cloud shows: a
// PersistentVolumeClaim of a StorageClass whose provisioner is cinder.csi.openstack.org (with
// WaitForFirstConsumer, once a pod using it is on a node) gets a Cinder volume named pvc-<claim
// uid>, of the requested size in GiB rounded up and the class' `type`, with metadata
// cinder.csi.openstack.org/cluster=<--cluster> and csi.storage.k8s.io/pvc/name, pvc/namespace and
// pv/name; once it is available, a PersistentVolume of that name bound to the claim. A released
// volume of reclaim policy Delete is deleted in Cinder, then its PersistentVolume; a claim being
// deleted loses its kubernetes.io/pvc-protection finalizer once no pod uses it. (Attaching to the
// nodes' servers is not simulated: the volumes stay `available`.)
import type { Volume } from '../../src/openstack/cinder.js';
import { isNotFound } from '../../src/openstack/errors.js';
import { argOf, type CloudClients } from './cloud-conf.js';
import { terminating } from './disruption.js';
import type { Pass } from './service-controller.js';
import type { Obj, ObjKey, ObjectStore } from './store.js';
import { finishDeletion } from './termination.js';

export const CINDER_DRIVER = 'cinder.csi.openstack.org';
const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
const PV_FINALIZERS = ['external-provisioner.volume.kubernetes.io/finalizer', 'kubernetes.io/pv-protection'];

const claimKey = (pvc: Obj): ObjKey => ({ group: '', resource: 'persistentvolumeclaims', namespace: pvc.metadata.namespace ?? 'default', name: pvc.metadata.name });
const pvKey = (name: string): ObjKey => ({ group: '', resource: 'persistentvolumes', namespace: '', name });

/** Bytes of a quantity (Ki, Mi, Gi, Ti; k, M, G, T; plain). */
function bytes(q: string | undefined): number {
  const m = /^(\d+(?:\.\d+)?)([KMGT]i?|[kmgt])?$/.exec(q ?? '');
  if (!m) return 1024 ** 3;
  const unit = m[2] ?? '';
  const pow = { K: 1, k: 1, M: 2, m: 2, G: 3, g: 3, T: 4, t: 4 }[unit[0] ?? ''] ?? 0;
  return Number(m[1]) * (unit.endsWith('i') ? 1024 : 1000) ** pow;
}

export class CsiController {
  constructor(
    private readonly store: ObjectStore,
    private readonly event: (o: Obj, type: 'Normal' | 'Warning', reason: string, message: string) => void,
  ) {}

  private classOf(pvc: Obj): Obj | undefined {
    const name = (pvc.spec as { storageClassName?: string } | undefined)?.storageClassName;
    const sc = name ? this.store.get({ group: 'storage.k8s.io', resource: 'storageclasses', namespace: '', name }) : undefined;
    return (sc as { provisioner?: string } | undefined)?.provisioner === CINDER_DRIVER ? sc : undefined;
  }

  private users(pvc: Obj): Obj[] {
    return this.store.list('', 'pods', pvc.metadata.namespace ?? 'default').filter((p) =>
      ((p.spec as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] } | undefined)?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === pvc.metadata.name));
  }

  private released(): Obj[] {
    return this.store.list('', 'persistentvolumes').filter((pv) => {
      const spec = pv.spec as { csi?: { driver?: string }; claimRef?: { namespace?: string; name?: string; uid?: string } } | undefined;
      if (spec?.csi?.driver !== CINDER_DRIVER || !spec.claimRef) return false;
      const claim = this.store.get({ group: '', resource: 'persistentvolumeclaims', namespace: spec.claimRef.namespace ?? 'default', name: spec.claimRef.name ?? '' });
      return claim?.metadata.uid !== spec.claimRef.uid;
    });
  }

  /** Claims and volumes it has work for (no login otherwise). */
  hasWork(): boolean {
    const claims = this.store.list('', 'persistentvolumeclaims');
    return claims.some((c) => terminating(c) || (this.classOf(c) && !(c.spec as { volumeName?: string }).volumeName)) || this.released().length > 0;
  }

  async reconcile(clients: CloudClients, controller: Obj | undefined): Promise<Pass> {
    const cluster = argOf(controller, 'cluster') ?? '';
    let pending = false;
    let failed = false;
    for (const pvc of this.store.list('', 'persistentvolumeclaims')) {
      try {
        if (terminating(pvc)) this.unprotect(pvc);
        else if (this.classOf(pvc) && !(pvc.spec as { volumeName?: string }).volumeName) pending = (await this.provision(clients, cluster, pvc)) || pending;
      } catch (e) {
        this.event(pvc, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${(pvc.spec as { storageClassName?: string }).storageClassName}": ${(e as Error).message}`);
        failed = true;
      }
    }
    for (const pv of this.released()) {
      try {
        pending = (await this.reclaim(clients, pv)) || pending;
      } catch (e) {
        this.event(pv, 'Warning', 'VolumeFailedDelete', (e as Error).message);
        failed = true;
      }
    }
    return { pending, failed };
  }

  /** True while the volume is on its way. */
  private async provision(clients: CloudClients, cluster: string, pvc: Obj): Promise<boolean> {
    const sc = this.classOf(pvc)!;
    const waitForConsumer = (sc as { volumeBindingMode?: string }).volumeBindingMode === 'WaitForFirstConsumer';
    const consumer = this.users(pvc).find((p) => (p.spec as { nodeName?: string }).nodeName);
    if (waitForConsumer && !consumer) return false;
    const pvName = `pvc-${pvc.metadata.uid}`;
    const spec = pvc.spec as { resources?: { requests?: { storage?: string } }; accessModes?: string[]; volumeMode?: string; storageClassName?: string };
    const size = Math.max(1, Math.ceil(bytes(spec.resources?.requests?.storage) / 1024 ** 3));
    const cinder = await clients.cinder();
    let volume: Volume | undefined = (await cinder.listVolumes({ name: pvName })).find((v) => v.name === pvName);
    if (!volume) {
      const type = (sc as { parameters?: Record<string, string> }).parameters?.type;
      volume = await cinder.createVolume({
        name: pvName,
        size,
        ...(type ? { volume_type: type } : {}),
        metadata: {
          'cinder.csi.openstack.org/cluster': cluster,
          'csi.storage.k8s.io/pvc/name': pvc.metadata.name,
          'csi.storage.k8s.io/pvc/namespace': pvc.metadata.namespace ?? 'default',
          'csi.storage.k8s.io/pv/name': pvName,
        },
      } as never);
      this.event(pvc, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${pvc.metadata.namespace}/${pvc.metadata.name}"`);
    }
    if (volume.status === 'error') throw new Error(`volume ${volume.id} is in error`);
    if (volume.status !== 'available') return true;
    const capacity = `${volume.size}Gi`;
    this.store.write(pvKey(pvName), {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pvName, annotations: { 'pv.kubernetes.io/provisioned-by': CINDER_DRIVER, 'volume.kubernetes.io/provisioner-deletion-secret-name': '', 'volume.kubernetes.io/provisioner-deletion-secret-namespace': '' }, finalizers: PV_FINALIZERS },
      spec: {
        accessModes: spec.accessModes ?? ['ReadWriteOnce'],
        capacity: { storage: capacity },
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: pvc.metadata.namespace, name: pvc.metadata.name, uid: pvc.metadata.uid, resourceVersion: pvc.metadata.resourceVersion },
        csi: { driver: CINDER_DRIVER, fsType: 'ext4', volumeHandle: volume.id, volumeAttributes: { 'storage.kubernetes.io/csiProvisionerIdentity': `cinder-${cluster}` } },
        persistentVolumeReclaimPolicy: (sc as { reclaimPolicy?: string }).reclaimPolicy ?? 'Delete',
        storageClassName: spec.storageClassName,
        volumeMode: spec.volumeMode ?? 'Filesystem',
      },
      status: { phase: 'Bound' },
    });
    const now = this.store.get(claimKey(pvc));
    if (!now) return false;
    const annotations = {
      ...now.metadata.annotations,
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.beta.kubernetes.io/storage-provisioner': CINDER_DRIVER,
      'volume.kubernetes.io/storage-provisioner': CINDER_DRIVER,
      ...(consumer ? { 'volume.kubernetes.io/selected-node': (consumer.spec as { nodeName: string }).nodeName } : {}),
    };
    this.store.write(claimKey(now), {
      ...now,
      metadata: { ...now.metadata, annotations },
      spec: { ...(now.spec as object), volumeName: pvName },
      status: { phase: 'Bound', accessModes: spec.accessModes ?? ['ReadWriteOnce'], capacity: { storage: capacity } },
    });
    this.event(pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pvName}`);
    return false;
  }

  /** The pvc-protection controller: a claim being deleted goes once no pod uses it. */
  private unprotect(pvc: Obj): void {
    if (this.users(pvc).some((p) => !terminating(p))) return;
    const finalizers = ((pvc.metadata.finalizers as string[] | undefined) ?? []).filter((f) => f !== PVC_PROTECTION);
    this.store.write(claimKey(pvc), { ...pvc, metadata: { ...pvc.metadata, finalizers } });
    finishDeletion(this.store, claimKey(pvc));
  }

  /** A released volume: Delete → its Cinder volume, then the PersistentVolume; Retain → phase Released. True while it goes. */
  private async reclaim(clients: CloudClients, pv: Obj): Promise<boolean> {
    const spec = pv.spec as { persistentVolumeReclaimPolicy?: string; csi: { volumeHandle: string } };
    if (spec.persistentVolumeReclaimPolicy !== 'Delete') {
      if ((pv.status as { phase?: string } | undefined)?.phase !== 'Released') this.store.write(pvKey(pv.metadata.name), { ...pv, status: { phase: 'Released' } });
      return false;
    }
    const cinder = await clients.cinder();
    const volume = await cinder.getVolume(spec.csi.volumeHandle).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
    if (volume) {
      if (volume.status === 'available' || volume.status === 'error') await cinder.deleteVolume(volume.id);
      return true;
    }
    this.store.delete(pvKey(pv.metadata.name));
    return false;
  }
}
