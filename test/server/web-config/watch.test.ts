import bcrypt from 'bcryptjs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../../src/exposition/client.ts';
import { registerWebConfigMetrics } from '../../../src/server/web-config/metrics.ts';
import { watchWebConfig } from '../../../src/server/web-config/watch.ts';

const HASH_A = bcrypt.hashSync('a', 4);
const HASH_B = bcrypt.hashSync('b', 4);

function setup(initial: string) {
  const files: Record<string, string> = { '/web.yml': initial };
  let now = 1_000_000;
  let reads = 0;
  const lines: Array<{ level: number; msg: string; err?: string }> = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l)) });
  const source = watchWebConfig({
    path: '/web.yml',
    logger,
    clock: () => now,
    checkIntervalMs: 1000,
    read: (p) => {
      reads++;
      const c = files[p];
      if (c === undefined) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      return Buffer.from(c);
    },
  });
  return {
    source,
    files,
    lines,
    reads: () => reads,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('web config watcher', () => {
  it('re-reads at most once per interval and picks up a new user', () => {
    const w = setup(`basic_auth_users:\n  a: '${HASH_A}'\n`);
    expect(w.reads()).toBe(1);
    w.files['/web.yml'] = `basic_auth_users:\n  a: '${HASH_A}'\n  b: '${HASH_B}'\n`;
    w.advance(999);
    expect([...w.source.current().users.keys()]).toEqual(['a']);
    expect(w.reads()).toBe(1);
    w.advance(1);
    expect([...w.source.current().users.keys()]).toEqual(['a', 'b']);
    expect(w.reads()).toBe(2);
    expect(w.lines.map((l) => l.msg)).toEqual(['web config reloaded']);
  });

  it('keeps the last good config when the file turns bad, logs once, and recovers', () => {
    const w = setup(`basic_auth_users:\n  a: '${HASH_A}'\n`);
    const changed: number[] = [];
    w.source.onChange((c) => changed.push(c.users.size));
    const registry = new Registry();
    registerWebConfigMetrics(registry, w.source.status);
    w.files['/web.yml'] = 'basic_auth_users:\n  a: not-a-hash\n';
    for (let i = 0; i < 3; i++) {
      w.advance(1000);
      expect([...w.source.current().users.keys()]).toEqual(['a']);
    }
    expect(w.source.status().lastReloadOk).toBe(false);
    const errors = w.lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.err).toContain('basic_auth_users.a: must be a bcrypt hash');
    w.files['/web.yml'] = `basic_auth_users:\n  b: '${HASH_B}'\n`;
    w.advance(1000);
    expect([...w.source.current().users.keys()]).toEqual(['b']);
    expect(w.source.status()).toEqual({ lastReloadOk: true, lastSuccessMs: 1_004_000 });
    expect(changed).toEqual([1]);
  });

  it('exports the outcome of the last re-read', async () => {
    const w = setup('');
    const registry = new Registry();
    registerWebConfigMetrics(registry, w.source.status);
    const text = () => registry.metrics();
    expect(await text()).toContain('station_exporter_web_config_last_reload_successful 1');
    expect(await text()).toContain('station_exporter_web_config_last_reload_success_timestamp_seconds 1000');
    delete w.files['/web.yml'];
    w.source.refresh();
    expect(await text()).toContain('station_exporter_web_config_last_reload_successful 0');
    expect(await text()).toContain('station_exporter_web_config_last_reload_success_timestamp_seconds 1000');
  });

  it('fails at start-up on a bad file', () => {
    expect(() => setup('tls_server_config: {}\n')).toThrow(
      'tls_server_config.cert_file: is required\n  tls_server_config.key_file: is required',
    );
  });
});
