/**
 * The control-chart engine: limits from a baseline (phase I), the run rules over the newest
 * points (phase II), the CUSUM and the EWMA, and the chart of one series that ties them together
 * over time ({@link ControlChart}: holds, gaps, late points, events, a baseline in bounded
 * memory). Pure: no I/O, no labels.
 */

export * from './chart.ts';
export * from './detector-state.ts';
export * from './limits.ts';
export * from './rules.ts';
