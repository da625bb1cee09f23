// Add-on `dashboard` (Magnum's kube_dashboard_enabled): Headlamp, the web UI of SIG UI. The
// Kubernetes dashboard Magnum deployed was archived upstream in January 2026 (its repository moved
// to kubernetes-retired/dashboard) and SIG UI points to Headlamp instead. Every request Headlamp
// makes carries the signed-in user's own bearer token (a ServiceAccount token, or a Keystone token
// when keystone-auth is on), so its ServiceAccount is bound to nothing: the UI can do what its user
// may, no more. Reached with `kubectl -n kube-system port-forward svc/headlamp 8080:80`.

import { bool, label } from '../../cluster-spec/labels/types.js';
import { defineAddon, ORDER, settingsOf, type K8sObject } from '../../bootstrap/addons/framework.js';
import { KUBE_SYSTEM, mount, requests, RESTRICTED, service, serviceAccount, workload } from '../../bootstrap/addons/k8s.js';

const NAME = 'headlamp';
const LABELS = { 'app.kubernetes.io/name': NAME };
const PORT = 4466;

export interface DashboardSettings {
  enabled: boolean;
  image: string;
}

export const dashboardAddon = defineAddon({
  key: 'dashboard',
  kind: 'addon',
  name: 'dashboard',
  order: ORDER.dashboard,
  labels: {
    kube_dashboard_enabled: label(
      bool,
      'Headlamp, SIG UI\'s web UI (the Kubernetes dashboard is archived upstream): Service headlamp in kube-system, reached with kubectl port-forward; users sign in with their own token (kubectl create token, or a Keystone token with keystone-auth) and see what RBAC lets them. Default false.',
    ),
  },
  resolve(l, ctx): DashboardSettings {
    const k = ctx.spec.kubernetes!;
    return { enabled: l.kube_dashboard_enabled ?? false, image: `${k.imageRepository || 'ghcr.io/headlamp-k8s'}/headlamp:${k.components.headlamp}` };
  },
  enabled: (spec) => settingsOf<DashboardSettings>(spec, 'dashboard').enabled,
  render(spec): K8sObject[] {
    const s = settingsOf<DashboardSettings>(spec, 'dashboard');
    return [serviceAccount(NAME), deployment(s.image), service(NAME, KUBE_SYSTEM, LABELS, [{ name: 'http', port: 80, targetPort: PORT }])];
  },
});

function deployment(img: string): K8sObject {
  const probe = { httpGet: { path: '/', port: PORT }, periodSeconds: 10 };
  return workload('Deployment', NAME, LABELS, {
    serviceAccountName: NAME,
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    securityContext: { runAsNonRoot: true, runAsUser: 100, runAsGroup: 101, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [
      {
        name: NAME,
        image: img,
        imagePullPolicy: 'IfNotPresent',
        // In-cluster: the API server and its CA from the pod; the user's token on every request.
        args: ['-in-cluster', '-plugins-dir=/headlamp/plugins', `-port=${PORT}`],
        ports: [{ name: 'http', containerPort: PORT, protocol: 'TCP' }],
        readinessProbe: probe,
        livenessProbe: probe,
        resources: requests('50m', '64Mi'),
        securityContext: RESTRICTED,
        volumeMounts: [mount('tmp', '/tmp'), mount('plugins', '/headlamp/plugins')],
      },
    ],
    volumes: [{ name: 'tmp', emptyDir: {} }, { name: 'plugins', emptyDir: {} }],
  });
}
