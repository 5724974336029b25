/**
 * Runs the synthetic render in a process of its own: its RSS is then that of 100k series
 * and the cache alone, and the exporter run's heap cannot slow its garbage collection.
 */
import { runSynthetic } from './synthetic.ts';

const { series, runs } = JSON.parse(process.argv[2] ?? '{}') as { series: number; runs: number };
process.send?.(await runSynthetic(series, runs));
process.disconnect?.();
