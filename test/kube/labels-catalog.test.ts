// Every Magnum k8s label of magnum-api spec §7 is either implemented by a module or catalogued
// (planned add-on / unsupported with a reason); the table in the report is generated from the same data.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LABEL_CATALOG } from '../../src/kube/labels/catalog.js';
import { ADDON_MODULES, CORE_MODULES, labelOwners } from '../../src/kube/spec/registry.js';
import { parseClusterSpec } from '../../src/kube/spec/parse.js';
import { input } from './fixtures.js';

export const SECTION_7_LABELS = `kube_tag hyperkube_prefix container_infra_prefix kube_image_digest etcd_tag coredns_tag
heat_container_agent_tag cloud_provider_tag ostree_remote ostree_commit use_podman selinux_mode container_runtime
containerd_version containerd_tarball_url containerd_tarball_sha256 cgroup_driver flannel_network_cidr flannel_backend
flannel_network_subnetlen flannel_tag flannel_cni_tag calico_tag calico_kube_controllers_tag calico_ipv4pool
calico_ipv4pool_ipip service_cluster_ip_range fixed_subnet_cidr master_lb_floating_ip_enabled master_lb_allowed_cidrs
octavia_provider octavia_lb_algorithm octavia_lb_healthcheck ingress_controller ingress_controller_role
nginx_ingress_controller_tag nginx_ingress_controller_chart_tag traefik_ingress_controller_tag
octavia_ingress_controller_tag cinder_csi_enabled cinder_csi_plugin_tag csi_attacher_tag csi_provisioner_tag
csi_snapshotter_tag csi_resizer_tag csi_node_driver_registrar_tag docker_volume_type etcd_volume_size etcd_volume_type
boot_volume_size boot_volume_type cloud_provider_enabled keystone_auth_enabled k8s_keystone_auth_tag cert_manager_api
admission_control_list kubelet_options kubeapi_options kubecontroller_options kubescheduler_options kubeproxy_options
availability_zone kube_dashboard_enabled kube_dashboard_version metrics_scraper_tag influx_grafana_dashboard_enabled
heapster_enabled metrics_server_enabled metrics_server_chart_tag monitoring_enabled monitoring_retention_days
monitoring_retention_size monitoring_interval_seconds monitoring_storage_class_name monitoring_ingress_enabled
cluster_basic_auth_secret cluster_root_domain_name prometheus_operator_chart_tag prometheus_adapter_enabled
prometheus_adapter_chart_tag prometheus_adapter_configmap prometheus_monitoring prometheus_tag grafana_tag
grafana_admin_passwd tiller_enabled tiller_tag tiller_namespace helm_client_url helm_client_sha256 helm_client_tag
system_pods_initial_delay system_pods_timeout auto_healing_enabled auto_healing_controller magnum_auto_healer_tag
draino_tag npd_enabled node_problem_detector_tag auto_scaling_enabled autoscaler_tag min_node_count max_node_count`
  .split(/\s+/)
  .filter(Boolean);

test('every §7 label is implemented by exactly one module or catalogued, never both', () => {
  const owners = labelOwners([...CORE_MODULES, ...ADDON_MODULES]);
  for (const name of SECTION_7_LABELS) {
    const implemented = owners.has(name);
    const catalogued = name in LABEL_CATALOG;
    assert.ok(implemented !== catalogued, `${name}: implemented=${implemented} catalogued=${catalogued}`);
  }
  for (const name of Object.keys(LABEL_CATALOG)) {
    assert.ok(SECTION_7_LABELS.includes(name), `${name} is catalogued but is not a §7 label`);
  }
  // Labels this service adds say so first thing in their description (the label table shows it).
  for (const [name, m] of owners) {
    if (SECTION_7_LABELS.includes(name)) continue;
    assert.match(m.labels[name]!.doc, /^Not a Magnum label\./, `${name} is not a §7 label and its description does not say so`);
  }
});

test('catalogued labels are accepted with one warning each and change nothing', () => {
  const base = parseClusterSpec(input()).spec;
  const labels = Object.fromEntries(Object.keys(LABEL_CATALOG).map((k) => [k, 'whatever']));
  const { spec, warnings } = parseClusterSpec(input({ labels }));
  assert.equal(warnings.length, Object.keys(LABEL_CATALOG).length);
  assert.deepEqual({ ...spec, labels: base.labels }, base);
});
