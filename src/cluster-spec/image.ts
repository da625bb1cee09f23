// The node image contract (README "Node images"): what a Glance image must be for Kubernetes nodes to
// boot from it, read from its properties. `os_distro` decides the first-boot agent and so the
// user-data format; `kube_version` (the property magnum-capi-helm reads) says the image already
// carries kubeadm, kubelet, kubectl and containerd 2.x of that Kubernetes version. Pure: the API's
// template and cluster checks and the workers all decide with these functions.

/** The distributions nodes boot, with the agent that reads their user-data. */
export const NODE_DISTROS = {
  ubuntu: { format: 'cloud-config', agent: 'cloud-init' },
  'fedora-coreos': { format: 'ignition', agent: 'Ignition' },
} as const;

export type NodeDistro = keyof typeof NODE_DISTROS;
export type UserDataFormat = (typeof NODE_DISTROS)[NodeDistro]['format'];

export const SUPPORTED_DISTROS = Object.keys(NODE_DISTROS) as NodeDistro[];

/** Glance properties the contract reads. */
export const IMAGE_PROPERTIES = { distro: 'os_distro', version: 'os_version', kubeVersion: 'kube_version' } as const;

/** The oldest Ubuntu release whose default is the unified cgroup hierarchy (v2), which kubelet 1.35 requires. */
const UBUNTU_MIN = [22, 4] as const;

export interface NodeImage {
  distro: NodeDistro;
  /** `vMAJOR.MINOR.PATCH` of the Kubernetes binaries the image carries; null when it does not say. */
  kubeVersion: string | null;
}

/** Image properties as Glance returns them (custom properties are flat top-level keys). */
export type ImageProperties = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

export function isNodeDistro(distro: string): distro is NodeDistro {
  return Object.hasOwn(NODE_DISTROS, distro);
}

/** What the supported images are, for error messages. */
export function supportedImagesText(): string {
  return SUPPORTED_DISTROS.map((d) => `${d} (${NODE_DISTROS[d].agent})`).join(' or ');
}

/** `v1.35.5`, `1.35.5` or `v1.35.5-1.1` (a package revision) → `v1.35.5`; undefined when it is not a release. */
export function normaliseKubeVersion(raw: string): string | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.-]*)?$/.exec(raw.trim());
  return m ? `v${Number(m[1])}.${Number(m[2])}.${Number(m[3])}` : undefined;
}

/**
 * Why an image with these properties cannot be a node image (undefined: it can). `os_distro` must be a
 * supported distribution; an Ubuntu older than 22.04 boots with cgroup v1; `kube_version`, when
 * present, must be a Kubernetes release.
 */
export function imageProblem(props: ImageProperties): string | undefined {
  const distro = str(props[IMAGE_PROPERTIES.distro]);
  if (!distro) return `it has no ${IMAGE_PROPERTIES.distro} property; nodes boot from images with os_distro ${supportedImagesText()}`;
  if (!isNodeDistro(distro)) return `its os_distro is '${distro}'; nodes boot from images with os_distro ${supportedImagesText()}`;
  const version = str(props[IMAGE_PROPERTIES.version]);
  if (distro === 'ubuntu' && version) {
    const m = /^(\d+)\.(\d+)/.exec(version);
    if (m && (Number(m[1]) < UBUNTU_MIN[0] || (Number(m[1]) === UBUNTU_MIN[0] && Number(m[2]) < UBUNTU_MIN[1]))) {
      return `it is Ubuntu ${version}, which boots with cgroup v1; kubelet needs cgroup v2 (Ubuntu 22.04 or later)`;
    }
  }
  const kube = str(props[IMAGE_PROPERTIES.kubeVersion]);
  if (kube !== undefined && !normaliseKubeVersion(kube)) return `its kube_version '${kube}' is not a Kubernetes release such as v1.35.5`;
  return undefined;
}

/** The node image the properties describe; throws with imageProblem's reason when there is none. */
export function nodeImage(props: ImageProperties): NodeImage {
  const problem = imageProblem(props);
  if (problem) throw new Error(problem);
  const kube = str(props[IMAGE_PROPERTIES.kubeVersion]);
  return { distro: str(props[IMAGE_PROPERTIES.distro]) as NodeDistro, kubeVersion: kube ? normaliseKubeVersion(kube)! : null };
}

/** Why the image cannot run a cluster of Kubernetes `version` (undefined: it can): it carries another version. */
export function imageVersionProblem(image: NodeImage, version: string): string | undefined {
  if (image.kubeVersion === null || image.kubeVersion === version) return undefined;
  return `the image carries Kubernetes ${image.kubeVersion} (property kube_version) but the cluster's kube_tag is ${version}`;
}

/** The user-data format the image's first-boot agent reads. */
export function userDataFormat(image: NodeImage): UserDataFormat {
  return NODE_DISTROS[image.distro].format;
}
