// Renders the Kustomize manifests the way an operator would and checks what a safe rollout relies on:
// probes on the health paths, resources, non-root pods, disruption budgets, autoscalers, config and secrets.
import { readCryptoSettings } from '@payments/chain';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const root = join(__dirname, '..', '..');
const services = ['gateway', 'sessions', 'ledger', 'refunds', 'webhook-dispatcher'];
/** Every Deployment: the five services and the chain watcher (a process of the sessions app, no Service). */
const processes = [...services, 'chain-watcher'];
/** The app whose code a Deployment runs (APP, and its dist/ entry). */
const appOf = (name: string) => (name === 'chain-watcher' ? 'sessions' : name);

interface Meta {
  name: string;
  labels?: Record<string, string>;
}
interface Probe {
  httpGet?: { path?: string; port?: string | number };
}
interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  image?: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string; optional?: boolean } }[];
  env?: EnvVar[];
}
interface PodSpec {
  securityContext?: SecurityContext;
  terminationGracePeriodSeconds?: number;
  containers: Container[];
}
interface Resource {
  kind: string;
  metadata: Meta;
  // Only the fields these checks read; each kind is narrowed where it is used.
  spec?: {
    selector?: { matchLabels?: Record<string, string> } & Record<string, string>;
    template?: { metadata: Meta; spec: PodSpec };
    ports?: { port: number; targetPort?: string | number }[];
    clusterIP?: string;
    maxUnavailable?: number | string;
    minAvailable?: number | string;
    scaleTargetRef?: { kind: string; name: string };
    replicas?: number;
    minReplicas?: number;
    maxReplicas?: number;
    podSelector?: { matchLabels?: Record<string, string> };
    policyTypes?: string[];
    ingress?: Array<{ from?: Array<{ podSelector?: { matchLabels?: Record<string, string> }; namespaceSelector?: unknown; ipBlock?: unknown }>; ports?: Array<{ port?: string | number }> }>;
    egress?: EgressRule[];
  };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

interface EgressRule {
  to?: Array<{ podSelector?: unknown; namespaceSelector?: unknown; ipBlock?: { cidr: string; except?: string[] } }>;
  ports?: Array<{ protocol?: string; port?: string | number }>;
}

function parseYaml(text: string, source: string): Resource[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if ('errors' in doc && doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0].message}`);
    const value = doc.toJS() as Resource | null;
    return value ? [value] : [];
  });
}

const rendered = new Map<string, Resource[]>();

function render(dir: string): Resource[] {
  const cached = rendered.get(dir);
  if (cached) return cached;
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', join(root, dir)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new Error('kubectl is not installed (npm test installs it: apt-get install -y kubernetes-client)');
    throw new Error(`kubectl kustomize ${dir} failed: ${e.stderr ?? e.message}`);
  }
  const docs = parseYaml(out, dir);
  rendered.set(dir, docs);
  return docs;
}

const byKind = (docs: Resource[], kind: string) => docs.filter((d) => d.kind === kind);
const find = (docs: Resource[], kind: string, name: string) =>
  docs.find((d) => d.kind === kind && d.metadata.name === name);
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

function deployment(docs: Resource[], name: string) {
  const found = find(docs, 'Deployment', name);
  if (!found?.spec?.template) throw new Error(`no Deployment ${name}`);
  return { resource: found, pod: found.spec.template.spec, podLabels: found.spec.template.metadata.labels };
}

function probePortExists(container: Container, probe: Probe | undefined) {
  const port = probe?.httpGet?.port;
  return (container.ports ?? []).some((p) => p.name === port || p.containerPort === port);
}

describe.each(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/production'])('kustomize %s', (dir) => {
  let docs: Resource[];
  beforeAll(() => {
    docs = render(dir);
  });

  test('has a Deployment for each of the five services and the chain watcher, and nothing unexpected', () => {
    expect(byKind(docs, 'Deployment').map((d) => d.metadata.name).sort()).toEqual([...processes].sort());
  });

  test.each(processes)('%s: readiness, liveness and startup probes on the health paths of a declared port', (name) => {
    for (const container of deployment(docs, name).pod.containers) {
      expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
      expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
      expect(container.startupProbe?.httpGet?.path).toBeDefined();
      for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
        expect(probePortExists(container, probe)).toBe(true);
      }
    }
  });

  test.each(processes)('%s: cpu and memory requests and limits', (name) => {
    for (const container of deployment(docs, name).pod.containers) {
      for (const key of ['cpu', 'memory']) {
        expect(container.resources?.requests?.[key]).toBeDefined();
        expect(container.resources?.limits?.[key]).toBeDefined();
      }
    }
  });

  test.each(processes)('%s: never runs as root, cannot escalate, read-only root filesystem', (name) => {
    const { pod } = deployment(docs, name);
    for (const container of pod.containers) {
      const runAsNonRoot = container.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot;
      const runAsUser = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
      expect(runAsNonRoot).toBe(true);
      expect(runAsUser).not.toBe(0);
      expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
      expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    }
  });

  test.each(processes)('%s: settings from the ConfigMap and a Secret, its own port and schema', (name) => {
    const { pod } = deployment(docs, name);
    const [container] = pod.containers;
    const configMap = container.envFrom?.find((e) => e.configMapRef)?.configMapRef?.name;
    expect(configMap && find(docs, 'ConfigMap', configMap)).toBeTruthy();
    expect(container.envFrom?.some((e) => e.secretRef)).toBe(true);
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    expect(env.APP).toBe(appOf(name));
    expect(Number(env.PORT)).toBe(container.ports?.[0]?.containerPort);
    expect(env.DB_SCHEMA).toMatch(/^[a-z_]+$/);
  });

  test.each(processes)('%s: grace period outlasts the service shutdown timeout', (name) => {
    const { pod } = deployment(docs, name);
    const configMapName = pod.containers[0].envFrom?.find((e) => e.configMapRef)?.configMapRef?.name ?? '';
    const shutdownMs = Number(find(docs, 'ConfigMap', configMapName)?.data?.SHUTDOWN_TIMEOUT_MS ?? 15000);
    expect((pod.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(shutdownMs);
  });

  test.each(services)('%s: a Service, a PodDisruptionBudget and an autoscaler that select it', (name) => {
    const { podLabels, pod } = deployment(docs, name);
    const service = find(docs, 'Service', name);
    expect(matches(service?.spec?.selector, podLabels)).toBe(true);
    expect(service?.spec?.ports?.[0]?.port).toBe(pod.containers[0].ports?.[0]?.containerPort);

    const pdbs = byKind(docs, 'PodDisruptionBudget').filter((p) => matches(p.spec?.selector?.matchLabels, podLabels));
    expect(pdbs).toHaveLength(1);
    expect(pdbs[0].spec?.maxUnavailable ?? pdbs[0].spec?.minAvailable).toBeDefined();

    const hpa = byKind(docs, 'HorizontalPodAutoscaler').find((h) => h.spec?.scaleTargetRef?.name === name);
    expect(hpa?.spec?.scaleTargetRef?.kind).toBe('Deployment');
    expect(hpa?.spec?.minReplicas).toBeGreaterThanOrEqual(1);
    expect(hpa?.spec?.maxReplicas).toBeGreaterThanOrEqual(hpa?.spec?.minReplicas ?? Infinity);
  });
});

describe.each(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/production'])('commands in %s', (dir) => {
  const owners: Array<[string, string]> = [['sessions', 'SESSIONS_URL'], ['ledger', 'LEDGER_URL'], ['refunds', 'REFUNDS_URL'], ['webhook-dispatcher', 'WEBHOOKS_URL']];
  let docs: Resource[];
  beforeAll(() => {
    docs = render(dir);
  });

  test.each(owners)('%s: a headless command Service on its command port, which the gateway is pointed at', (name, setting) => {
    const { podLabels, pod } = deployment(docs, name);
    const container = pod.containers[0];
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    const commandPort = container.ports?.find((p) => p.name === 'commands')?.containerPort;
    expect(Number(env.COMMAND_PORT)).toBe(commandPort);
    const service = find(docs, 'Service', `${name}-commands`);
    // Headless: DNS answers every ready pod, and the gateway spreads its connections over all of them.
    expect(service?.spec?.clusterIP).toBe('None');
    expect(matches(service?.spec?.selector, podLabels)).toBe(true);
    expect(service?.spec?.ports?.[0]).toMatchObject({ port: commandPort, targetPort: 'commands' });
    const gateway = deployment(docs, 'gateway').pod.containers[0];
    const gatewayEnv = Object.fromEntries((gateway.env ?? []).map((e) => [e.name, e.value]));
    expect(gatewayEnv[setting]).toBe(`tcp://${name}-commands:${commandPort}`);
  });

  test.each(owners)('%s: its command port takes connections from the gateway only (and from refunds, for sessions; from sessions, for the ledger)', (name) => {
    const { podLabels, pod } = deployment(docs, name);
    const callers = name === 'sessions' ? ['gateway', 'refunds'] : name === 'ledger' ? ['gateway', 'sessions'] : ['gateway'];
    const labelsOf = (caller: string) => deployment(docs, caller).podLabels;
    const policies = byKind(docs, 'NetworkPolicy').filter((p) => matches(p.spec?.podSelector?.matchLabels, podLabels));
    // A pod no policy selects takes every connection.
    expect(policies.length).toBeGreaterThan(0);
    for (const policy of policies) expect(policy.spec?.policyTypes).toContain('Ingress');
    const commandPort = pod.containers[0].ports?.find((p) => p.name === 'commands')?.containerPort;
    const reaches = (rule: NonNullable<NonNullable<Resource['spec']>['ingress']>[number], port: string | number | undefined) =>
      !rule.ports || rule.ports.length === 0 || rule.ports.some((p) => p.port === port || p.port === 'commands' && port === commandPort);
    const rules = policies.flatMap((p) => p.spec?.ingress ?? []);
    for (const rule of rules.filter((r) => reaches(r, commandPort))) {
      // Every source of a rule that opens the command port is one of the callers' pods, by their labels.
      expect(rule.from?.length).toBeGreaterThan(0);
      for (const source of rule.from ?? []) {
        expect(source.ipBlock).toBeUndefined();
        expect(source.namespaceSelector).toBeUndefined();
        expect(callers.some((caller) => matches(source.podSelector?.matchLabels, labelsOf(caller)))).toBe(true);
      }
    }
    for (const caller of callers) {
      expect(rules.some((r) => reaches(r, commandPort) && r.from?.some((source) => matches(source.podSelector?.matchLabels, labelsOf(caller))))).toBe(true);
    }
    // Probes and metrics still reach the HTTP and operations ports.
    for (const port of ['http', 'ops']) expect(rules.some((r) => !r.from && r.ports?.some((p) => p.port === port))).toBe(true);
  });

  test.each([['refunds', 'SESSIONS_URL', 'sessions'], ['sessions', 'LEDGER_URL', 'ledger']])('%s: its %s points at the command Service of %s', (caller, setting, owner) => {
    const env = Object.fromEntries((deployment(docs, caller).pod.containers[0].env ?? []).map((e) => [e.name, e.value]));
    const commandPort = deployment(docs, owner).pod.containers[0].ports?.find((p) => p.name === 'commands')?.containerPort;
    expect(env[setting]).toBe(`tcp://${owner}-commands:${commandPort}`);
  });

  test.each(processes)('%s: reads COMMAND_SECRET from a Secret', (name) => {
    const [container] = deployment(docs, name).pod.containers;
    const setting = container.env?.find((e) => e.name === 'COMMAND_SECRET');
    expect(setting?.value).toBeUndefined();
    // The dev overlay's generated Secret carries a content hash in its name.
    expect(setting?.valueFrom?.secretKeyRef).toEqual({ name: expect.stringMatching(/^payments-command-secret(-\w+)?$/), key: 'COMMAND_SECRET' });
  });

  it('keeps command ports off the gateway\'s public Service', () => {
    const gatewayService = find(docs, 'Service', 'gateway');
    expect(gatewayService?.spec?.ports?.map((p) => p.port)).toEqual([3000]);
  });

  it('scrapes metrics on each service\'s operations port (and the chain watcher\'s), which no Service publishes', () => {
    for (const name of processes) {
      const { pod } = deployment(docs, name);
      const container = pod.containers[0];
      const ops = container.ports?.find((p) => p.name === 'ops')?.containerPort;
      const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
      expect(Number(env.OPS_PORT)).toBe(ops);
      const template = byKind(docs, 'Deployment').find((d) => d.metadata.name === name)!.spec!.template!;
      expect((template.metadata as Meta & { annotations?: Record<string, string> }).annotations?.['prometheus.io/port']).toBe(String(ops));
      for (const service of byKind(docs, 'Service')) expect(service.spec?.ports?.map((p) => p.port)).not.toContain(ops);
    }
  });
});

describe.each(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/production'])('chain watcher in %s', (dir) => {
  let docs: Resource[];
  beforeAll(() => {
    docs = render(dir);
  });
  const envOf = (container: Container) => Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));

  test("runs the sessions app's watcher entry from the sessions image, on its own ports, in sessions' schema", () => {
    const [watcher] = deployment(docs, 'chain-watcher').pod.containers;
    const [sessions] = deployment(docs, 'sessions').pod.containers;
    expect(watcher.command).toEqual(['node', 'dist/apps/sessions/src/chain-watcher/main.js']);
    expect(existsSync(join(root, 'apps/sessions/src/chain-watcher/main.ts'))).toBe(true);
    expect(watcher.image).toBe(sessions.image);
    const env = envOf(watcher);
    expect(env).toMatchObject({ APP: 'sessions', PORT: '3005', OPS_PORT: '9005', DB_SCHEMA: envOf(sessions).DB_SCHEMA });
    // It serves no commands: no command port, and nothing that would open one.
    expect(watcher.ports?.map((p) => [p.name, p.containerPort])).toEqual([['http', 3005], ['ops', 9005]]);
    expect(env.COMMAND_PORT).toBeUndefined();
    for (const probe of [watcher.startupProbe, watcher.livenessProbe, watcher.readinessProbe]) expect(probe?.httpGet?.port).toBe('http');
  });

  test('a fixed replica count (one active per chain, the rest stand by): no autoscaler, no Service, a disruption budget', () => {
    const { resource, podLabels } = deployment(docs, 'chain-watcher');
    expect(resource.spec?.replicas).toBe(dir === 'k8s/overlays/dev' ? 1 : 2);
    expect(byKind(docs, 'HorizontalPodAutoscaler').filter((h) => h.spec?.scaleTargetRef?.name === 'chain-watcher')).toEqual([]);
    expect(byKind(docs, 'Service').filter((s) => matches(s.spec?.selector, podLabels))).toEqual([]);
    const pdbs = byKind(docs, 'PodDisruptionBudget').filter((p) => matches(p.spec?.selector?.matchLabels, podLabels));
    expect(pdbs.map((p) => p.spec?.maxUnavailable)).toEqual([1]);
  });

  test('its network policy lets in probes and metrics only, and out DNS, PostgreSQL, Kafka and HTTPS to public addresses only', () => {
    const { podLabels } = deployment(docs, 'chain-watcher');
    const policies = byKind(docs, 'NetworkPolicy').filter((p) => matches(p.spec?.podSelector?.matchLabels, podLabels));
    expect(policies.length).toBeGreaterThan(0);
    const types = new Set(policies.flatMap((p) => p.spec?.policyTypes ?? []));
    expect([...types].sort()).toEqual(['Egress', 'Ingress']);

    // In: any pod (scrapers, the kubelet's probes), on the HTTP and operations ports and nothing else.
    const ingress = policies.flatMap((p) => p.spec?.ingress ?? []);
    expect(ingress.flatMap((r) => (r.ports ?? []).map((p) => p.port)).sort()).toEqual(['http', 'ops']);
    for (const rule of ingress) expect(rule.ports?.length).toBeGreaterThan(0);

    // Out: every rule names its ports, and only these.
    const egress = policies.flatMap((p) => p.spec?.egress ?? []);
    const allowed = ['UDP/53', 'TCP/53', 'TCP/5432', 'TCP/9092', 'TCP/443'];
    const opened = (rule: EgressRule) => (rule.ports ?? []).map((p) => `${p.protocol ?? 'TCP'}/${p.port}`);
    for (const rule of egress) {
      expect(rule.ports?.length).toBeGreaterThan(0);
      for (const port of opened(rule)) expect(allowed).toContain(port);
    }
    const reachable = (port: string) => egress.some((r) => opened(r).includes(port));
    for (const port of ['UDP/53', 'TCP/53', 'TCP/443']) expect(reachable(port)).toBe(true);

    // PostgreSQL and Kafka on the ports the settings name.
    const config = find(docs, 'ConfigMap', deployment(docs, 'chain-watcher').pod.containers[0].envFrom?.find((e) => e.configMapRef)?.configMapRef?.name ?? '');
    const kafkaPorts = (config?.data?.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim().split(':')[1]);
    expect(kafkaPorts.length).toBeGreaterThan(0);
    for (const port of kafkaPorts) expect(reachable(`TCP/${port}`)).toBe(true);
    const template = parseYaml(readFileSync(join(root, 'k8s/base/secrets.template.yaml'), 'utf8'), 'secrets.template.yaml');
    const databaseUrls = [
      find(template, 'Secret', 'payments-secrets')?.stringData?.DATABASE_URL,
      ...byKind(docs, 'Secret').map((s) => s.data?.DATABASE_URL && Buffer.from(s.data.DATABASE_URL, 'base64').toString('utf8')),
    ].filter((url): url is string => !!url);
    expect(databaseUrls.length).toBeGreaterThan(0);
    for (const url of databaseUrls) expect(reachable(`TCP/${new URL(url).port || 5432}`)).toBe(true);

    // HTTPS only to public addresses: nothing in the cluster, the private networks or the metadata service.
    for (const rule of egress.filter((r) => opened(r).includes('TCP/443'))) {
      expect(rule.to?.length).toBeGreaterThan(0);
      for (const peer of rule.to ?? []) {
        expect(peer.podSelector).toBeUndefined();
        expect(peer.namespaceSelector).toBeUndefined();
        expect(peer.ipBlock).toBeDefined();
        if (peer.ipBlock?.cidr === '0.0.0.0/0') {
          expect(peer.ipBlock.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
        } else if (peer.ipBlock?.cidr === '::/0') {
          expect(peer.ipBlock.except).toEqual(expect.arrayContaining(['fc00::/7', 'fe80::/10']));
        }
      }
    }
  });

  test('crypto settings: CRYPTO_CHAINS in the ConfigMap, valid and empty (no live crypto until the operator names a chain)', () => {
    const configs = byKind(docs, 'ConfigMap');
    expect(configs).toHaveLength(1);
    const data = configs[0].data ?? {};
    expect(Object.keys(data)).toContain('CRYPTO_CHAINS');
    const settings = readCryptoSettings({ CRYPTO_CHAINS: data.CRYPTO_CHAINS });
    expect(settings.chains).toEqual([]);
    expect(settings.configuredFor('live')).toBe(false);
    // The deposit keys are not in the ConfigMap: a Secret (secrets.template.yaml says why).
    expect(Object.keys(data).filter((k) => k.startsWith('CRYPTO_XPUB'))).toEqual([]);
  });

  test.each(['sessions', 'chain-watcher'])('%s: reads the optional crypto Secret after the ConfigMap, so its CRYPTO_CHAINS wins', (name) => {
    const [container] = deployment(docs, name).pod.containers;
    const sources = container.envFrom ?? [];
    const configAt = sources.findIndex((e) => e.configMapRef);
    const cryptoAt = sources.findIndex((e) => /^payments-crypto-secrets(-\w+)?$/.test(e.secretRef?.name ?? ''));
    expect(configAt).toBeGreaterThanOrEqual(0);
    expect(cryptoAt).toBeGreaterThan(configAt);
    expect(sources[cryptoAt].secretRef?.optional).toBe(true);
    // Settings given one by one (env) would win over both: none of the crypto ones is.
    expect((container.env ?? []).filter((e) => e.name.startsWith('CRYPTO_'))).toEqual([]);
  });

  test('the crypto Secret is documented with both deposit keys', () => {
    const template = parseYaml(readFileSync(join(root, 'k8s/base/secrets.template.yaml'), 'utf8'), 'secrets.template.yaml');
    expect(Object.keys(find(template, 'Secret', 'payments-crypto-secrets')?.stringData ?? {}).sort()).toEqual(['CRYPTO_XPUB_LIVE', 'CRYPTO_XPUB_TEST']);
  });
});

describe('production overlay', () => {
  let docs: Resource[];
  beforeAll(() => {
    docs = render('k8s/overlays/production');
  });

  test('runs with NODE_ENV=production and a pinned image tag', () => {
    const [config] = byKind(docs, 'ConfigMap');
    expect(config.data?.NODE_ENV).toBe('production');
    expect(config.data?.WEBHOOK_ALLOW_INSECURE_TARGETS).toBeUndefined();
    for (const name of processes) {
      for (const container of deployment(docs, name).pod.containers) {
        expect(container.image).toMatch(/:[\w.-]+$/);
        expect(container.image).not.toMatch(/:(latest|dev)$/);
      }
    }
  });

  test('keeps at least two replicas of every service, and two chain watchers (one active, one standing by)', () => {
    for (const hpa of byKind(docs, 'HorizontalPodAutoscaler')) expect(hpa.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(deployment(docs, 'chain-watcher').resource.spec?.replicas).toBe(2);
  });

  test('renders no Secret: the operator provides every one the template documents', () => {
    expect(byKind(docs, 'Secret')).toEqual([]);
    const template = parseYaml(readFileSync(join(root, 'k8s/base/secrets.template.yaml'), 'utf8'), 'secrets.template.yaml');
    const documented = new Map(template.map((s) => [s.metadata.name, Object.keys(s.stringData ?? {})]));
    for (const name of processes) {
      const [container] = deployment(docs, name).pod.containers;
      for (const ref of container.envFrom ?? []) {
        if (ref.secretRef) expect(documented.has(ref.secretRef.name)).toBe(true);
      }
      for (const env of container.env ?? []) {
        const ref = env.valueFrom?.secretKeyRef;
        if (ref) expect(documented.get(ref.name)).toContain(ref.key);
      }
    }
  });
});

describe('dev overlay', () => {
  test('generates every Secret the Deployments read', () => {
    const docs = render('k8s/overlays/dev');
    const secrets = new Map(byKind(docs, 'Secret').map((s) => [s.metadata.name, Object.keys(s.data ?? {})]));
    for (const name of processes) {
      const [container] = deployment(docs, name).pod.containers;
      for (const ref of container.envFrom ?? []) if (ref.secretRef) expect(secrets.has(ref.secretRef.name)).toBe(true);
      for (const env of container.env ?? []) {
        const ref = env.valueFrom?.secretKeyRef;
        if (ref) expect(secrets.get(ref.name)).toContain(ref.key);
      }
    }
  });
});
