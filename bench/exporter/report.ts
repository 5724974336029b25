/**
 * The words around `npm run bench`'s rows: what the run simulated (its setup) and how to read the
 * figures (its notes), for bench/results/exporter.json.
 */
import * as f from '../shared/format.ts';
import type { BenchResults } from './rows.ts';
import { stationCount } from './scale.ts';

export type { BenchResults } from './rows.ts';

/** The plant, the exporter's settings and the process's flags, in two sentences. */
export function setupOf(r: BenchResults): string {
  const p = r.params;
  return (
    `Plant: ${p.scale.sites} sites × ${p.scale.linesPerSite} lines × ${p.scale.stationsPerLine} stations = ` +
    `${f.count(stationCount(p.scale))} stations, ${p.scale.measurementNames} measurement names, ` +
    `${p.scale.unitsPerHour} units per line per hour (seed ${p.seed}). ` +
    `Exporter: windows ${p.windows.join(', ')}; summary, measurements (all ${p.scale.measurementNames} names) and units ` +
    `every ${p.intervalMs / 1000} s; upstream concurrency ${p.upstreamConcurrency}; simulated clock shared with the simulator; ` +
    `the bench process runs with ${r.settings} (the binary's young-generation and malloc settings).`
  );
}

/** How to read the rows of the main run. */
export function notesOf(r: BenchResults): string[] {
  const counted = r.first.requests + r.steady.requests;
  const received = r.first.simRequests + r.steady.simRequests;
  return [
    `The simulator runs in a child process (RSS ${f.mib(r.sim.rssBytes)} after the polls) so that ` +
      'its record generation neither blocks the exporter’s event loop nor counts in its RSS. It received ' +
      `${f.count(received)} requests during the two polls; the exporter counted ${f.count(counted)}.`,
    `Record rate: ${r.params.scale.unitsPerHour} units per line per hour (one every ${60 / r.params.scale.unitsPerHour} min), ` +
      'each station measuring 4 of the names per visit. That is lighter than a busy SMT line: the one-thread simulator ' +
      'already spends about as much CPU as the exporter during the first poll (see the CPU figures), and a higher rate ' +
      'would mostly lengthen the run.',
    'Upstream requests and bytes are deltas of the exporter’s own counters ' +
      '`station_exporter_upstream_requests_total` and `station_exporter_upstream_response_bytes_total` (JSON bodies).',
    'The steady-state poll runs after the shared clock moved by exactly one interval: it reads one interval of new ' +
      'records plus the configured overlap, whatever the window length. The comparison exporter (measurements only) ' +
      `uses windows ${r.params.compareWindows.join(', ')} against the same simulator.`,
    'Render times are CPU time spent rendering both text formats (text and OpenMetrics; protobuf, rendered in the same publishes, is reported on its own row), excluding the yields to the ' +
      'event loop; the publish time adds UTF-8 encoding, deflate in the thread pool and the swap. The synthetic ' +
      'render runs twice, in a process of its own: under the StatefulSet memory limit, as it ships (V8 then keeps a ' +
      'small young generation, so short-lived strings cost more collections), and without a limit. The target is ' +
      'evaluated on both.',
    'Event-loop block: max of `perf_hooks.monitorEventLoopDelay` (10 ms resolution) minus the resolution, in the ' +
      'exporter’s process: over each poll (its render included) and over the exporter’s turns of each scrape load ' +
      '(the load generator names each turn’s server). The bench’s own capture and check of the scraped bodies ' +
      '(reading, gunzip, compare) and forking its children come before and are not counted; the bare server’s turns ' +
      '(each answer one write of the whole body from memory) are reported apart, in the scrape rows.',
    `Scrapes: a load generator in a child process keeps ${r.params.load.connections} keep-alive connections busy ` +
      `for ${r.params.load.durationMs / 1000} s per server (at most ${r.params.load.maxRequests} requests) against the exporter ` +
      'and against a bare `node:http` server answering the bytes the exporter served, from memory, the two taking turns ' +
      `in ${r.params.load.rounds} rounds (A B, B A, ...) so that a slow patch of the shared machine falls on both, ` +
      `after ${r.params.load.warmupMs / 1000} s of unmeasured requests each. ` +
      'The exporter renders its self-metrics tail (and deflates it for gzip) at most once a second per format, ' +
      'as it does in production; the rest of each answer is cached bytes.',
    "Default node flags (the exporter alone runs under the StatefulSet's memory limit, see its row); the exporter, the load generator and the simulator are separate processes on the same cores.",
    'The RSS target is evaluated on the exporter alone, in a process of its own, with just enough stations for about ' +
      'the target series count, as it ships (node on the bundle, under the memory limit of deploy/kubernetes/statefulset.yaml): ' +
      'the highest RSS read after its first poll and after each of 3 steady-state polls, and 5 s later each time. ' +
      "Node sizes V8's heap from a memory limit; without one (second row) bin/station-exporter.js starts node with a heap " +
      'ceiling (src/util/heap-ceiling.ts), and the bench starts the child with the same flags and malloc settings (under the limit too). ' +
      'The main run shares its process with the bench.',
  ];
}
