// The operator's kit in k8s/monitoring/: the alert rules as Prometheus reads them (promtool from Debian's
// `prometheus` package, which `npm test` installs when missing), each alert shown firing and quiet on synthetic
// series, every series a rule or a dashboard reads one the services define, and a runbook section per alert.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parse, stringify } from 'yaml';

const root = join(__dirname, '..', '..');
const monitoring = join(root, 'k8s', 'monitoring');
const dashboardsDir = join(monitoring, 'dashboards');

interface Rule {
  alert?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface AlertTest {
  alertname: string;
  exp_alerts?: unknown[];
}
interface Panel {
  type: string;
  title: string;
  targets?: Array<{ expr: string }>;
}

const rules = (parse(readFileSync(join(monitoring, 'alerts.yaml'), 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules);
const alertTests = (parse(readFileSync(join(monitoring, 'alerts.test.yaml'), 'utf8')) as { tests: Array<{ alert_rule_test: AlertTest[] }> }).tests.flatMap(
  (t) => t.alert_rule_test,
);
const dashboards = readdirSync(dashboardsDir)
  .filter((f) => f.endsWith('.json'))
  .map((file) => ({ file, text: readFileSync(join(dashboardsDir, file), 'utf8') }));

async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('promtool', args, { cwd: monitoring });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (failed.code === 'ENOENT') throw new Error('promtool is missing: install Debian\'s prometheus package (apt-get install -y prometheus), as `npm test` does');
    return { code: Number(failed.code ?? 1), output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/**
 * The metric names a PromQL expression reads: identifiers left once strings, label matchers, grouping label
 * lists and range durations are taken out, less PromQL's functions and keywords.
 */
function metricNames(expr: string): string[] {
  const keywords = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?/g)) {
    const [token, call] = [match[0].replace(/\s*\($/, ''), match[1]];
    if (call || keywords.has(token.toLowerCase())) continue; // a function call or a keyword
    names.add(token);
  }
  return [...names];
}

/** Every series the services can export: each `name: '...'` of a prom-client metric in apps/ and libs/, and Node's defaults. */
function definedSeries(): Set<string> {
  const series = new Set<string>();
  const sources: string[] = [];
  for (const kind of ['apps', 'libs']) {
    for (const project of readdirSync(join(root, kind))) {
      const walk = (dir: string): void => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const path = join(dir, entry.name);
          if (entry.isDirectory()) walk(path);
          else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) sources.push(path);
        }
      };
      try {
        walk(join(root, kind, project, 'src'));
      } catch {
        // a project without src/
      }
    }
  }
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes("from 'prom-client'")) continue;
    for (const m of text.matchAll(/new (Counter|Gauge|Histogram|Summary)\(\{\s*name: '([a-z_:][a-z0-9_:]*)'/g)) {
      const [, type, name] = m as unknown as [string, string, string];
      series.add(name);
      if (type === 'Histogram') for (const suffix of ['_bucket', '_sum', '_count']) series.add(`${name}${suffix}`);
      if (type === 'Summary') for (const suffix of ['_sum', '_count']) series.add(`${name}${suffix}`);
    }
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const metric of registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string };
    series.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) series.add(`${name}${suffix}`);
  }
  registry.clear();
  return series;
}

describe('monitoring kit (k8s/monitoring)', () => {
  it('promtool check rules passes on the alert rules', async () => {
    const result = await promtool('check', 'rules', 'alerts.yaml');
    expect(result).toMatchObject({ code: 0 });
    expect(result.output).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it('promtool test rules passes: each alert fires on its synthetic series and stays quiet below its threshold', async () => {
    const result = await promtool('test', 'rules', 'alerts.test.yaml');
    if (result.code !== 0) throw new Error(result.output);
    expect(result.output).toContain('SUCCESS');
    const alerts = rules.map((r) => r.alert).filter((a): a is string => Boolean(a));
    expect(alerts.length).toBeGreaterThanOrEqual(7);
    for (const alert of alerts) {
      const cases = alertTests.filter((t) => t.alertname === alert);
      expect({ alert, fires: cases.some((t) => (t.exp_alerts ?? []).length > 0) }).toEqual({ alert, fires: true });
      expect({ alert, quiet: cases.some((t) => (t.exp_alerts ?? []).length === 0) }).toEqual({ alert, quiet: true });
    }
  });

  it('covers the alerts the operator needs on day one, each with a severity and a runbook section', () => {
    const alerts = rules.map((r) => r.alert);
    for (const needed of [
      'PaymentsEventsDeadLettered',
      'PaymentsOutboxLagging',
      'PaymentsConsumerLagHigh',
      'PaymentsWebhookEndpointFailing',
      'PaymentsProviderVerifyFailing',
      'PaymentsLedgerCheckFailed',
      'PaymentsCommandsFailing',
    ]) {
      expect(alerts).toContain(needed);
    }
    const runbook = readFileSync(join(root, 'docs', 'runbook.md'), 'utf8');
    for (const rule of rules) {
      expect({ alert: rule.alert, severity: rule.labels?.severity }).toEqual({ alert: rule.alert, severity: expect.stringMatching(/^(critical|warning)$/) });
      expect(runbook).toContain(`\n## ${rule.alert}\n`);
      expect(rule.annotations?.runbook).toBe(`docs/runbook.md#${rule.alert!.toLowerCase()}`);
    }
  });

  it('the dashboards are Grafana JSON with panels, each query one PromQL expression promtool accepts', async () => {
    expect(dashboards.map((d) => d.file).sort()).toEqual(['payments-events.json', 'payments-requests.json']);
    const uids = new Set<string>();
    const exprs: string[] = [];
    for (const { file, text } of dashboards) {
      const dashboard = JSON.parse(text) as { uid: string; title: string; panels: Panel[] };
      expect({ file, uid: typeof dashboard.uid, title: typeof dashboard.title }).toEqual({ file, uid: 'string', title: 'string' });
      uids.add(dashboard.uid);
      const graphs = dashboard.panels.filter((p) => p.type !== 'row');
      expect(graphs.length).toBeGreaterThanOrEqual(8);
      for (const panel of graphs) {
        expect({ file, panel: panel.title, targets: (panel.targets ?? []).length > 0 }).toEqual({ file, panel: panel.title, targets: true });
        exprs.push(...panel.targets!.map((t) => t.expr));
      }
    }
    expect(uids.size).toBe(dashboards.length);
    // Each query parsed by Prometheus itself, as recording rules of a scratch file.
    const dir = mkdtempSync(join(tmpdir(), 'dashboards-'));
    try {
      const file = join(dir, 'queries.yaml');
      writeFileSync(file, stringify({ groups: [{ name: 'dashboard-queries', rules: exprs.map((expr, i) => ({ record: `dashboard:query_${i}`, expr })) }] }));
      const result = await promtool('check', 'rules', file);
      if (result.code !== 0) throw new Error(result.output);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every series a rule or a dashboard reads is one the services define', () => {
    const defined = definedSeries();
    // The series the day-one alerts rest on are among them (so the scan itself is not empty or stale).
    for (const name of ['events_dead_lettered_total', 'kafka_consumer_lag', 'outbox_oldest_unsent_age_seconds', 'webhook_endpoint_attempts_total', 'sessions_provider_verifications_total', 'ledger_checks_total', 'rpc_round_trip_seconds_count', 'process_cpu_seconds_total']) {
      expect(defined).toContain(name);
    }
    const used = new Map<string, string>();
    for (const rule of rules) for (const name of metricNames(rule.expr)) used.set(name, `alert ${rule.alert}`);
    for (const { file, text } of dashboards) {
      for (const panel of (JSON.parse(text) as { panels: Panel[] }).panels) {
        for (const target of panel.targets ?? []) for (const name of metricNames(target.expr)) used.set(name, `${file}: ${panel.title}`);
      }
    }
    expect(used.size).toBeGreaterThan(15);
    const unknown = [...used].filter(([name]) => !defined.has(name)).map(([name, where]) => `${name} (${where})`);
    expect(unknown).toEqual([]);
  });
});
