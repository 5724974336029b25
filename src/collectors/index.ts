/**
 * Every collector's metric families, listed explicitly (no registration by import side
 * effect). The generated metrics reference reads this list.
 */
import type { FamilyDesc } from '../exposition/model.ts';
import { MEASUREMENT_FAMILIES } from './measurements/families.ts';
import { summaryDescs } from './summary/families.ts';
import { STATION_INFO } from './topology/families.ts';
import { UNIT_FAMILIES } from './units/families.ts';

/** A collector's name (its config key) and the families it exports. */
export interface CollectorDescription {
  readonly name: string;
  readonly families: readonly FamilyDesc[];
}

/** All collectors, in exposition order. */
export const COLLECTORS: readonly CollectorDescription[] = [
  { name: 'topology', families: [STATION_INFO] },
  {
    name: 'summary',
    families: (['station', 'group', 'line', 'site'] as const).flatMap((level) => summaryDescs(level)),
  },
  { name: 'measurements', families: Object.values(MEASUREMENT_FAMILIES) },
  { name: 'units', families: Object.values(UNIT_FAMILIES) },
];
