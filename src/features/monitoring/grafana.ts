// Grafana of the monitoring add-on, with Prometheus provisioned as its default data source and a cluster dashboard. Its admin
// password is in Secret monitoring/grafana-admin (never in a label, where every reader of the cluster sees it).

import { stringify } from 'yaml';
import type { K8sObject } from '../../bootstrap/addons/framework.js';
import { meta, mount, requests, RESTRICTED, secret, service, serviceAccount, workload } from '../../bootstrap/addons/k8s.js';
import { clusterDashboard } from './dashboard.js';
import { MONITORING_NAMESPACE as NS, type MonitoringSettings } from './settings.js';

const NAME = 'grafana';
const LABELS = { 'app.kubernetes.io/name': NAME };
const PORT = 3000;
export const GRAFANA_ADMIN_SECRET = 'grafana-admin';
const DASHBOARD_DIR = '/var/lib/grafana-dashboards';

const fromSecret = (name: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: GRAFANA_ADMIN_SECRET, key } } });

export function grafanaObjects(s: MonitoringSettings, password: string): K8sObject[] {
  const datasources = stringify({
    apiVersion: 1,
    datasources: [{ name: 'Prometheus', uid: 'prometheus', type: 'prometheus', access: 'proxy', url: `http://prometheus.${NS}.svc:9090`, isDefault: true, jsonData: { timeInterval: `${s.intervalSeconds}s` } }],
  });
  const providers = stringify({ apiVersion: 1, providers: [{ name: 'magnum', folder: 'Kubernetes', type: 'file', allowUiUpdates: false, options: { path: DASHBOARD_DIR } }] });
  const deployment = workload(
    'Deployment',
    NAME,
    LABELS,
    {
      serviceAccountName: NAME,
      // It needs nothing from the Kubernetes API.
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, runAsUser: 472, runAsGroup: 472, fsGroup: 472, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: NAME,
          image: s.images.grafana,
          env: [fromSecret('GF_SECURITY_ADMIN_USER', 'admin-user'), fromSecret('GF_SECURITY_ADMIN_PASSWORD', 'admin-password'), { name: 'GF_ANALYTICS_REPORTING_ENABLED', value: 'false' }],
          ports: [{ name: 'http', containerPort: PORT }],
          readinessProbe: { httpGet: { path: '/api/health', port: PORT } },
          resources: requests('50m', '128Mi'),
          securityContext: RESTRICTED,
          volumeMounts: [
            mount('datasources', '/etc/grafana/provisioning/datasources', { readOnly: true }),
            mount('dashboard-providers', '/etc/grafana/provisioning/dashboards', { readOnly: true }),
            mount('dashboards', DASHBOARD_DIR, { readOnly: true }),
            mount('data', '/var/lib/grafana'),
            mount('logs', '/var/log/grafana'),
            mount('tmp', '/tmp'),
          ],
        },
      ],
      volumes: [
        { name: 'datasources', configMap: { name: 'grafana-datasources' } },
        { name: 'dashboard-providers', configMap: { name: 'grafana-dashboard-providers' } },
        { name: 'dashboards', configMap: { name: 'grafana-dashboards' } },
        { name: 'data', emptyDir: {} },
        { name: 'logs', emptyDir: {} },
        { name: 'tmp', emptyDir: {} },
      ],
    },
    { replicas: 1 },
    NS,
  );
  return [
    serviceAccount(NAME, NS),
    secret(meta(GRAFANA_ADMIN_SECRET, NS, LABELS), { 'admin-user': 'admin', 'admin-password': password }),
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('grafana-datasources', NS, LABELS), data: { 'prometheus.yaml': datasources } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('grafana-dashboard-providers', NS, LABELS), data: { 'dashboards.yaml': providers } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('grafana-dashboards', NS, LABELS), data: { 'cluster.json': clusterDashboard() } },
    deployment,
    service(NAME, NS, LABELS, [{ name: 'http', port: PORT }]),
  ];
}
