/** The yield and retry CUSUMs' families (cusum.ts). */
import type { FamilyDesc } from '../../exposition/model.ts';

const STATION = ['site', 'line', 'station', 'station_id', 'group', 'kind'];
const LINE = ['site', 'line', 'kind'];
const WHAT =
  'Bernoulli CUSUM of kind (first_pass_yield, final_yield: each unit, decided units.cusum.settle after its latest output; retry_ratio: each output record) against its own level (its bad-trial share over units.cusum.baseline, shrunk toward its target while its history is thin)';
const EVENTS =
  'signals, each an event counted once (the chart restarts at 0), from unit records dated from the exporter start on: history replayed at start warms the chart up but counts nothing; refreshed every units interval.';
const RATIO =
  'statistic as a fraction of its decision interval, 0 to 1; at least 1 at a signal, showing the sum that crossed until the next trial; refreshed every units interval.';

/** The CUSUM families, in exposition order. */
export const UNIT_CUSUM_FAMILIES = {
  stationEvents: {
    name: 'station_unit_cusum_events_total',
    kind: 'counter',
    labels: STATION,
    help: `${WHAT} at the station: ${EVENTS}`,
  },
  stationRatio: {
    name: 'station_unit_cusum_ratio',
    kind: 'gauge',
    labels: STATION,
    help: `${WHAT} at the station: ${RATIO}`,
  },
  lineEvents: {
    name: 'station_line_unit_cusum_events_total',
    kind: 'counter',
    labels: LINE,
    help: `${WHAT} over the stations of the line (a unit fails first pass or final yield if it does at any station): ${EVENTS}`,
  },
  lineRatio: {
    name: 'station_line_unit_cusum_ratio',
    kind: 'gauge',
    labels: LINE,
    help: `${WHAT} over the stations of the line: ${RATIO}`,
  },
} satisfies Record<string, FamilyDesc>;
