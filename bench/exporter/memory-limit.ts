/**
 * Runs a benchmark child the way the shipped StatefulSet runs the exporter: under a memory
 * limit. Node sizes V8's heap from the cgroup's limit (about half of it), and V8 lets a heap
 * grow to at most 1.3x its live size when that heap is small, against 4x on a machine with
 * tens of GiB and no limit; so the limit, not the code, sets most of the RSS seen between
 * polls. A memory cgroup is used when this process may create one (root, a writable cgroup
 * v1 memory controller or cgroup v2); otherwise the child gets the heap size Node would pick
 * under that limit as a flag, and the result says which it was.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

/** How to start a child under a memory limit. */
export interface MemoryLimit {
  /** Node executable to fork with (a wrapper that joins the cgroup), when a cgroup is used. */
  readonly execPath?: string;
  readonly execArgv: readonly string[];
  /** For the results: how the limit was applied. */
  readonly how: string;
  /** The limit, in bytes. */
  readonly bytes: number;
  /** Removes the cgroup and the wrapper once the child is gone. */
  cleanup(): void;
}

/** The memory controller directory of this process's cgroup, v1 or v2, if any. */
function ownMemoryCgroup(): { dir: string; limitFile: string; version: 1 | 2 } | undefined {
  const lines = existsSync('/proc/self/cgroup') ? readFileSync('/proc/self/cgroup', 'utf8').split('\n') : [];
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('memory'));
  if (v1 !== undefined && existsSync('/sys/fs/cgroup/memory')) {
    return {
      dir: join('/sys/fs/cgroup/memory', v1.split(':')[2] ?? '/'),
      limitFile: 'memory.limit_in_bytes',
      version: 1,
    };
  }
  const v2 = lines.find((l) => l.startsWith('0::'));
  if (v2 !== undefined && existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    return { dir: join('/sys/fs/cgroup', v2.slice(3)), limitFile: 'memory.max', version: 2 };
  }
  return undefined;
}

function viaCgroup(bytes: number, mib: number): MemoryLimit | undefined {
  const own = ownMemoryCgroup();
  if (own === undefined) return undefined;
  const dir = join(own.dir, `station-exporter-bench-${process.pid}`);
  const wrapper = join(tmpdir(), `station-exporter-bench-${process.pid}.sh`);
  try {
    if (own.version === 2) writeFileSync(join(own.dir, 'cgroup.subtree_control'), '+memory');
    mkdirSync(dir);
    writeFileSync(join(dir, own.limitFile), String(bytes));
    // The wrapper moves itself into the cgroup, then becomes node (the IPC channel survives exec).
    writeFileSync(
      wrapper,
      `#!/bin/sh\necho $$ > '${dir}/cgroup.procs' || exit 97\nexec '${process.execPath}' "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
  } catch {
    cleanupCgroup(dir, wrapper);
    return undefined;
  }
  return {
    execPath: wrapper,
    execArgv: [],
    how: `a ${mib} MiB memory cgroup (v${own.version})`,
    bytes,
    cleanup: () => cleanupCgroup(dir, wrapper),
  };
}

function cleanupCgroup(dir: string, wrapper: string): void {
  try {
    if (existsSync(dir)) rmdirSync(dir);
  } catch {
    // A cgroup still holding a process cannot be removed; the child is gone by now.
  }
  try {
    if (existsSync(wrapper)) unlinkSync(wrapper);
  } catch {
    // Temporary file; nothing depends on it.
  }
}

/** A memory limit of `mib` MiB for a child: a cgroup when possible, else the equivalent heap size. */
export function memoryLimit(mib: number): MemoryLimit {
  const cg = viaCgroup(mib * 2 ** 20, mib);
  if (cg) return cg;
  const heap = Math.round(mib / 2);
  return {
    execArgv: [`--max-old-space-size=${heap}`],
    how: `--max-old-space-size=${heap}, the heap Node sizes for a ${mib} MiB limit (no memory cgroup could be created here)`,
    bytes: mib * 2 ** 20,
    cleanup: () => {},
  };
}

/** The memory limit of the shipped StatefulSet's exporter container, in MiB (e.g. `512Mi`). */
export function shippedMemoryLimitMiB(): number {
  const file = new URL('../../deploy/kubernetes/statefulset.yaml', import.meta.url);
  const doc = parse(readFileSync(file, 'utf8')) as {
    spec?: { template?: { spec?: { containers?: Array<{ resources?: { limits?: { memory?: string } } }> } } };
  };
  const limit = doc.spec?.template?.spec?.containers?.[0]?.resources?.limits?.memory ?? '';
  const m = /^(\d+)(Mi|Gi)$/.exec(limit);
  if (!m)
    throw new Error(`deploy/kubernetes/statefulset.yaml: no memory limit in Mi or Gi (found "${limit}")`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
}
