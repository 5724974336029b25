/**
 * Lets V8's memory reducer run while the exporter idles between polls.
 *
 * The pages a major collection empties stay resident in V8's page pool until a memory-reducing
 * collection returns them, and V8 starts one on its own only when its memory reducer finds that
 * allocation has slowed down: the young generation's, the old generation's and the embedder's
 * (Node's C++ heap). In Node 24's V8 an embedder rate of exactly zero, that of a process that
 * allocates nothing on that heap, counts as the fastest: `--trace-memory-reducer` then reports
 * "high alloc" at every check, for ever, and the exporter keeps its first poll's peak.
 * Compiling a `vm.Script` allocates on that heap, so the rate is above zero and decays; the next
 * check of an idle exporter passes and the reducer collects, incrementally. The gain between
 * polls: docs/scaling.md, "Mechanisms and what each one buys". The highest RSS, the first poll's,
 * it does not lower.
 */
import { Script } from 'node:vm';

/** Allocates on Node's C++ heap (a trivial script): call it when a poll ends. */
export function nudgeMemoryReducer(): void {
  new Script('');
}
