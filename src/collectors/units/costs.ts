/** What the units collector costs: series (every kind in every window), requests, and drops. */
import { productValues } from '../../config/products-schema.ts';
import type { Config } from '../../config/schema.ts';
import type { CollectorCosts } from '../../model/plan.ts';
import { requestUrl } from '../../upstream/endpoints.ts';
import { recordsRequests } from '../records-cost.ts';
import { UNIT_CUSUM_FAMILIES } from './cusum-families.ts';
import { UNIT_FAMILIES } from './families.ts';

/** The longest URL of a units request with an empty station list. */
function emptyListUrl(config: Config, now: Date): string {
  const directions = ['input' as const, 'output' as const];
  return requestUrl(config.upstream.baseUrl, 'units', { from: now, to: now, stationIds: [], directions });
}

/**
 * The CUSUM families: a counter per station and exported kind and per line and exported kind, and
 * as many gauges when the statistic is exported.
 */
function cusumRows(config: Config, counts: { stations: number; lines: number }) {
  const { enabled, stationKinds, lineKinds, statistic } = config.units.cusum;
  if (!enabled) return [];
  const station = counts.stations * stationKinds.length;
  const line = counts.lines * lineKinds.length;
  const row = (family: string, series: number) => ({ collector: 'units', family, series });
  return [
    row(UNIT_CUSUM_FAMILIES.stationEvents.name, station),
    ...(statistic ? [row(UNIT_CUSUM_FAMILIES.stationRatio.name, station)] : []),
    row(UNIT_CUSUM_FAMILIES.lineEvents.name, line),
    ...(statistic ? [row(UNIT_CUSUM_FAMILIES.lineRatio.name, line)] : []),
  ];
}

export const unitsCosts: CollectorCosts = {
  series(config, counts) {
    const perWindow = counts.stations * config.windows.length;
    // With products as a label, each kind and the serials once per product label value.
    const products = config.products.label ? productValues(config.products) : 1;
    const kinds = (counts.unitKinds ?? 3) * products;
    const row = (family: string, series: number) => ({ collector: 'units', family, series });
    return [
      row(UNIT_FAMILIES.records.name, perWindow * kinds),
      row(UNIT_FAMILIES.serials.name, perWindow * products),
      row(UNIT_FAMILIES.total.name, counts.stations * kinds),
      row(UNIT_FAMILIES.last.name, counts.stations),
      row(UNIT_FAMILIES.future.name, counts.stations),
      row(UNIT_FAMILIES.late.name, counts.stations),
      ...cusumRows(config, counts),
    ];
  },
  requests: recordsRequests('units', emptyListUrl),
  drops: [
    { family: 'station_unit_serials', priority: 200 },
    { family: 'station_unit_records', priority: 210 },
  ],
};
