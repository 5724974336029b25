import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MALLOC_ARENA_MAX,
  DEFAULT_MALLOC_MMAP_THRESHOLD,
  DEFAULT_OLD_SPACE_MIB,
  DEFAULT_SEMI_SPACE_MIB,
  type StartInput,
  startFlags,
} from '../../src/util/heap-ceiling.ts';

const GiB = 2 ** 30;
/** A 24 GiB host without a memory limit: Node reports 2^64 as the constrained memory. */
const host: StartInput = {
  args: ['--config', 'config.yaml'],
  execArgv: [],
  env: {},
  constrainedMemoryBytes: 2 ** 64,
  totalMemoryBytes: 24 * GiB,
};
const MALLOC = {
  MALLOC_ARENA_MAX: DEFAULT_MALLOC_ARENA_MAX,
  MALLOC_MMAP_THRESHOLD_: DEFAULT_MALLOC_MMAP_THRESHOLD,
};
const CEILING = [
  `--max-old-space-size=${DEFAULT_OLD_SPACE_MIB}`,
  `--max-semi-space-size=${DEFAULT_SEMI_SPACE_MIB}`,
];

describe('startFlags', () => {
  it('sets a heap ceiling and the malloc arenas without a memory limit', () => {
    expect(startFlags(host)).toEqual({ execArgv: CEILING, env: MALLOC });
    // Some Node versions report 0 without a limit.
    expect(startFlags({ ...host, constrainedMemoryBytes: 0 }).execArgv).toEqual(CEILING);
  });

  it('shares one malloc arena among all threads, under a memory limit or not', () => {
    // A second arena kept 7 to 9 MiB resident at 100k series (bench:memory, MALLOC_ARENA_MAX=2).
    expect(startFlags(host).env.MALLOC_ARENA_MAX).toBe('1');
    expect(startFlags({ ...host, constrainedMemoryBytes: 512 * 2 ** 20 }).env.MALLOC_ARENA_MAX).toBe('1');
  });

  it('leaves the heap to Node under a memory limit, which it sizes the heap from', () => {
    const limited = { ...host, constrainedMemoryBytes: 512 * 2 ** 20 };
    expect(startFlags(limited)).toEqual({ execArgv: [], env: MALLOC });
  });

  it.each([
    ['the command line', { execArgv: ['--max-old-space-size=1024'] }],
    ['NODE_OPTIONS', { env: { NODE_OPTIONS: '--enable-source-maps --max-old-space-size=1024' } }],
    ['NODE_OPTIONS, with underscores', { env: { NODE_OPTIONS: '--max_old_space_size=1024' } }],
  ])('keeps a heap size given on %s', (_, given) => {
    const flags = startFlags({ ...host, ...given });
    expect(flags.execArgv).toEqual([`--max-semi-space-size=${DEFAULT_SEMI_SPACE_MIB}`]);
  });

  it('keeps a semi-space size and malloc arenas already set', () => {
    const flags = startFlags({
      ...host,
      execArgv: ['--max-semi-space-size=16'],
      env: { MALLOC_ARENA_MAX: '8' },
    });
    expect(flags).toEqual({
      execArgv: [`--max-old-space-size=${DEFAULT_OLD_SPACE_MIB}`],
      env: { MALLOC_MMAP_THRESHOLD_: DEFAULT_MALLOC_MMAP_THRESHOLD },
    });
  });

  it('leaves malloc alone when GLIBC_TUNABLES is set', () => {
    expect(startFlags({ ...host, env: { GLIBC_TUNABLES: 'glibc.malloc.arena_max=4' } }).env).toEqual({});
  });

  it('adds nothing once started with its own flags, so the binary re-executes at most once', () => {
    const first = startFlags(host);
    const again = startFlags({
      ...host,
      execArgv: [...first.execArgv],
      env: { ...host.env, ...first.env },
    });
    expect(again).toEqual({ execArgv: [], env: {} });
  });

  it.each([
    ['check-config', 'config.yaml'],
    ['once', '--config', 'config.yaml'],
    ['simulate'],
    ['--version'],
    ['--config', 'config.yaml', '-h'],
  ])('adds nothing for a command that does not serve metrics: %s', (...args) => {
    expect(startFlags({ ...host, args })).toEqual({ execArgv: [], env: {} });
  });

  it('takes --max-heap-size for both generations', () => {
    expect(startFlags({ ...host, execArgv: ['--max-heap-size=300'] }).execArgv).toEqual([]);
  });
});
