/**
 * Runs the control-chart bench in a process of its own: its store (millions of baseline
 * records) neither slows the main run's garbage collection nor counts in its RSS.
 */
import { runControlBench } from './control.ts';

const { stations, baselineHours } = JSON.parse(process.argv[2] ?? '{}') as {
  stations: number;
  baselineHours: number;
};
process.send?.(await runControlBench(stations, baselineHours));
process.disconnect?.();
