import type { SummaryLevel } from '../config/schema.ts';
import type { LabelSet } from '../exposition/model.ts';

/** Levels at which the upstream is asked for summaries. */
export type Level = SummaryLevel;

/** Something a summary can be asked for: a set of stations with the labels of its level. */
export interface Entity {
  readonly level: Level;
  readonly id: string;
  /** The exported stations of the entity (those the discovery filters keep). */
  readonly stationIds: readonly string[];
  /**
   * Every station of the element in the /sites hierarchy, exported or not, in line order:
   * what "the line" means for its summaries unless `summary.aggregate_over` says otherwise.
   */
  readonly allStationIds: readonly string[];
  /** Labels identifying the entity, escaped once per topology. */
  readonly labels: LabelSet;
  /** The site and line the entity belongs to (lines and stations), by id and exported name. */
  readonly site?: { readonly id: string; readonly name: string };
  readonly line?: { readonly id: string; readonly name: string };
}

/** A station with everything known about its place in the plant. */
export interface StationNode extends Entity {
  readonly level: 'station';
  readonly name: string;
  readonly description: string;
  readonly site: { readonly id: string; readonly name: string };
  readonly line: { readonly id: string; readonly name: string };
  readonly group?: { readonly id: string; readonly name: string };
  /** 1-based position of the station's element along its line. */
  readonly position: number;
  /** True when the station belongs to the last element of its line, where units leave the line. */
  readonly lineOutput: boolean;
  /** Labels of the `station_info` series (ids, group, position, description). */
  readonly infoLabels: LabelSet;
}

/** The discovered, filtered plant, with label sets ready for exposition. */
export interface Topology {
  readonly stations: readonly StationNode[];
  readonly groups: readonly Entity[];
  readonly lines: readonly Entity[];
  readonly sites: readonly Entity[];
  /** Station ids named in the config that the token cannot see. */
  readonly missingStationIds: readonly string[];
  /** Site ids named in the config that the token cannot see. */
  readonly missingSiteIds: readonly string[];
  /** Names that were made unique by appending an id suffix. */
  readonly renamed: number;
}

/** Regex filters on names or ids, per level. */
export interface NameFilter {
  readonly sites: readonly RegExp[];
  readonly lines: readonly RegExp[];
  readonly stations: readonly RegExp[];
}

/** Which stations to keep. */
export interface Selection {
  readonly stationIds: readonly string[];
  readonly include: NameFilter;
  readonly exclude: NameFilter;
}
