/**
 * The node flags and environment bin/station-exporter.js starts the exporter with (the malloc
 * variables are glibc's; other C libraries ignore them). Without a memory limit Node sizes the heap
 * from the host, and V8 lets it grow to 4x what is live: 550 MiB where 50 MiB is live at 100k
 * series. So the binary applies what Node would pick under a 512 MiB limit, re-executing node
 * (a running process cannot move its heap limit) when it is about to run the exporter.
 */

/** Old-generation ceiling without a memory limit, in MiB: what Node picks under 512 MiB. */
export const DEFAULT_OLD_SPACE_MIB = 256;
/**
 * Semi-space ceiling in MiB: otherwise sized from the host (3 x 64 MiB); Node's 1 MiB under a
 * 512 MiB limit makes short-lived render strings cost more collections, 4 keeps them cheap.
 */
export const DEFAULT_SEMI_SPACE_MIB = 4;

/**
 * glibc's malloc arenas, each keeping its freed memory: the thread pool and V8's helpers held 9
 * (25 MiB) at 100k series, 2 still 7 to 9 MiB. With 1 all share the main heap, and the lock is
 * taken rarely: large blocks are mmapped above the threshold below anyway.
 */
export const DEFAULT_MALLOC_ARENA_MAX = '1';

/**
 * Allocations from this size up get mappings of their own, returned when freed. Fixed, because
 * glibc raises its threshold as such blocks are freed, and the render blocks then left holes in
 * the heap that stayed resident: 23 MiB at 100k series.
 */
export const DEFAULT_MALLOC_MMAP_THRESHOLD = '131072';

/**
 * What {@link startFlags} decides from: the exporter's arguments, process.execArgv and env,
 * process.constrainedMemory() (0 or huge without a limit) and os.totalmem().
 */
export interface StartInput {
  readonly args: readonly string[];
  readonly execArgv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly constrainedMemoryBytes: number;
  readonly totalMemoryBytes: number;
}

/** What to add: node flags, and environment variables; both empty when nothing is needed. */
export interface StartFlags {
  readonly execArgv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

const HEAP_FLAGS = /^--(max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)(=|$)/;
const SEMI_FLAGS = /^--(max[-_]semi[-_]space[-_]size|max[-_]heap[-_]size)(=|$)/;

/** True when a flag matching `pattern` is on node's command line or in NODE_OPTIONS. */
function given(input: StartInput, pattern: RegExp): boolean {
  const options = (input.env.NODE_OPTIONS ?? '').split(/\s+/);
  return [...input.execArgv, ...options].some((flag) => pattern.test(flag));
}

/** True for the arguments that run the exporter: no subcommand, no --help or --version. */
function servesMetrics(args: readonly string[]): boolean {
  const [first] = args;
  if (first !== undefined && !first.startsWith('-')) return false;
  return !args.some((a) => ['--help', '-h', '--version', '-v'].includes(a));
}

/** True when the process runs under a memory limit smaller than the host's memory. */
function underMemoryLimit(input: StartInput): boolean {
  const c = input.constrainedMemoryBytes;
  return c > 0 && c < input.totalMemoryBytes;
}

/**
 * The flags and environment to start the exporter with: a heap ceiling without a memory limit or
 * a given heap size, and glibc's malloc settings unless set (or GLIBC_TUNABLES is). Nothing when
 * the process already runs so, so that the binary re-executes node at most once.
 */
export function startFlags(input: StartInput): StartFlags {
  // A subcommand, --help or --version ends in a moment: not worth starting node twice.
  if (!servesMetrics(input.args)) return { execArgv: [], env: {} };
  const execArgv: string[] = [];
  if (!underMemoryLimit(input)) {
    if (!given(input, HEAP_FLAGS)) execArgv.push(`--max-old-space-size=${DEFAULT_OLD_SPACE_MIB}`);
    if (!given(input, SEMI_FLAGS)) execArgv.push(`--max-semi-space-size=${DEFAULT_SEMI_SPACE_MIB}`);
  }
  const env: Record<string, string> = {};
  // GLIBC_TUNABLES set by hand says the allocator is being tuned already: leave it all alone.
  if (input.env.GLIBC_TUNABLES === undefined) {
    if (input.env.MALLOC_ARENA_MAX === undefined) env.MALLOC_ARENA_MAX = DEFAULT_MALLOC_ARENA_MAX;
    if (input.env.MALLOC_MMAP_THRESHOLD_ === undefined)
      env.MALLOC_MMAP_THRESHOLD_ = DEFAULT_MALLOC_MMAP_THRESHOLD;
  }
  return { execArgv, env };
}
