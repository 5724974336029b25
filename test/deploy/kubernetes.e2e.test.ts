import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { PROMETHEUS_RULE_PATH, renderPrometheusRule } from '../../scripts/prometheusrule.ts';
import { configSchema } from '../../src/config/schema.ts';
import { resolveShard } from '../../src/sharding/shard.ts';

const DIR = 'deploy/kubernetes';

// biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below.
type Manifest = any;

function manifest(file: string): Manifest {
  return parse(readFileSync(path.join(DIR, file), 'utf8'));
}

function onPath(bin: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((d) => d !== '' && existsSync(path.join(d, bin)));
}

describe('deploy/kubernetes', () => {
  const kustomization = manifest('kustomization.yaml');
  const sts = manifest('statefulset.yaml');
  const service = manifest('service.yaml');

  it('has only YAML files that parse', () => {
    for (const file of readdirSync(DIR)) {
      expect(file).toMatch(/\.yaml$/);
      for (const doc of parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8'))) {
        expect(doc.errors, file).toEqual([]);
      }
    }
  });

  it('lists files that exist, and every manifest in the folder', () => {
    const listed = [
      ...kustomization.resources,
      ...kustomization.configMapGenerator.flatMap((g: { files: string[] }) => g.files),
    ];
    for (const file of listed) expect(existsSync(path.join(DIR, file)), file).toBe(true);
    const unlisted = readdirSync(DIR).filter((f) => f !== 'kustomization.yaml' && !listed.includes(f));
    expect(unlisted).toEqual([]);
  });

  it('keeps the PrometheusRule in sync with prometheus/rules (run `npm run gen` when this fails)', () => {
    expect(readFileSync(PROMETHEUS_RULE_PATH, 'utf8')).toBe(renderPrometheusRule('prometheus/rules'));
    const shipped = parse(readFileSync('prometheus/rules/station-exporter.rules.yml', 'utf8'));
    expect(manifest('prometheusrule.yaml').spec.groups).toEqual(shipped.groups);
  });

  it('gives every pod a valid shard: ordinals 0..replicas-1 of STATION_EXPORTER_SHARDS = replicas', () => {
    const container = sts.spec.template.spec.containers[0];
    const total = container.env.find((e: { name: string }) => e.name === 'STATION_EXPORTER_SHARDS').value;
    expect(total).toBe(String(sts.spec.replicas));
    const owners = Array.from({ length: sts.spec.replicas }, (_, i) =>
      resolveShard({ hostname: `${sts.metadata.name}-${i}`, totalFromEnv: total }),
    );
    expect(owners).toEqual(owners.map((_, index) => ({ shard: { index, total: sts.spec.replicas } })));
  });

  it('wires the headless Service, the config and the token file together', () => {
    expect(service.spec.clusterIP).toBe('None');
    // The shipped rules select job="station-exporter": the ServiceMonitor's job is the Service name.
    expect(service.metadata.name).toBe('station-exporter');
    expect(sts.spec.serviceName).toBe(service.metadata.name);
    const pod = sts.spec.template.spec;
    const mountOf = (volume: string) =>
      pod.containers[0].volumeMounts.find((m: { name: string }) => m.name === volume).mountPath;
    const configVolume = pod.volumes.find((v: Manifest) => v.name === 'config');
    expect(configVolume.configMap.name).toBe(kustomization.configMapGenerator[0].name);
    const args: string[] = pod.containers[0].args;
    expect(args[args.indexOf('--config') + 1]).toBe(`${mountOf('config')}/config.yaml`);
    const tokenVolume = pod.volumes.find((v: Manifest) => v.name === 'token');
    const secret = manifest('secret.yaml');
    expect(tokenVolume.secret.secretName).toBe(secret.metadata.name);
    const config = parse(readFileSync(path.join(DIR, 'config.yaml'), 'utf8'));
    expect(config.upstream.token_file).toBe(`${mountOf('token')}/${Object.keys(secret.stringData)[0]}`);
    // The schema accepts it (the token file itself exists only in the pod).
    const parsed = configSchema.safeParse(config);
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it.skipIf(!onPath('kubectl') && !process.env.CI)('builds with kubectl kustomize', () => {
    const r = spawnSync('kubectl', ['kustomize', DIR], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const kinds = parseAllDocuments(r.stdout).map((d) => (d.toJS() as { kind: string }).kind);
    expect(kinds.sort()).toEqual(
      ['ConfigMap', 'PrometheusRule', 'Secret', 'Service', 'ServiceMonitor', 'StatefulSet'].sort(),
    );
  });
});
