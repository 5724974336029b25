/**
 * The Dockerfile, linted and checked for what an operator relies on. hadolint cannot be
 * installed here (no Debian package; its wheel's registry is unreachable), so the linter is
 * dockerfile-utils (npm: syntax and meaning of every instruction), and the operator's rules are
 * tests below: a pinned base, a non-root user, no ADD from URLs, no dependency tree beside the bundle,
 * a HEALTHCHECK, no secrets in layers. test/deploy/image.e2e.test.ts builds and runs the image.
 */
import { existsSync, readFileSync } from 'node:fs';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';

interface Instruction {
  readonly op: string;
  readonly args: string;
}

interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly body: Instruction[];
}

/** Instructions in order, continuation lines joined, comments dropped. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [op = '', ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

/** The global ARG defaults and the stages, with `${ARG}` in FROM resolved. */
function parse(text: string): { args: Map<string, string>; stages: Stage[] } {
  const args = new Map<string, string>();
  const stages: { from: string; name: string | undefined; body: Instruction[] }[] = [];
  for (const ins of instructions(text)) {
    if (ins.op === 'FROM') {
      const [image = '', as, name] = ins.args.split(/\s+/);
      const from = image.replace(/\$\{(\w+)\}/g, (_, v: string) => args.get(v) ?? `<unset ${v}>`);
      stages.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, body: [] });
    } else if (stages.length === 0 && ins.op === 'ARG') {
      const [key = '', value = ''] = ins.args.split('=', 2);
      args.set(key, value);
    } else {
      stages.at(-1)?.body.push(ins);
    }
  }
  return { args, stages };
}

const text = readFileSync('Dockerfile', 'utf8');
const dockerfile = parse(text);
const final = dockerfile.stages.at(-1)!;
const ignored = readFileSync('.dockerignore', 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));

function stage(name: string): Stage {
  const s = dockerfile.stages.find((st) => st.name === name);
  if (!s) throw new Error(`no stage named ${name}`);
  return s;
}

function copies(s: Stage): { from: string | undefined; sources: string[]; dest: string }[] {
  return s.body
    .filter((i) => i.op === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((w) => !w.startsWith('--'));
      return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
    });
}

describe('Dockerfile', () => {
  it('passes the dockerfile-utils linter', () => {
    const problems = validate(text).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    expect(problems).toEqual([]);
    // The linter does find what it should: a broken copy of the file fails.
    expect(
      validate(text.replace('HEALTHCHECK --interval=30s', 'HEALTHCHECK --intervall=30s')).length,
    ).toBeGreaterThan(0);
  });

  it('builds every stage on node:24-slim pinned to a release', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const s of dockerfile.stages) expect(s.from).toMatch(/^node:24\.\d+\.\d+-(bookworm-)?slim$/);
  });

  it('adds nothing from a URL and bakes no secret into a layer', () => {
    const all = [...instructions(text)];
    expect(all.filter((i) => i.op === 'ADD')).toEqual([]);
    // No ENV or ARG whose name says secret carries a value; npm's CA bundle is a path, mounted.
    const secretish = /(TOKEN|PASSWORD|PASSWD|SECRET|API_?KEY|AUTH)/i;
    for (const i of all.filter((x) => x.op === 'ENV' || x.op === 'ARG'))
      expect(secretish.test(i.args.split('=')[0] ?? ''), i.args).toBe(false);
    // No npm credentials or token files are copied, nor let into the context.
    const sources = dockerfile.stages.flatMap((s) => copies(s).flatMap((c) => c.sources));
    expect(sources.filter((p) => /npmrc|token|secret/i.test(p))).toEqual([]);
    expect(ignored).toContain('.npmrc');
  });

  it('runs the compiled dist/ as a non-root user, with a health check', () => {
    const user = final.body.filter((i) => i.op === 'USER').at(-1);
    expect(user?.args).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user!.args);
    expect(final.body.some((i) => i.op === 'HEALTHCHECK' && i.args.includes('/-/healthy'))).toBe(true);
    const entry = JSON.parse(final.body.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
    expect(entry).toEqual(['node', '/app/bin/station-exporter.js']);
    const dist = copies(final).find((c) => c.sources.includes('/app/dist'));
    expect(dist?.from).toBeDefined();
    expect(stage(dist!.from!).body.some((i) => i.op === 'RUN' && i.args.includes('npm run build'))).toBe(
      true,
    );
  });

  it('ships the bundle with no node_modules and no sources', () => {
    // dist/ holds the runtime dependencies (scripts/bundle.mjs): no dependency tree is copied in,
    // so no development tool can come along with one.
    const sources = copies(final).flatMap((c) => c.sources);
    expect(sources.filter((p) => /node_modules/.test(p))).toEqual([]);
    expect(final.body.filter((i) => i.op === 'RUN')).toEqual([]);
    const local = copies(final).filter((c) => c.from === undefined);
    expect(local.flatMap((c) => c.sources).filter((p) => /^(src|test|bench|scripts)\b/.test(p))).toEqual([]);
  });

  it('copies only files that exist and that .dockerignore lets into the context', () => {
    for (const s of dockerfile.stages) {
      for (const p of copies(s)
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources)) {
        expect(existsSync(p), p).toBe(true);
        expect(
          ignored.filter((pattern) => p === pattern || p.startsWith(`${pattern}/`)),
          p,
        ).toEqual([]);
      }
    }
  });

  it('keeps tests, bench, dependencies and builds out of the context', () => {
    for (const dir of ['test', 'bench', 'node_modules', 'dist', '.git']) expect(ignored).toContain(dir);
  });
});
