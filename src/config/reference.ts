import { z } from 'zod';
import { configSchema } from './schema.ts';

/** The subset of JSON Schema that zod emits for the config schema. */
interface JsonNode {
  type?: string;
  description?: string;
  default?: unknown;
  properties?: Record<string, JsonNode>;
  required?: string[];
  items?: JsonNode;
  anyOf?: JsonNode[];
  oneOf?: JsonNode[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  'x-type'?: string;
}

/** One key of the config file as documented in docs/config.md. */
export interface ReferenceRow {
  /** YAML path with `[]` for list items, e.g. `windows[].timezone`. */
  path: string;
  type: string;
  /** Default as YAML, `required`, or empty when the key is optional without a default. */
  default: string;
  description: string;
}

function variants(node: JsonNode): JsonNode[] {
  const alternatives = node.anyOf ?? node.oneOf;
  return alternatives === undefined ? [node] : alternatives.flatMap(variants);
}

function numberRange(node: JsonNode): string {
  const parts: string[] = [];
  if (node.exclusiveMinimum !== undefined) parts.push(`> ${node.exclusiveMinimum}`);
  if (node.minimum !== undefined && node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER) {
    return ` (${node.minimum}-${node.maximum})`;
  }
  if (node.minimum !== undefined) parts.push(`≥ ${node.minimum}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function typeLabel(nodes: JsonNode[]): string {
  const xType = nodes.find((n) => n['x-type'] !== undefined)?.['x-type'];
  if (xType !== undefined) return xType;
  const consts = nodes.filter((n) => n.const !== undefined).map((n) => n.const);
  const values = consts.length > 0 ? consts : nodes.flatMap((n) => n.enum ?? []);
  if (values.length > 0) return values.map((v) => `\`${String(v)}\``).join(' | ');
  const labels = nodes.flatMap(variants).map((n) => {
    if (n['x-type'] !== undefined) return n['x-type'];
    if (n.type === 'array') return `list of ${n.items === undefined ? 'values' : typeLabel([n.items])}`;
    if (n.type === 'object') return 'mapping';
    if (n.type === 'integer' || n.type === 'number') return `${n.type}${numberRange(n)}`;
    return n.type ?? 'any';
  });
  return [...new Set(labels)].join(' or ');
}

function yamlValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(yamlValue).join(', ')}]`;
  if (typeof value === 'string')
    return /^[\w./:-]*$/.test(value) && value !== '' ? value : JSON.stringify(value);
  return String(value);
}

function defaultLabel(nodes: JsonNode[], key: { readonly required: boolean }): string {
  if (key.required) return 'required';
  const node = nodes.find((n) => n.default !== undefined);
  if (node === undefined || (typeof node.default === 'object' && !Array.isArray(node.default))) return '';
  return `\`${yamlValue(node.default)}\``;
}

/** Every mapping among `nodes`, looking through unions and list items. */
function childObjects(nodes: JsonNode[]): JsonNode[] {
  return nodes.flatMap(variants).filter((n) => n.type === 'object' && n.properties !== undefined);
}

function listItems(nodes: JsonNode[]): JsonNode[] {
  return nodes
    .flatMap(variants)
    .flatMap((n) => (n.type === 'array' && n.items !== undefined ? [n.items] : []));
}

function walk(
  nodes: JsonNode[],
  key: { readonly path: string; readonly required: boolean },
  rows: ReferenceRow[],
): void {
  const { path } = key;
  const description = nodes.find((n) => n.description !== undefined)?.description;
  if (description === undefined) throw new Error(`config key ${path} has no description in the schema`);
  rows.push({ path, type: typeLabel(nodes), default: defaultLabel(nodes, key), description });
  walkChildren(childObjects(nodes), path, rows);
  walkChildren(childObjects(listItems(nodes)), `${path}[]`, rows);
}

function walkChildren(objects: JsonNode[], prefix: string, rows: ReferenceRow[]): void {
  const keys = [...new Set(objects.flatMap((o) => Object.keys(o.properties ?? {})))];
  for (const key of keys) {
    const owners = objects.filter((o) => o.properties?.[key] !== undefined);
    const nodes = owners.map((o) => o.properties?.[key]).filter((n): n is JsonNode => n !== undefined);
    const required = owners.every((o) => o.required?.includes(key) === true);
    walk(nodes, { path: prefix === '' ? key : `${prefix}.${key}`, required }, rows);
  }
}

/** Every key of the config file, in schema order, from the zod schema's descriptions and defaults. */
export function configReferenceRows(): ReferenceRow[] {
  const root = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as JsonNode;
  const rows: ReferenceRow[] = [];
  walkChildren([root], '', rows);
  return rows;
}

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

const INTRO = `# Configuration reference

<!-- Generated from src/config/schema.ts by scripts/gen-docs.ts. Do not edit; run \`npm run gen\`. -->

station-exporter reads one YAML file, given with \`--config\`. See [config.example.yaml](../config.example.yaml)
for a complete, commented example, and check a file with \`station-exporter check-config\`.

- Unknown keys are errors, anywhere in the file. All problems are reported at once, each with its path.
- Any string value may use \`\${VAR}\` for the environment variable \`VAR\` (unset variables are errors)
  and \`$$\` for a literal \`$\`.
- Durations are written like Prometheus durations: \`500ms\`, \`30s\`, \`5m\`, \`1h30m\`, \`2d\`, \`1w\`; at most \`7d\`.
- Regular expressions match the whole name or id (they are anchored at both ends).
- In the table, \`[]\` stands for each item of a list.
`;

/** Renders docs/config.md: an introduction and a table of every key with type, default and description. */
export function renderConfigReference(): string {
  const table = configReferenceRows().map(
    (r) => `| \`${r.path}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description)} |`,
  );
  return `${INTRO}\n| Key | Type | Default | Description |\n| --- | --- | --- | --- |\n${table.join('\n')}\n`;
}
