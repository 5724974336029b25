import bcrypt from 'bcryptjs';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Registry } from '../../../src/exposition/client.ts';
import { registerWebConfigMetrics } from '../../../src/server/web-config/metrics.ts';
import { watchWebConfig } from '../../../src/server/web-config/watch.ts';
import { FileReadError } from '../../../src/util/read-file.ts';
import { ALIAS_BOMB_LINES } from '../../helpers/yaml.ts';

const HASH_A = bcrypt.hashSync('a', 4);
const HASH_B = bcrypt.hashSync('b', 4);

/** A file's content, or what reading it does instead. */
type FakeFile = string | { readonly refused: string } | { readonly hang: true };

async function setup(initial: string) {
  const files: Record<string, FakeFile> = { '/web.yml': initial };
  let now = 1_000_000;
  vi.spyOn(Date, 'now').mockImplementation(() => now);
  let reads = 0;
  const lines: Array<{ level: number; msg: string; err?: string }> = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l)) });
  const hanging: Array<() => void> = [];
  const source = await watchWebConfig({
    path: '/web.yml',
    logger,
    read: async (p) => {
      reads++;
      const c = files[p];
      if (c === undefined) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      if (typeof c === 'string') return Buffer.from(c);
      if ('refused' in c) throw new FileReadError(p, { reason: 'not_regular', problem: c.refused });
      // Stands for a slow read: released by the test, then reads what the file holds by then.
      await new Promise<void>((resolve) => hanging.push(resolve));
      return Buffer.from(`basic_auth_users:\n  b: '${HASH_B}'\n`);
    },
  });
  return {
    source,
    files,
    lines,
    reads: () => reads,
    hanging,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('web config watcher', () => {
  it('re-reads at most once per interval and picks up a new user', async () => {
    const w = await setup(`basic_auth_users:\n  a: '${HASH_A}'\n`);
    expect(w.reads()).toBe(1);
    w.files['/web.yml'] = `basic_auth_users:\n  a: '${HASH_A}'\n  b: '${HASH_B}'\n`;
    w.advance(999);
    expect([...w.source.current().users.keys()]).toEqual(['a']);
    expect(w.reads()).toBe(1);
    w.advance(1);
    // The request that finds a check due is served with the config in force and starts the re-read.
    expect([...w.source.current().users.keys()]).toEqual(['a']);
    expect(w.reads()).toBe(2);
    expect([...(await w.source.refresh()).users.keys()]).toEqual(['a', 'b']);
    expect([...w.source.current().users.keys()]).toEqual(['a', 'b']);
    expect(w.reads()).toBe(2);
    expect(w.lines.map((l) => l.msg)).toEqual(['web config reloaded']);
  });

  it('keeps the last good config when the file turns bad, logs once, and recovers', async () => {
    const w = await setup(`basic_auth_users:\n  a: '${HASH_A}'\n`);
    const changed: number[] = [];
    w.source.onChange((c) => changed.push(c.users.size));
    const registry = new Registry();
    registerWebConfigMetrics(registry, w.source.status);
    w.files['/web.yml'] = 'basic_auth_users:\n  a: not-a-hash\n';
    for (let i = 0; i < 3; i++) {
      w.advance(1000);
      w.source.current();
      expect([...(await w.source.refresh()).users.keys()]).toEqual(['a']);
    }
    expect(w.source.status().lastReloadOk).toBe(false);
    const errors = w.lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.err).toContain('basic_auth_users.a: must be a bcrypt hash');
    w.files['/web.yml'] = `basic_auth_users:\n  b: '${HASH_B}'\n`;
    w.advance(1000);
    expect([...(await w.source.refresh()).users.keys()]).toEqual(['b']);
    expect(w.source.status()).toEqual({ lastReloadOk: true, lastSuccessMs: 1_004_000 });
    expect(changed).toEqual([1]);
  });

  it('exports the outcome of the last re-read', async () => {
    const w = await setup('{}');
    const registry = new Registry();
    registerWebConfigMetrics(registry, w.source.status);
    const text = () => registry.metrics();
    expect(await text()).toContain('station_exporter_web_config_last_reload_successful 1');
    expect(await text()).toContain('station_exporter_web_config_last_reload_success_timestamp_seconds 1000');
    delete w.files['/web.yml'];
    await w.source.refresh();
    expect(await text()).toContain('station_exporter_web_config_last_reload_successful 0');
    expect(await text()).toContain('station_exporter_web_config_last_reload_success_timestamp_seconds 1000');
  });

  it('fails at start-up on a bad file', async () => {
    await expect(setup('tls_server_config: {}\n')).rejects.toThrow(
      'tls_server_config.cert_file: is required\n  tls_server_config.key_file: is required',
    );
  });

  it('fails at start-up on an empty file, which would serve without auth', async () => {
    await expect(setup('')).rejects.toThrow('the file is empty (or only comments)');
  });

  it.each<[string, FakeFile, string]>([
    ['empty', '', 'the file is empty (or only comments)'],
    ['only comments', '# emptied by a config tool\n', 'the file is empty (or only comments)'],
    ['unparsable', 'basic_auth_users: [\n', 'line 2, column 1'],
    [
      'an alias bomb',
      `bomb:\n  ${ALIAS_BOMB_LINES.join('\n  ')}\n`,
      'YAML aliases repeat too much: more than 100 alias uses (an alias bomb?)',
    ],
    [
      'a FIFO',
      { refused: 'is a FIFO (named pipe), not a regular file' },
      'cannot read web config file: is a FIFO (named pipe), not a regular file',
    ],
    [
      'a directory',
      { refused: 'is a directory, not a regular file' },
      'cannot read web config file: is a directory, not a regular file',
    ],
  ])('keeps basic auth on when a re-read finds the file %s', async (_name, bad, error) => {
    const w = await setup(`basic_auth_users:\n  a: '${HASH_A}'\n`);
    const registry = new Registry();
    registerWebConfigMetrics(registry, w.source.status);
    w.files['/web.yml'] = bad;
    for (let i = 0; i < 3; i++) {
      w.advance(1000);
      w.source.current();
      await w.source.refresh();
      expect([...w.source.current().users.keys()]).toEqual(['a']);
    }
    expect(await registry.metrics()).toContain('station_exporter_web_config_last_reload_successful 0');
    expect(w.lines.map((l) => l.msg)).toEqual(['web config reload failed; keeping the last good one']);
    expect(w.lines[0]?.err).toContain(error);
  });

  it('reads once at a time and serves the config in force while a read is slow', async () => {
    const w = await setup(`basic_auth_users:\n  a: '${HASH_A}'\n`);
    w.files['/web.yml'] = { hang: true };
    w.advance(1000);
    for (let i = 0; i < 5; i++) {
      w.advance(1000);
      expect([...w.source.current().users.keys()]).toEqual(['a']);
    }
    expect(w.reads()).toBe(2);
    expect(w.hanging).toHaveLength(1);
    const done = w.source.refresh();
    w.hanging[0]?.();
    expect([...(await done).users.keys()]).toEqual(['b']);
    expect(w.reads()).toBe(2);
  });
});
