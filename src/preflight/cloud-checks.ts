// What the template API asks of Glance, Nova and Neutron (spec §3.1): the image's os_distro,
// that flavors exist, that the external network is one. Failures are the API's 400/403/409;
// a service that is down or missing from the catalog is a 503, never a 500. The node image
// contract (src/kube/image.ts) is checked here for templates and clusters alike.
import { errors, type ApiError } from '../domain/errors.js';
import { IMAGE_PROPERTIES, imageProblem, imageVersionProblem, nodeImage, type ImageProperties, type NodeImage } from '../cluster-spec/image.js';
import type { CallerClouds, CloudCaller } from '../openstack/caller.js';
import type { GlanceImage } from '../openstack/glance.js';
import { isNotFound, OpenStackError } from '../openstack/http.js';
import { flavorOf, isUuidLike } from '../openstack/ids.js';
import type { NovaFlavor } from '../openstack/nova.js';

export interface CloudChecks {
  /** The image's os_distro; 400 when missing or without os_distro, 403 when not visible. */
  imageDistro(who: CloudCaller, image: string): Promise<string>;
  /** The image's properties (os_distro among them), with imageDistro's errors. */
  imageProperties(who: CloudCaller, image: string): Promise<ImageProperties>;
  /** What the image needs of a root disk (its min_disk and its size); undefined when Glance shows no such image. */
  imageDisk(who: CloudCaller, image: string): Promise<ImageDisk | undefined>;
  /** 400 "Unable to find flavor X." when Nova knows no such flavor (by id or name). */
  checkFlavor(who: CloudCaller, flavor: string): Promise<void>;
  /** 400 when no external network matches (id or name), 409 when several do. */
  checkExternalNetwork(who: CloudCaller, network: string): Promise<void>;
  /** 400 naming the label, the zone and Nova's zones when Nova does not offer a zone the labels name. */
  checkZones(who: CloudCaller, named: { label: string; zone: string }[]): Promise<void>;
}

export interface CloudChecksOptions {
  /** Keystone URL for the WWW-Authenticate header when a service rejects the caller's token. */
  authUrl: string;
  /** Told of every failed call before it becomes an API error (service, status, request id; no token). */
  onFailure?: (e: OpenStackError) => void;
}

/** An image's root disk needs as Nova weighs them against a flavor's disk. */
export interface ImageDisk {
  minDiskGb: number;
  sizeBytes: number;
}

const GIB = 1024 ** 3;

/** The whole GB a root disk needs for the image: its min_disk, or its size when larger (Nova's rule). */
export const neededGb = (d: ImageDisk): number => Math.max(d.minDiskGb, Math.ceil(d.sizeBytes / GIB));

const SERVICE_NAMES: Record<string, string> = { image: 'Glance', compute: 'Nova', network: 'Neutron' };

export { isUuidLike };

/** The checks against the real services, with the caller's clients (their token and its catalog). */
export function cloudChecks(clouds: CallerClouds, opts: CloudChecksOptions): CloudChecks {
  /** The flavor list of each request (its caller), read once however many flavors it checks. */
  const flavorLists = new WeakMap<CloudCaller, Promise<NovaFlavor[]>>();
  /** Runs `fn`; turns what the service said into the API's errors: never a 500 for a cloud that is down. */
  async function guarded<T>(type: string, fn: () => Promise<T>, forbidden?: () => ApiError): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof OpenStackError)) throw e;
      opts.onFailure?.(e);
      const name = SERVICE_NAMES[type] ?? type;
      switch (e.kind) {
        case 'unauthorized':
          throw errors.unauthorized(opts.authUrl);
        case 'forbidden':
          throw forbidden?.() ?? errors.cloudForbidden(name);
        case 'server':
        case 'unreachable':
        case 'timeout':
        case 'no_endpoint':
          throw errors.cloudUnavailable(name);
        default:
          throw e;
      }
    }
  }

  /** The image by id or name as Glance shows it to the caller (400s when it is not one image). */
  async function findImage(who: CloudCaller, image: string): Promise<GlanceImage> {
    const glance = clouds.for(who).glance();
    if (isUuidLike(image)) {
      try {
        return await glance.getImage(image);
      } catch (e) {
        if (isNotFound(e)) throw errors.imageNotFound(image);
        throw e;
      }
    }
    const matches = await glance.listImages({ name: image });
    if (matches.length === 0) throw errors.imageNotFound(image);
    if (matches.length > 1) throw errors.multipleImages(image);
    return matches[0]!;
  }

  const imageProperties = (who: CloudCaller, image: string): Promise<ImageProperties> =>
    guarded(
      'image',
      async () => {
        const found = await findImage(who, image);
        const distro = found.os_distro;
        if (typeof distro !== 'string' || distro === '') throw errors.imageNoDistro(image);
        return found as ImageProperties;
      },
      () => errors.notAuthorizedImage(image),
    );

  return {
    imageProperties,
    imageDisk: (who, image) =>
      guarded(
        'image',
        async () => {
          let found: GlanceImage;
          try {
            found = await findImage(who, image);
          } catch (e) {
            // An image gone or ambiguous is the other checks' (or the worker's) to report.
            if (e instanceof OpenStackError) throw e;
            return undefined;
          }
          return { minDiskGb: found.min_disk ?? 0, sizeBytes: found.size ?? 0 };
        },
        () => errors.notAuthorizedImage(image),
      ),
    imageDistro: async (who, image) => (await imageProperties(who, image))[IMAGE_PROPERTIES.distro] as string,

    checkFlavor: (who, flavor) =>
      guarded('compute', async () => {
        // Magnum matches a flavor by id or name over the whole list: one list per request, no probe by id.
        let flavors = flavorLists.get(who);
        if (!flavors) {
          flavors = clouds.for(who).nova().listFlavors();
          flavorLists.set(who, flavors);
          flavors.catch(() => flavorLists.delete(who));
        }
        if (!flavorOf(await flavors, flavor)) throw errors.flavorNotFound(flavor);
      }),

    checkExternalNetwork: (who, network) =>
      guarded('network', async () => {
        const neutron = clouds.for(who).neutron();
        if (isUuidLike(network)) {
          const byId = await neutron.listNetworks({ 'router:external': true, id: network });
          if (byId.length === 1) return;
        }
        const byName = await neutron.listNetworks({ 'router:external': true, name: network });
        if (byName.length === 0) throw errors.externalNetworkNotFound(network);
        if (byName.length > 1) throw errors.multipleExternalNetworks(network);
      }),

    checkZones: async (who, named) => {
      if (named.length === 0) return;
      await guarded('compute', async () => {
        const offered = (await clouds.for(who).novaResources().listAvailabilityZones()).filter((z) => z.zoneState.available).map((z) => z.zoneName);
        const missing = named.find((n) => !offered.includes(n.zone));
        if (missing) throw errors.availabilityZoneNotOffered(missing.label, missing.zone, offered);
      });
    },
  };
}

/**
 * The node image contract for a Kubernetes template or cluster, on the image's properties: a supported
 * os_distro (a 400 in Magnum's words naming the images that work otherwise) and, when `kubeVersion` is
 * given (a cluster create), the image's own Kubernetes version (property kube_version), if it says one,
 * equal to it.
 */
export function nodeImageOf(props: ImageProperties, image: string, serverType: string, kubeVersion?: string): NodeImage {
  const distro = String(props[IMAGE_PROPERTIES.distro] ?? 'None');
  const problem = serverType === 'vm' ? imageProblem(props) : 'Kubernetes nodes are virtual machines (server_type vm)';
  if (problem) throw errors.unsupportedNodeImage(serverType, distro, 'kubernetes', image, problem);
  const found = nodeImage(props);
  if (kubeVersion !== undefined && imageVersionProblem(found, kubeVersion)) throw errors.imageKubeVersionMismatch(image, found.kubeVersion!, kubeVersion);
  return found;
}

/** nodeImageOf on the image Glance shows the caller. */
export async function checkNodeImage(cloud: CloudChecks, who: CloudCaller, image: string, serverType: string, kubeVersion?: string): Promise<NodeImage> {
  return nodeImageOf(await cloud.imageProperties(who, image), image, serverType, kubeVersion);
}
