/**
 * The sites hierarchy with every label value made safe (model/label-values.ts). Runs before the
 * topology is built, so that clashes are resolved on the exported names.
 */
import type { LabelValues } from '../../model/label-values.ts';
import type { Line, LineElement, Site, StationRef } from '../../upstream/types.ts';

/** The hierarchy as exported: cleaned names and descriptions, without elements whose id is refused. */
export function cleanSites(sites: readonly Site[], values: LabelValues): Site[] {
  const out: Site[] = [];
  for (const site of sites) {
    if (!values.acceptsId(site.id, 'site id')) continue;
    out.push({
      id: site.id,
      name: values.value(site.name, 'site name'),
      description: values.value(site.description, 'site description'),
      lines: cleanLines(site.lines, values),
    });
  }
  return out;
}

function cleanLines(lines: readonly Line[], values: LabelValues): Line[] {
  const out: Line[] = [];
  for (const line of lines) {
    if (!values.acceptsId(line.id, 'line id')) continue;
    out.push({
      id: line.id,
      name: values.value(line.name, 'line name'),
      description: values.value(line.description, 'line description'),
      elements: cleanElements(line.elements, values),
    });
  }
  return out;
}

/** A left-out element's placeholder, so later elements keep their position: exports nothing. */
const PLACEHOLDER: LineElement = { kind: 'group', id: '', name: '', description: '', stations: [] };

function cleanElements(elements: readonly LineElement[], values: LabelValues): LineElement[] {
  const out: LineElement[] = [];
  for (const el of elements) {
    if (el.kind === 'station') {
      const station = cleanStation(el, values);
      out.push(station ? { kind: 'station', ...station } : PLACEHOLDER);
      continue;
    }
    if (!values.acceptsId(el.id, 'group id')) {
      out.push(PLACEHOLDER);
      continue;
    }
    out.push({
      kind: 'group',
      id: el.id,
      name: values.value(el.name, 'group name'),
      description: values.value(el.description, 'group description'),
      stations: el.stations.flatMap((s) => cleanStation(s, values) ?? []),
    });
  }
  return out;
}

function cleanStation(station: StationRef, values: LabelValues): StationRef | undefined {
  if (!values.acceptsId(station.id, 'station id')) return undefined;
  return {
    id: station.id,
    name: values.value(station.name, 'station name'),
    description: values.value(station.description, 'station description'),
  };
}
