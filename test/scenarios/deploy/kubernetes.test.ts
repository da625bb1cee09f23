// deploy/kubernetes/: every object valid against the Kubernetes schemas (kubernetes-models), and
// consistent with the code and the image: the commands are modes, every variable is one the mode
// reads and the values load, the probes ask paths the processes serve on the ports they listen on,
// the pods run as the image's non-root user on a read-only root, and the Secret holds placeholders only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { buildOfflineApp } from '../../../src/api/offline.js';
import { ConfigError, loadConfig, loadMigrateConfig } from '../../../src/config.js';
import { isMode } from '../../../src/process/modes.js';
import { startHealthServer, WORKER_PROBES } from '../../../workers/health-server.js';
import { TEST_SECRET_KEY } from '../../support/app.js';
import { dockerfileStages, envReadBy, ROOT, stage } from './support.js';

const DIR = join(ROOT, 'deploy', 'kubernetes');

type Model = new (data: never) => { validate(): void };
const MODELS: Record<string, Model> = {
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [k: string]: unknown;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] }; runAsNonRoot?: boolean; runAsUser?: number };
}
interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; runAsGroup?: number; seccompProfile?: { type: string } };
  containers: Container[];
  initContainers?: Container[];
}

const kustomization = parse(readFileSync(join(DIR, 'kustomization.yaml'), 'utf8')) as { namespace: string; resources: string[]; images: { name: string; newTag?: string }[] };
const objects: Obj[] = kustomization.resources.flatMap((f) =>
  parseAllDocuments(readFileSync(join(DIR, f), 'utf8')).map((d) => {
    assert.deepEqual(d.errors, [], f);
    return d.toJS() as Obj;
  }),
);
const find = (kind: string, name: string): Obj => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  assert.ok(o, `${kind}/${name} is in the manifests`);
  return o;
};
const workloads = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job');
const podOf = (o: Obj): PodSpec => (o.spec as { template: { spec: PodSpec } }).template.spec;
const configMap = find('ConfigMap', 'magnum-config').data as Record<string, string>;
const secret = find('Secret', 'magnum-secrets').stringData as Record<string, string>;
/** The API and worker containers' environment as Kubernetes gives it (envFrom, then env). */
function envOf(c: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, (find('ConfigMap', from.configMapRef.name).data as Record<string, string>) ?? {});
    if (from.secretRef) Object.assign(env, (find('Secret', from.secretRef.name).stringData as Record<string, string>) ?? {});
  }
  for (const e of c.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
    const source = e.valueFrom?.secretKeyRef ? (find('Secret', ref!.name).stringData as Record<string, string>) : ref ? (find('ConfigMap', ref.name).data as Record<string, string>) : undefined;
    if (ref) assert.ok(source && ref.key in source, `${c.name}: ${e.name} refers to ${ref.name}/${ref.key}, which exists`);
    env[e.name] = e.value ?? source?.[ref!.key] ?? '';
  }
  return env;
}
const modeOf = (c: Container): string => {
  assert.equal(c.command, undefined, `${c.name}: the image's entry point runs, args choose the mode`);
  const mode = c.args?.[0];
  assert.ok(isMode(mode) && mode !== 'all' && c.args?.length === 1, `${c.name}: args ${JSON.stringify(c.args)} name one mode of src/process/modes.ts`);
  return mode;
};

test('every file is listed by kustomization.yaml, and every object is valid against the Kubernetes schemas', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
  assert.deepEqual([...kustomization.resources].sort(), files.sort());
  for (const o of objects) {
    const M = MODELS[`${o.apiVersion}/${o.kind}`];
    assert.ok(M, `no model for ${o.apiVersion}/${o.kind}: add it to this test`);
    new M(o as never).validate();
  }
  for (const kind of ['Deployment', 'Job', 'Service', 'ConfigMap', 'Secret', 'PodDisruptionBudget', 'ServiceAccount']) {
    assert.ok(objects.some((o) => o.kind === kind), `a ${kind}`);
  }
  assert.equal(find('Namespace', kustomization.namespace).metadata.labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
});

test('the workloads run the image modes as its non-root user, read-only, with resources and no API token', () => {
  const image = kustomization.images[0]!.name;
  const uid = Number(stage(dockerfileStages(), 'runtime').steps.find((s) => s.keyword === 'USER')!.args[0]!.split(':')[0]);
  assert.ok(Number.isInteger(uid) && uid > 0, 'the Dockerfile names a numeric non-root USER');
  const modes = workloads.flatMap((o) => podOf(o).containers.map(modeOf)).sort();
  assert.deepEqual(modes, ['api', 'migrate', 'worker']);
  for (const o of workloads) {
    const pod = podOf(o);
    assert.equal(pod.automountServiceAccountToken, false, `${o.metadata.name}: the pods never call the Kubernetes API`);
    find('ServiceAccount', pod.serviceAccountName!);
    assert.equal(pod.securityContext?.runAsNonRoot, true, o.metadata.name);
    assert.equal(pod.securityContext?.runAsUser, uid, `${o.metadata.name}: the image's user`);
    assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault', o.metadata.name);
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      assert.equal(c.image.split(':')[0], image, `${c.name}: the image kustomization.yaml sets`);
      assert.equal(c.securityContext?.readOnlyRootFilesystem, true, c.name);
      assert.equal(c.securityContext?.allowPrivilegeEscalation, false, c.name);
      assert.deepEqual(c.securityContext?.capabilities?.drop, ['ALL'], c.name);
      for (const r of ['cpu', 'memory']) {
        assert.ok(c.resources?.requests?.[r], `${c.name}: requests ${r}`);
        assert.ok(c.resources?.limits?.[r], `${c.name}: limits ${r}`);
      }
    }
  }
});

test('every variable the manifests set is one its mode reads, and the values load (a real key for the placeholder)', () => {
  for (const o of workloads) {
    for (const c of podOf(o).containers) {
      const mode = modeOf(c) as 'api' | 'worker' | 'migrate';
      const env = envOf(c);
      const known = envReadBy(mode);
      for (const name of Object.keys(env)) assert.ok(known.has(name), `${o.metadata.name}: ${name} is not read by mode ${mode}`);
      const withKey = { ...env, SECRET_KEYS: TEST_SECRET_KEY };
      if (mode === 'migrate') loadMigrateConfig(withKey);
      else {
        assert.throws(() => loadConfig(env), (e) => e instanceof ConfigError && /SECRET_KEYS/.test(e.message), 'the committed SECRET_KEYS placeholder cannot run');
        loadConfig(withKey);
      }
    }
  }
  for (const [k, v] of Object.entries(secret)) assert.match(v, /CHANGE_ME/, `Secret ${k} holds a placeholder, never a real secret`);
});

test('the API probes ask /healthz and /readyz on the port the API listens on, and the Service and PDB select its pods', async () => {
  const api = find('Deployment', 'magnum-api');
  const c = podOf(api).containers[0]!;
  const port = c.ports!.find((p) => p.name === 'http')!;
  assert.equal(port.containerPort, loadConfig({ ...envOf(c), SECRET_KEYS: TEST_SECRET_KEY }).api.port);
  assert.equal(c.readinessProbe?.httpGet?.path, '/readyz');
  assert.equal(c.livenessProbe?.httpGet?.path, '/healthz');
  const app = await buildOfflineApp();
  try {
    for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
      assert.equal(probe?.httpGet?.port, 'http');
      assert.ok(app.hasRoute({ method: 'GET', url: probe!.httpGet!.path }), `the API serves ${probe!.httpGet!.path}`);
    }
  } finally {
    await app.close();
  }
  const labels = (api.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
  const selects = (sel: Record<string, string>) => Object.entries(sel).every(([k, v]) => labels[k] === v);
  const service = find('Service', 'magnum-api').spec as { selector: Record<string, string>; ports: { targetPort: string }[] };
  assert.ok(selects(service.selector), 'the Service selects the API pods');
  assert.ok(c.ports!.some((p) => p.name === service.ports[0]!.targetPort), 'the Service targets a named port of the API');
  const pdb = find('PodDisruptionBudget', 'magnum-api').spec as { minAvailable: number; selector: { matchLabels: Record<string, string> } };
  assert.ok(selects(pdb.selector.matchLabels), 'the PDB selects the API pods');
  assert.ok(pdb.minAvailable < (api.spec as { replicas: number }).replicas, 'a drain can still move one API pod');
});

test('the worker probes ask the paths its probe server serves, on WORKER_HEALTH_PORT', async () => {
  const worker = find('Deployment', 'magnum-worker');
  const c = podOf(worker).containers[0]!;
  const config = loadConfig({ ...envOf(c), SECRET_KEYS: TEST_SECRET_KEY });
  assert.equal(config.workerHealth.host, '0.0.0.0', 'the kubelet reaches the pod IP');
  assert.equal(c.ports!.find((p) => p.name === 'probes')?.containerPort, config.workerHealth.port);
  assert.equal(c.livenessProbe?.httpGet?.path, WORKER_PROBES.liveness);
  assert.equal(c.readinessProbe?.httpGet?.path, WORKER_PROBES.readiness);
  const server = await startHealthServer({ host: '127.0.0.1', port: 0, checks: { redis: async () => undefined } });
  try {
    for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
      assert.equal(probe?.httpGet?.port, 'probes');
      const res = await fetch(`http://127.0.0.1:${server.port}${probe!.httpGet!.path}`);
      assert.equal(res.status, 200, probe!.httpGet!.path);
    }
  } finally {
    await server.close();
  }
  const labels = (worker.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
  const pdb = find('PodDisruptionBudget', 'magnum-worker').spec as { selector: { matchLabels: Record<string, string> } };
  assert.ok(Object.entries(pdb.selector.matchLabels).every(([k, v]) => labels[k] === v), 'the PDB selects the worker pods');
});

test("the worker probe server: readiness fails with a failing check and from a shutdown's start; liveness does not", async () => {
  let redisUp = true;
  const server = await startHealthServer({
    host: '127.0.0.1',
    port: 0,
    checks: {
      redis: async () => {
        if (!redisUp) throw new Error('down');
      },
    },
  });
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
    return { status: res.status, body: (await res.json()) as { status: string; checks?: Record<string, string> } };
  };
  try {
    assert.deepEqual(await get('/readyz'), { status: 200, body: { status: 'ok', checks: { redis: 'ok' } } });
    redisUp = false;
    assert.deepEqual(await get('/readyz'), { status: 503, body: { status: 'unavailable', checks: { redis: 'unavailable' } } });
    assert.equal((await get('/healthz')).status, 200, 'an unreachable Redis does not get the worker restarted');
    redisUp = true;
    server.draining();
    assert.equal((await get('/readyz')).status, 503);
    assert.equal((await get('/nope')).status, 404);
  } finally {
    await server.close();
  }
});
