/**
 * Lets V8's memory reducer run while the exporter idles between polls. Emptied pages stay resident
 * until a memory-reducing collection, which V8 starts only once allocation slows, Node's C++ heap
 * included; in Node 24 a rate of exactly zero there counts as the fastest ("high alloc" for ever).
 * Compiling a `vm.Script` allocates there, so the rate decays and the reducer runs. The gain:
 * docs/scaling.md, "Mechanisms and what each one buys".
 */
import { Script } from 'node:vm';

/** Allocates on Node's C++ heap (a trivial script): call it when a poll ends. */
export function nudgeMemoryReducer(): void {
  new Script('');
}
