/**
 * Renders metric families into the Prometheus text format 0.0.4 and OpenMetrics 1.0.
 *
 * Label text is escaped once per topology (see {@link LabelSet}), so rendering is plain
 * string concatenation: per family the `name{` prefix is computed once, per sample only
 * the value is formatted.
 */
import { createTurns, type Turns } from '../util/turns.ts';
import type { Family, FamilyDesc } from './model.ts';

/** Exposition format: Prometheus text 0.0.4 or OpenMetrics 1.0. */
export type ExpositionFormat = 'text' | 'openmetrics';

/** Samples rendered between two yields to the event loop by {@link renderFamiliesAsync}. */
export const DEFAULT_YIELD_EVERY = 20_000;

/** Formats a sample value: integers plainly, floats shortest round-trip, `NaN`, `+Inf`, `-Inf`. */
export function formatValue(value: number): string {
  if (Number.isFinite(value)) return `${value}`;
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return 'NaN';
}

function escapeHelp(help: string, format: ExpositionFormat): string {
  // Only OpenMetrics escapes double quotes in HELP; the text format keeps them verbatim.
  const special = format === 'openmetrics' ? /[\\"\n]/ : /[\\\n]/;
  if (!special.test(help)) return help;
  const escaped = help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return format === 'openmetrics' ? escaped.replace(/"/g, '\\"') : escaped;
}

const TOTAL = '_total';

/** The family's name on HELP/TYPE/UNIT lines: OpenMetrics counters drop `_total`. */
function familyName(desc: FamilyDesc, format: ExpositionFormat): string {
  if (format === 'openmetrics' && desc.kind === 'counter' && desc.name.endsWith(TOTAL)) {
    return desc.name.slice(0, -TOTAL.length);
  }
  return desc.name;
}

/** The metric name on samples: OpenMetrics counter samples always end in `_total`. */
function sampleName(desc: FamilyDesc, format: ExpositionFormat): string {
  if (format === 'openmetrics' && desc.kind === 'counter' && !desc.name.endsWith(TOTAL)) {
    return desc.name + TOTAL;
  }
  return desc.name;
}

/**
 * True when a family renders to the same bytes in both formats: not a counter (OpenMetrics
 * renames them), no double quote in HELP (OpenMetrics escapes it), no UNIT line.
 */
export function sameInBothFormats(desc: FamilyDesc): boolean {
  const unitLine = desc.unit !== undefined && desc.name.endsWith(`_${desc.unit}`);
  return desc.kind !== 'counter' && !desc.help.includes('"') && !unitLine;
}

function header(desc: FamilyDesc, format: ExpositionFormat): string {
  const name = familyName(desc, format);
  // `info` renders as a gauge in both formats: valid everywhere and one series name per family.
  const type = desc.kind === 'info' ? 'gauge' : desc.kind;
  let out = `# HELP ${name} ${escapeHelp(desc.help, format)}\n# TYPE ${name} ${type}\n`;
  // OpenMetrics parsers reject a UNIT that is not a suffix of the family name; a bad
  // description must not break the whole scrape, so such a UNIT line is left out.
  if (format === 'openmetrics' && desc.unit && name.endsWith(`_${desc.unit}`)) {
    out += `# UNIT ${name} ${desc.unit}\n`;
  }
  return out;
}

/**
 * Incremental renderer: {@link step} renders up to a budget of samples so that the
 * async variant can yield between chunks and the sync variant shares the exact code.
 */
class Renderer {
  private family = 0;
  private sample = 0;
  private headerDone = false;
  private out = '';
  private name = '';
  private suffix: string | undefined = undefined;
  private bare = '';
  private braced = '';

  constructor(
    private readonly families: readonly Family[],
    private readonly format: ExpositionFormat,
  ) {}

  /** Renders up to `budget` samples; returns true when everything is rendered. */
  step(budget: number): boolean {
    let left = budget;
    const families = this.families;
    while (this.family < families.length) {
      const fam = families[this.family]!;
      if (!this.headerDone) this.startFamily(fam);
      const samples = fam.samples;
      let out = this.out;
      let i = this.sample;
      const end = Math.min(samples.length, i + left);
      for (; i < end; i++) {
        const s = samples[i]!;
        if (s.suffix !== this.suffix) this.setSuffix(s.suffix);
        const labels = s.labels.text;
        out +=
          labels === ''
            ? `${this.bare}${formatValue(s.value)}\n`
            : `${this.braced}${labels}} ${formatValue(s.value)}\n`;
      }
      this.out = out;
      left -= i - this.sample;
      if (i < samples.length) {
        this.sample = i;
        return false;
      }
      this.family++;
      this.sample = 0;
      this.headerDone = false;
      if (left <= 0 && this.family < families.length) return false;
    }
    return true;
  }

  /** Returns the text rendered since the last call and forgets it. */
  take(): string {
    const out = this.out;
    this.out = '';
    return out;
  }

  private startFamily(fam: Family): void {
    this.out += header(fam.desc, this.format);
    this.headerDone = true;
    this.name = sampleName(fam.desc, this.format);
    this.setSuffix(undefined);
  }

  private setSuffix(suffix: string | undefined): void {
    this.suffix = suffix;
    const full = suffix ? this.name + suffix : this.name;
    this.bare = `${full} `;
    this.braced = `${full}{`;
  }
}

/**
 * Renders families synchronously. Every line ends with `\n`; no `# EOF` is appended
 * (the caller decides where the OpenMetrics terminator goes). Families without samples
 * still get their HELP and TYPE lines.
 */
export function renderFamilies(families: readonly Family[], format: ExpositionFormat): string {
  const r = new Renderer(families, format);
  r.step(Number.POSITIVE_INFINITY);
  return r.take();
}

/** Options of {@link renderFamiliesAsync}. */
export interface RenderAsyncOptions {
  /** Samples to render between yields to the event loop (default {@link DEFAULT_YIELD_EVERY}). */
  readonly yieldEvery?: number;
  /** The exporter's turn queue; default a queue of this render's own. */
  readonly turns?: Turns;
  /** Monotonic clock in milliseconds, for `busyMs`. */
  readonly monotonic?: () => number;
}

/**
 * Samples rendered into one string before it is encoded. Under a container's memory limit V8
 * keeps a small young generation; a string of a whole chunk (~3 MB) outlived several scavenges
 * there and was copied and promoted each time (100k series: ~110 ms instead of ~50 ms). A short
 * string dies young.
 */
const PIECE = 500;

/** UTF-8 chunks of a rendered body, with what it took to render them. */
export interface RenderedBuffers {
  readonly chunks: Buffer[];
  /** Samples rendered (the number of series). */
  readonly samples: number;
  /** Time spent rendering and encoding, excluding the time yielded to the event loop. */
  readonly busyMs: number;
}

/**
 * Same output as {@link renderFamilies} as UTF-8 chunks, yielding to the event loop every
 * `yieldEvery` samples, so that rendering a large snapshot never blocks scrapes for long.
 * Encoding each chunk right after rendering it keeps the encoding from blocking in one go.
 */
export async function renderFamiliesToBuffers(
  families: readonly Family[],
  format: ExpositionFormat,
  opts: RenderAsyncOptions = {},
): Promise<RenderedBuffers> {
  const every = Math.max(1, opts.yieldEvery ?? DEFAULT_YIELD_EVERY);
  const turns = opts.turns ?? createTurns();
  const monotonic = opts.monotonic ?? (() => performance.now());
  const r = new Renderer(families, format);
  const chunks: Buffer[] = [];
  let busyMs = 0;
  const piece = Math.min(every, PIECE);
  for (;;) {
    const started = monotonic();
    const pieces: Buffer[] = [];
    let done = false;
    for (let n = 0; n < every && !done; n += piece) {
      done = r.step(Math.min(piece, every - n));
      const text = r.take();
      if (text !== '') pieces.push(Buffer.from(text, 'utf8'));
    }
    if (pieces.length > 0) chunks.push(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces));
    busyMs += monotonic() - started;
    if (done) break;
    await turns.yieldToLoop();
  }
  let samples = 0;
  for (const f of families) samples += f.samples.length;
  return { chunks, samples, busyMs };
}
