import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { type Config, loadSettings } from '../src/config/config.js';
import { SETTINGS } from '../src/config/settings-table.js';
import { containersOf, type KubeObject, kubectlKustomize, kustomize } from './support/kustomize.js';

// deploy/kubernetes/ (issue 33, PRODUCT.md §8e): the base and both overlays,
// rendered (by test/support/kustomize.ts, and by `kubectl kustomize` where it is
// installed, which must agree), every object validated against the Kubernetes
// API's own schemas (kubernetes-models, generated from the API's OpenAPI
// document), and the settings the pod gets fed to the server's own parser.

const ROOT = join(import.meta.dirname, '..');
const DEPLOY = join(ROOT, 'deploy/kubernetes');
const NAME = 'google-search-console-mcp';

const MODEL_CLASSES = {
  ConfigMap,
  PersistentVolumeClaim,
  Service,
  Deployment,
  HorizontalPodAutoscaler,
  NetworkPolicy,
  PodDisruptionBudget,
};
const API_VERSIONS: Record<string, string> = {
  ConfigMap: 'v1',
  PersistentVolumeClaim: 'v1',
  Service: 'v1',
  Deployment: 'apps/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  NetworkPolicy: 'networking.k8s.io/v1',
  PodDisruptionBudget: 'policy/v1',
};

/** Valid values of the forms the Secret's keys must hold (README "Deploying on Kubernetes" makes them the same way). */
const SECRET_SAMPLES: Record<string, () => string> = {
  'approval-secret': () => randomBytes(48).toString('base64'),
  'grant-encryption-keys': () => `k1:${randomBytes(32).toString('base64')}`,
  'admin-token': () => randomBytes(24).toString('hex'),
  'redis-url': () => 'redis://redis.default.svc.cluster.local:6379',
  'auth-client-secret': () => randomBytes(24).toString('hex'),
  'google-oauth-client-secret': () => `GOCSPX-${randomBytes(18).toString('base64url')}`,
};

const byKey = (a: KubeObject, b: KubeObject) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`);
const find = (objects: KubeObject[], kind: string) => objects.find((o) => o.kind === kind);
type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };

/** The environment the server process gets: the ConfigMap through envFrom, then env (which wins), Secrets filled with samples. */
function podEnvironment(objects: KubeObject[]): { env: Record<string, string>; secretKeys: Record<string, string> } {
  const container = containersOf(find(objects, 'Deployment')!)[0] as unknown as {
    envFrom: { configMapRef: { name: string } }[];
    env: Env[];
  };
  const env: Record<string, string> = {};
  const secretKeys: Record<string, string> = {};
  for (const from of container.envFrom) {
    const map = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === from.configMapRef.name);
    expect([from.configMapRef.name, map !== undefined]).toEqual([from.configMapRef.name, true]);
    Object.assign(env, (map as unknown as { data: Record<string, string> }).data);
  }
  for (const variable of container.env) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (ref) {
      expect(ref.name).toBe(NAME);
      expect(Object.keys(SECRET_SAMPLES)).toContain(ref.key);
      secretKeys[variable.name] = ref.key;
      env[variable.name] = SECRET_SAMPLES[ref.key]();
    } else {
      env[variable.name] = String(variable.value);
    }
  }
  return { env, secretKeys };
}

const RENDERINGS = {
  base: join(DEPLOY, 'base'),
  'single-sqlite': join(DEPLOY, 'overlays/single-sqlite'),
  'replicas-redis': join(DEPLOY, 'overlays/replicas-redis'),
};

describe.each(Object.entries(RENDERINGS))('deploy/kubernetes: %s', (name, dir) => {
  const objects = kustomize(dir).sort(byKey);
  const deployment = find(objects, 'Deployment') as KubeObject & { spec: Record<string, any> };
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];

  it('renders as kubectl kustomize does (where kubectl is installed)', () => {
    const theirs = kubectlKustomize(dir);
    if (theirs) {
      expect(objects).toEqual(theirs.sort(byKey));
    }
    expect(objects.length).toBeGreaterThanOrEqual(5);
  });

  it('every object is valid against the Kubernetes API schema of its kind', () => {
    for (const object of objects) {
      const Model = MODEL_CLASSES[object.kind as keyof typeof MODEL_CLASSES];
      expect([object.kind, Model !== undefined, object.apiVersion]).toEqual([object.kind, true, API_VERSIONS[object.kind]]);
      expect(() => new Model(object as never).validate()).not.toThrow();
    }
    // The validator does catch a wrong object: a replica count that is not a number.
    const broken = new Deployment({ ...deployment, spec: { ...deployment.spec, replicas: 'three' } } as never);
    expect(() => broken.validate()).toThrow(/replicas/);
  });

  it('the server gets settings it accepts, and every secret comes from the Secret', () => {
    const { env, secretKeys } = podEnvironment(objects);
    // loadSettings refuses unknown names (a typo in the ConfigMap fails here) by the start-up's own rules and messages.
    let config: Config | undefined;
    expect(() => (config = loadSettings(env, { env: {} }))).not.toThrow();
    expect(config!.transport).toBe('http');
    expect(config!.http).toMatchObject({ host: '0.0.0.0', port: 3000 });
    expect(config!.connected).toBeDefined();
    expect(config!.auth).toBeDefined();
    expect(config!.approval.secretSource).toBe('GSC_APPROVAL_SECRET');
    // What the table calls a secret is never in the ConfigMap, and what the Secret holds is a secret.
    const secret = new Set(SETTINGS.filter((s) => 'secret' in s && s.secret).map((s) => s.name as string));
    for (const key of Object.keys((find(objects, 'ConfigMap') as unknown as { data: object }).data)) {
      expect([key, secret.has(key)]).toEqual([key, false]);
    }
    for (const variable of Object.keys(secretKeys)) {
      expect([variable, secret.has(variable)]).toEqual([variable, true]);
    }
    expect(Object.keys(secretKeys)).toEqual(
      expect.arrayContaining(['GSC_APPROVAL_SECRET', 'GSC_GRANT_ENCRYPTION_KEYS', 'GSC_ADMIN_TOKEN']),
    );
    // A setting the parser refuses would be caught: the same pod with an approval secret that is too short.
    expect(() => loadSettings({ ...env, GSC_APPROVAL_SECRET: 'short' }, { env: {} })).toThrow(/GSC_APPROVAL_SECRET/);
    if (name === 'single-sqlite') {
      expect(config!.state).toEqual({ kind: 'sqlite', dir: '/var/lib/google-search-console-mcp' });
      expect(env.GSC_REDIS_URL).toBeUndefined();
    } else {
      expect(config!.state.kind).toBe('redis');
      expect(secretKeys.GSC_REDIS_URL).toBe('redis-url');
    }
  });

  it('the pod runs as non-root on a read-only root file system, with resources and probes on the health route', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toEqual(expect.any(String));
    // The image's check asks /admin/health (src/healthcheck.ts), with GSC_ADMIN_TOKEN from the pod's environment.
    expect(readFileSync(join(ROOT, 'src/healthcheck.ts'), 'utf8')).toContain("path: '/admin/health'");
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      expect([probe, container[probe]?.exec?.command]).toEqual([probe, ['node', '/app/dist/healthcheck.js']]);
    }
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^WORKDIR \/app$[\s\S]*COPY --from=build \/app\/dist \.\/dist/m);
    expect(container.image).toMatch(/^google-search-console-mcp:\d+\.\d+\.\d+$/);
    // Every mounted volume is declared, and the only writable places are those volumes.
    const volumes = new Set(pod.volumes.map((v: { name: string }) => v.name));
    for (const mount of container.volumeMounts) {
      expect([mount.name, volumes.has(mount.name)]).toEqual([mount.name, true]);
    }
  });

  it('the Service, autoscaler, disruption budget and network policy point at these pods', () => {
    const labels = deployment.spec.template.metadata.labels;
    const matches = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(matches(deployment.spec.selector.matchLabels)).toBe(true);
    const service = find(objects, 'Service') as any;
    expect(matches(service.spec.selector)).toBe(true);
    const named = container.ports.map((p: { name: string }) => p.name);
    expect(named).toContain(service.spec.ports[0].targetPort);
    const policy = find(objects, 'NetworkPolicy') as any;
    expect(matches(policy.spec.podSelector.matchLabels)).toBe(true);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(named).toContain(policy.spec.ingress[0].ports[0].port);
    const egressPorts = policy.spec.egress.flatMap((rule: any) => rule.ports.map((p: any) => p.port));
    expect(egressPorts).toEqual(expect.arrayContaining([53, 443]));
    expect(egressPorts.includes(6379)).toBe(name !== 'single-sqlite');
    const hpa = find(objects, 'HorizontalPodAutoscaler') as any;
    const pdb = find(objects, 'PodDisruptionBudget') as any;
    if (name === 'single-sqlite') {
      expect([hpa, pdb]).toEqual([undefined, undefined]);
      expect(deployment.spec.replicas).toBe(1);
      expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
      const claim = find(objects, 'PersistentVolumeClaim') as any;
      const state = pod.volumes.find((v: any) => v.persistentVolumeClaim);
      expect(state.persistentVolumeClaim.claimName).toBe(claim.metadata.name);
      expect(container.volumeMounts).toContainEqual({ name: state.name, mountPath: '/var/lib/google-search-console-mcp' });
    } else {
      expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(deployment.spec.replicas).toBe(hpa.spec.minReplicas);
      expect(matches(pdb.spec.selector.matchLabels)).toBe(true);
      expect(find(objects, 'PersistentVolumeClaim')).toBeUndefined();
    }
    if (name === 'replicas-redis') {
      expect(service.spec.sessionAffinity).toBe('ClientIP');
    }
  });
});

describe('README: deploying on Kubernetes', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Deploying on Kubernetes'));

  it('the Secret command makes every key the pods read, and names each overlay', () => {
    expect(section.length).toBeLessThan(readme.length);
    const made = new Set([...section.matchAll(/--from-literal=([a-z-]+)=/g)].map((m) => m[1]));
    const read = new Set(Object.values(RENDERINGS).flatMap((dir) => Object.values(podEnvironment(kustomize(dir)).secretKeys)));
    expect([...read].sort()).toEqual([...made].sort());
    expect(section).toContain('kubectl apply -k deploy/kubernetes/overlays/replicas-redis');
    expect(section).toContain('kubectl apply -k deploy/kubernetes/overlays/single-sqlite');
  });
});
