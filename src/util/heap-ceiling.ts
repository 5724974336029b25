/**
 * The node flags and environment bin/station-exporter.js starts the exporter with. The
 * malloc variables are glibc's (Debian, Ubuntu, RHEL images); other C libraries ignore them.
 *
 * Without a memory limit, Node sizes V8's heap from the host's memory: on a host with tens of
 * GiB the old generation may reach 4 GiB, the young generation 128 MiB, and V8 lets the heap
 * grow to 4x what is live before it collects. The exporter at 100k series then sits near
 * 550 MiB where 50 MiB is live. Under a memory limit (a container, systemd's MemoryMax) Node
 * sizes the heap from the limit instead; without one, the binary applies the heap Node would
 * pick under the StatefulSet's 512 MiB limit. These flags cannot be set from inside a
 * running process (v8.setFlagsFromString does not move the heap limit), so the binary
 * re-executes node with them, when it is about to run the exporter (not for a subcommand).
 */

/** Old-generation ceiling without a memory limit, in MiB: what Node picks under 512 MiB. */
export const DEFAULT_OLD_SPACE_MIB = 256;
/**
 * Semi-space ceiling in MiB. --max-old-space-size alone leaves the young generation sized
 * from the host (3 x 64 MiB); Node picks 1 MiB under a 512 MiB limit, which makes short-lived
 * render strings cost more collections; 4 keeps them cheap for 12 MiB.
 */
export const DEFAULT_SEMI_SPACE_MIB = 4;

/**
 * glibc's malloc arenas: one per thread that allocates, up to 8 per core, each keeping its
 * freed memory. The zlib and file-system thread pool and V8's helper threads held 9 arenas
 * (25 MiB) at 100k series; with 2, the second arena still kept 7 to 9 MiB resident at 100k
 * series. With 1 every thread shares the main heap: the thread pool's large blocks (deflate
 * state, bodies) are mmapped above the threshold below anyway, so the lock is taken rarely.
 */
export const DEFAULT_MALLOC_ARENA_MAX = '1';

/**
 * Allocations from this size up get mappings of their own, returned to the system when freed.
 * glibc starts at 128 KiB but raises the threshold as such blocks are freed, up to 32 MiB;
 * the render blocks (up to 1 MiB, freed once deflated) then stay in the heap, and the holes
 * they leave stayed resident: 23 MiB at 100k series.
 */
export const DEFAULT_MALLOC_MMAP_THRESHOLD = '131072';

/** What {@link startFlags} decides from. */
export interface StartInput {
  /** The exporter's arguments (process.argv after the script). */
  readonly args: readonly string[];
  /** process.execArgv: flags given on node's command line. */

  readonly execArgv: readonly string[];
  /** process.env. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** process.constrainedMemory(): the cgroup's limit in bytes, 0 or huge without one. */
  readonly constrainedMemoryBytes: number;
  /** os.totalmem(). */
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
export function servesMetrics(args: readonly string[]): boolean {
  const [first] = args;
  if (first !== undefined && !first.startsWith('-')) return false;
  return !args.some((a) => ['--help', '-h', '--version', '-v'].includes(a));
}

/** True when the process runs under a memory limit smaller than the host's memory. */
export function underMemoryLimit(input: StartInput): boolean {
  const c = input.constrainedMemoryBytes;
  return c > 0 && c < input.totalMemoryBytes;
}

/**
 * The flags and environment to start the exporter with: a heap ceiling when there is no
 * memory limit and no heap size was given (on the command line or in NODE_OPTIONS, which
 * override it), and glibc's malloc settings unless set (or GLIBC_TUNABLES is). Returns nothing to add when the process
 * already runs as it should, so that the binary re-executes node at most once.
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
