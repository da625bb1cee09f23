// Magnum k8s labels (magnum-api spec §7) that no module of this pass implements, with the reason.
// Labels implemented by a module are found through the module registry, not here.

export interface CatalogEntry {
  status: 'unsupported';
  reason: string;
}

const no = (reason: string): CatalogEntry => ({ status: 'unsupported', reason });

const NO_HEAT = no('No Heat agent: nodes boot with cloud-init and kubeadm.');
const KUBEADM_PINS = no('kubeadm pins this component per Kubernetes minor; use container_infra_prefix to mirror images.');
const FROM_IMAGE = no('containerd 2.x is the node image\'s (image property kube_version), or installed at boot from the upstream release pinned per Kubernetes minor (checked against its published sha256).');
const NODE_IMAGE = no('Node images are immutable; upgrades replace nodes (kube_tag).');
const FREE_FLAGS = no('Free-form component flags could break kubeadm-managed components; a validated name/value form may follow.');
const NOT_EXPOSED = no(
  "Magnum put Prometheus behind ingress-nginx's basic auth; ingress-nginx is retired and octavia-ingress-controller has no authentication, so the monitoring stack is not exposed: kubectl -n monitoring port-forward svc/grafana 3000, or make that Service a LoadBalancer.",
);
const NO_ADAPTER = no('prometheus-adapter (custom metrics API) is not bundled; metrics-server serves the resource metrics the HPA needs.');
const NO_NGINX = no('ingress-nginx is retired upstream (ingress_controller=nginx is rejected); use ingress_controller=octavia or a Gateway API implementation.');
const NO_HEALER_POD = no('magnum-auto-healer needs Heat (it marks stack resources unhealthy); with auto_healing_enabled the service replaces unhealthy workers itself, so no healer runs in the cluster.');
const NO_NPD = no('node-problem-detector is not bundled: auto-healing judges nodes by their Ready condition and their server; install it in the cluster to surface more node conditions.');
const HELM = no('Add-ons are applied by the service over the Kubernetes API; no Helm client or Tiller runs in the cluster.');

export const LABEL_CATALOG: Readonly<Record<string, CatalogEntry>> = {
  hyperkube_prefix: no('No hyperkube: kubeadm runs upstream images; use container_infra_prefix.'),
  kube_image_digest: no('kubeadm pulls images by tag from imageRepository; digests are not configurable.'),
  etcd_tag: KUBEADM_PINS,
  coredns_tag: KUBEADM_PINS,
  heat_container_agent_tag: NO_HEAT,
  ostree_remote: NODE_IMAGE,
  ostree_commit: NODE_IMAGE,
  use_podman: no('System components run as kubeadm static pods under containerd.'),
  selinux_mode: no('Decided by the node image.'),
  containerd_version: FROM_IMAGE,
  containerd_tarball_url: FROM_IMAGE,
  containerd_tarball_sha256: FROM_IMAGE,
  calico_kube_controllers_tag: no('The tigera-operator deploys calico-kube-controllers at the Calico release chosen by calico_tag.'),
  ingress_controller_role: no('octavia-ingress-controller balances to NodePorts on every node: there are no ingress-role nodes.'),
  nginx_ingress_controller_tag: NO_NGINX,
  nginx_ingress_controller_chart_tag: NO_NGINX,
  traefik_ingress_controller_tag: no('The Traefik v1.7 ingress is not provided (ingress_controller=traefik is rejected); install Traefik v3 in the cluster.'),
  cert_manager_api: no('Not needed: kube-controller-manager already signs CSRs with the cluster CA (kubeadm).'),
  admission_control_list: FREE_FLAGS,
  kubelet_options: FREE_FLAGS,
  kubeapi_options: FREE_FLAGS,
  kubecontroller_options: FREE_FLAGS,
  kubescheduler_options: FREE_FLAGS,
  kubeproxy_options: FREE_FLAGS,
  kube_dashboard_version: no('The Kubernetes dashboard is archived upstream (kubernetes-retired/dashboard, January 2026); kube_dashboard_enabled deploys its successor Headlamp at the version pinned in the version table.'),
  metrics_scraper_tag: no('Headlamp reads metrics-server itself: no dashboard-metrics-scraper runs.'),
  influx_grafana_dashboard_enabled: no('Heapster/InfluxDB are retired upstream.'),
  heapster_enabled: no('Heapster is retired upstream; metrics-server replaces it.'),
  metrics_server_chart_tag: HELM,
  monitoring_ingress_enabled: NOT_EXPOSED,
  cluster_basic_auth_secret: NOT_EXPOSED,
  cluster_root_domain_name: NOT_EXPOSED,
  prometheus_operator_chart_tag: no('No Helm and no operator: the monitoring stack is plain manifests pinned in the version table (prometheus_tag and grafana_tag override two images).'),
  prometheus_adapter_enabled: NO_ADAPTER,
  prometheus_adapter_chart_tag: NO_ADAPTER,
  prometheus_adapter_configmap: NO_ADAPTER,
  grafana_admin_passwd: no("A password in a label is shown to everyone who can read the cluster; Grafana's admin password is made per cluster and kept in Secret monitoring/grafana-admin."),
  tiller_enabled: HELM,
  tiller_tag: HELM,
  tiller_namespace: HELM,
  helm_client_url: HELM,
  helm_client_sha256: HELM,
  helm_client_tag: HELM,
  system_pods_initial_delay: no('Readiness is tracked by the service\'s control-plane and add-on conditions.'),
  system_pods_timeout: no('Readiness is tracked by the service\'s control-plane and add-on conditions.'),
  magnum_auto_healer_tag: NO_HEALER_POD,
  draino_tag: no('draino is archived upstream; it only cordoned and drained. With auto_healing_enabled the service replaces unhealthy workers itself.'),
  npd_enabled: NO_NPD,
  node_problem_detector_tag: NO_NPD,
  autoscaler_tag: no("No cluster-autoscaler runs in the cluster: its magnum provider needs Heat stacks; with auto_scaling_enabled the service scales the worker groups itself."),
};

export function catalogWarning(name: string, entry: CatalogEntry): string {
  return `Label ${name} is not supported and is ignored: ${entry.reason}`;
}
