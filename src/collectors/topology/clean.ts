/**
 * The sites hierarchy with every label value made safe (model/label-values.ts). Runs before the
 * topology is built, so that clashes are resolved on the exported names.
 */
import type { LabelValues } from '../../model/label-values.ts';
import type { Line, LineElement, Site, StationRef } from '../../upstream/types.ts';

/** The hierarchy as exported: cleaned names and descriptions, without elements whose id is refused. */
export function cleanSites(sites: readonly Site[], values: LabelValues): Site[] {
  return sites.flatMap((site) => {
    const named = cleanNamed(site, values, 'site');
    return named ? [{ ...named, lines: cleanLines(site.lines, values) }] : [];
  });
}

function cleanLines(lines: readonly Line[], values: LabelValues): Line[] {
  return lines.flatMap((line) => {
    const named = cleanNamed(line, values, 'line');
    return named ? [{ ...named, elements: cleanElements(line.elements, values) }] : [];
  });
}

/** A left-out element's placeholder, so later elements keep their position: exports nothing. */
const PLACEHOLDER: LineElement = { kind: 'group', id: '', name: '', description: '', stations: [] };

function cleanElements(elements: readonly LineElement[], values: LabelValues): LineElement[] {
  return elements.map((el) => {
    const named = cleanNamed(el, values, el.kind);
    if (named === undefined) return PLACEHOLDER;
    if (el.kind === 'station') return { kind: 'station', ...named };
    const stations = el.stations.flatMap((s) => cleanNamed(s, values, 'station') ?? []);
    return { kind: 'group', ...named, stations };
  });
}

/** Id, name and description of a site, line, group or station; undefined when its id is refused. */
function cleanNamed(e: StationRef, values: LabelValues, what: string): StationRef | undefined {
  if (!values.acceptsId(e.id, `${what} id`)) return undefined;
  return {
    id: e.id,
    name: values.value(e.name, `${what} name`),
    description: values.value(e.description, `${what} description`),
  };
}
