/**
 * Where a process's resident memory sits, from /proc/self/smaps and V8's own statistics:
 * what process.memoryUsage() cannot tell apart. Linux only; elsewhere it returns undefined.
 *
 * glibc gives each thread that allocates (the zlib and file-system thread pool, V8's
 * compiler and GC helpers) an arena of its own: a 64 MiB-aligned reservation of exactly
 * 64 MiB, read-write at the front. That shape tells those arenas from V8's pages and from
 * large allocations, which get mappings of their own.
 */
import { existsSync, readFileSync } from 'node:fs';
import v8 from 'node:v8';

const ARENA = 64 * 2 ** 20;

/** Mappings of /proc/self/smaps with their start, end, path and resident kB. */
function mappings() {
  const out = [];
  let cur;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      cur = {
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3],
        path: head[4],
        rssKb: 0,
      };
      out.push(cur);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && cur) cur.rssKb = Number(rss[1]);
  }
  return out;
}

/** Resident MiB by kind of mapping. */
export function memoryDetail() {
  if (!existsSync('/proc/self/smaps')) return undefined;
  const maps = mappings();
  const kb = { files: 0, mainHeap: 0, threadArenas: 0, stacks: 0, otherAnon: 0 };
  let arenas = 0;
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i];
    if (m.path.startsWith('/')) kb.files += m.rssKb;
    else if (m.path === '[heap]') kb.mainHeap += m.rssKb;
    else if (m.path.startsWith('[stack')) kb.stacks += m.rssKb;
    else if (m.path === '' && isArena(m, maps[i + 1])) {
      kb.threadArenas += m.rssKb;
      arenas++;
    } else kb.otherAnon += m.rssKb;
  }
  const spaces = {};
  for (const s of v8.getHeapSpaceStatistics())
    spaces[s.space_name] = { physicalMiB: mib(s.physical_space_size * 1), usedMiB: mib(s.space_used_size) };
  const h = v8.getHeapStatistics();
  return {
    filesMiB: kb.files / 1024,
    mainHeapMiB: kb.mainHeap / 1024,
    threadArenasMiB: kb.threadArenas / 1024,
    threadArenas: arenas,
    stacksMiB: kb.stacks / 1024,
    otherAnonMiB: kb.otherAnon / 1024,
    v8PhysicalMiB: mib(h.total_physical_size),
    v8HeapLimitMiB: mib(h.heap_size_limit),
    mallocedMiB: mib(h.malloced_memory),
    externalMiB: mib(h.external_memory ?? 0),
    spaces,
  };
}

function isArena(m, next) {
  if (m.start % BigInt(ARENA) !== 0n || m.perms !== 'rw-p') return false;
  const size = m.end - m.start;
  if (size === BigInt(ARENA)) return true;
  return (
    next !== undefined &&
    next.perms === '---p' &&
    next.start === m.end &&
    next.end - m.start === BigInt(ARENA)
  );
}

function mib(bytes) {
  return Math.round((bytes / 2 ** 20) * 10) / 10;
}
