/**
 * Known secrets refused in every config field that becomes a label value: logs and pages are
 * masked, /metrics is not, and `windows: [{name: "w-${STATION_TOKEN}"}]` would export the token.
 * Checked on the expanded input, so that the paths are the file's own; the value is never quoted.
 */
import type { Path, PathIssue } from './env.ts';
import { isRecord } from './fields.ts';

const MESSAGE =
  'contains a secret (a token the config uses, or a Bearer credential); it would be exported as a label value on /metrics';

type Node = unknown;

/** The value at `key` of a mapping, if any. */
const at = (node: Node, key: string): Node => (isRecord(node) ? node[key] : undefined);

/** Every (path, text) a label can be made of: window, metric, site and station ids, window-name keys. */
function* labelFields(raw: Node): Generator<{ path: Path; text: string }> {
  const strings = function* (list: Node, path: Path, nameKey?: string) {
    if (!Array.isArray(list)) return;
    for (const [i, item] of list.entries()) {
      if (typeof item === 'string') yield { path: [...path, i], text: item };
      const name = nameKey === undefined ? undefined : at(item, nameKey);
      if (typeof name === 'string') yield { path: [...path, i, nameKey as string], text: name };
    }
  };
  const keys = function* (map: Node, path: Path) {
    if (isRecord(map)) for (const key of Object.keys(map)) yield { path: [...path, key], text: key };
  };
  yield* strings(at(raw, 'windows'), ['windows'], 'name');
  yield* strings(at(at(raw, 'measurements'), 'names'), ['measurements', 'names'], 'name');
  yield* strings(at(at(raw, 'discovery'), 'site_ids'), ['discovery', 'site_ids']);
  yield* strings(at(at(raw, 'discovery'), 'station_ids'), ['discovery', 'station_ids']);
  yield* keys(at(at(raw, 'planning'), 'refresh'), ['planning', 'refresh']);
  yield* keys(at(at(at(raw, 'measurements'), 'statistics'), 'windows'), [
    'measurements',
    'statistics',
    'windows',
  ]);
}

/**
 * Issues for label fields of the (expanded) config input that carry a secret: `redact` is the
 * loader's redactor, which knows every token it saw. The key itself is never quoted: a path
 * ending in a secret key names its parent.
 */
export function labelSecretIssues(raw: Node, redact: (text: string) => string): PathIssue[] {
  const issues: PathIssue[] = [];
  for (const { path, text } of labelFields(raw)) {
    if (redact(text) === text) continue;
    const keyIsSecret = path.at(-1) === text;
    issues.push({
      path: keyIsSecret ? path.slice(0, -1) : path,
      message: keyIsSecret ? `a key ${MESSAGE}` : MESSAGE,
    });
  }
  return issues;
}
