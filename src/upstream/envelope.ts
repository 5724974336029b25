/**
 * Decodes an answer's envelope (`{"data": ..., "message": ..., "meta": ...}`) from its bytes in
 * bounded steps, never parsing the whole body at once (why: docs/scaling.md, "Mechanisms and what
 * each one buys"). A byte loop first finds where each element of `data` starts and ends, refusing
 * too many elements or values before any object exists; then `JSON.parse` reads a slice of
 * elements at a time. Each step runs through {@link AnswerDecoder}, so one answer cannot hold the
 * event loop or another collector's decoding for more than a step. The byte loop checks the glue
 * between values, `JSON.parse` every value: together they accept exactly what `JSON.parse` of
 * the whole body would, within the limits below.
 */
import { envelopeSchema } from './schemas.ts';

/** Elements of `data` one answer may hold; past it the answer is refused as `too_large`. */
export const MAX_ITEMS_PER_ANSWER = 200_000;

/**
 * Bytes of one element of `data`, or of a `data` that is one object; more is `too_large`. An
 * element is parsed whole, so this bounds a step; a site of thousands of stations is a few 100 kB.
 */
export const MAX_ITEM_BYTES = 4 * 1024 * 1024;

/**
 * Objects, arrays and commas inside one element of `data` (or a one-object `data`); more is
 * `too_large` before parsing. The byte cap alone lets 4 MiB of `{}` unpack to 1.4 million
 * objects; a station costs about 6 values, so this holds a site of 16,000 stations.
 */
export const MAX_VALUES_PER_ITEM = 100_000;

/** Bytes of the envelope outside `data` (`message`, `meta`, keys): more is refused as `too_large`. */
export const MAX_ENVELOPE_BYTES = 64 * 1024;

/** Bytes the first pass scans in one step (plus the element it is in). */
export const INDEX_STEP_BYTES = 1024 * 1024;

/** Elements parsed in one step at most. */
export const SLICE_ITEMS = 2000;

/**
 * Bytes of elements parsed in one step at most (or one larger element). Below V8's largest
 * ordinary object (128 KiB): larger strings get pages of their own, mapped fresh for each slice.
 */
export const SLICE_BYTES = 96 * 1024;

/** Why an answer's body was refused: not JSON in the documented envelope, or over a limit. */
export class EnvelopeError extends Error {
  constructor(
    readonly kind: 'invalid' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/** Runs one bounded step of decoding; {@link AnswerDecoder} in the client, anything in tests. */
export type StepRunner = <T>(step: () => T) => Promise<T>;

/** Limits of one answer: `maxItems` defaults to {@link MAX_ITEMS_PER_ANSWER}. */
export interface EnvelopeLimits {
  readonly maxItems?: number;
}

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const invalid = (why: string) => new EnvelopeError('invalid', `response is not valid JSON (${why})`);

/** Where one value ends; the byte loop of the first pass. Values are checked by `JSON.parse` later. */
class Scanner {
  constructor(readonly bytes: Uint8Array) {}

  /** The first position at or after `i` that is not JSON whitespace. */
  skipSpace(i: number): number {
    let j = i;
    while (j < this.bytes.length && isSpace(this.bytes[j]!)) j++;
    return j;
  }

  /** The byte at `i`, which must be `want`; throws otherwise. */
  expect(i: number, want: number, what: string): void {
    if (this.bytes[i] !== want) throw invalid(`expected ${what} at byte ${i}`);
  }

  /**
   * The position just after the value that starts at `i`; `too_large` past `limit`. Strings and
   * nesting are followed; the value's own syntax is left to `JSON.parse`.
   */
  valueEnd(i: number, limit: ValueLimit): number {
    const b = this.bytes;
    const stop = Math.min(b.length, i + limit.bytes + 1);
    const first = b[i];
    if (first === undefined) throw invalid('unexpected end');
    let j = i;
    if (first === QUOTE || first === OPEN_BRACE || first === OPEN_BRACKET) {
      j = this.#nestedEnd(i, stop, limit);
    } else {
      while (j < stop && !isDelimiter(b[j]!)) j++;
      if (j === i) throw invalid(`expected a value at byte ${i}`);
    }
    if (j - i > limit.bytes)
      throw new EnvelopeError('too_large', `${limit.what} larger than ${limit.bytes} bytes`);
    return j;
  }

  /** End of a string, object or array starting at `i` (`stop` if later), counting its values. */
  #nestedEnd(i: number, stop: number, limit: ValueLimit): number {
    const b = this.bytes;
    const maxValues = limit.values ?? Number.POSITIVE_INFINITY;
    let depth = 0;
    let values = 0;
    for (let j = i; j < stop; j++) {
      const c = b[j]!;
      if (c === QUOTE) j = this.#closingQuote(j + 1, stop);
      else {
        const d = nesting(c);
        depth += d;
        if ((d > 0 || c === COMMA) && ++values > maxValues)
          throw new EnvelopeError('too_large', `${limit.what} holds more than ${maxValues} values`);
      }
      // The value started with a quote or a bracket: at depth 0 again, it has ended.
      if (depth === 0 && j < stop) return j + 1;
    }
    if (stop >= b.length) throw invalid('unexpected end');
    return stop;
  }

  /** The quote that closes a string whose contents start at `j` (escapes skipped); `stop` without one. */
  #closingQuote(j: number, stop: number): number {
    const b = this.bytes;
    for (; j < stop; j++) {
      const c = b[j]!;
      if (c === BACKSLASH) j++;
      else if (c === QUOTE) return j;
    }
    return stop;
  }
}

/** How far {@link Scanner.valueEnd} may read one value; `what` names it in a refusal. */
interface ValueLimit {
  readonly bytes: number;
  readonly values?: number;
  readonly what: string;
}

/** How a byte outside strings changes the depth of nesting: +1 opens, -1 closes, 0 neither. */
function nesting(c: number): number {
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return 1;
  return c === CLOSE_BRACE || c === CLOSE_BRACKET ? -1 : 0;
}

const isSpace = (c: number) => c === SPACE || c === LF || c === CR || c === TAB;
const isDelimiter = (c: number) => isSpace(c) || c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE;

/** Where the first pass is: which part of the envelope comes next. */
type Place = 'start' | 'key' | 'item' | 'after_item' | 'after_value' | 'done';

/** The first pass: positions of `data`'s elements and of everything else, in bounded steps. */
class EnvelopeIndex {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** Spans of the members other than `data`, for the envelope check. */
  readonly others: Array<readonly [number, number]> = [];
  /** `data` as one value (not an array): its span. */
  single: readonly [number, number] | undefined;
  dataIsArray = false;
  #place: Place = 'start';
  #pos = 0;
  #envelopeBytes = 0;
  readonly #scan: Scanner;
  readonly #maxItems: number;

  constructor(
    readonly bytes: Uint8Array,
    maxItems: number,
  ) {
    this.#scan = new Scanner(bytes);
    this.#maxItems = maxItems;
  }

  get done(): boolean {
    return this.#place === 'done';
  }

  /** Scans on until about {@link INDEX_STEP_BYTES} are behind it, or the envelope ends. */
  step(): void {
    const until = this.#pos + INDEX_STEP_BYTES;
    while (this.#place !== 'done' && this.#pos < until) this.#next();
  }

  #next(): void {
    const s = this.#scan;
    const i = s.skipSpace(this.#pos);
    switch (this.#place) {
      case 'start':
        s.expect(i, OPEN_BRACE, 'an object');
        this.#pos = s.skipSpace(i + 1);
        this.#place = this.bytes[this.#pos] === CLOSE_BRACE ? 'after_value' : 'key';
        return;
      case 'key':
        this.#member(i);
        return;
      case 'item':
        this.#item(i);
        return;
      case 'after_item':
        if (this.bytes[i] !== COMMA) s.expect(i, CLOSE_BRACKET, "',' or ']'");
        this.#pos = i + 1;
        this.#place = this.bytes[i] === COMMA ? 'item' : 'after_value';
        return;
      case 'after_value':
        this.#afterValue(i);
        return;
      default:
        return;
    }
  }

  /** One `"key": value` member of the envelope. */
  #member(i: number): void {
    const s = this.#scan;
    s.expect(i, QUOTE, 'a key');
    const keyEnd = s.valueEnd(i, { bytes: this.#envelopeLeft(), what: 'the envelope outside data' });
    const key: unknown = parseValue(this.bytes, i, keyEnd);
    const colon = s.skipSpace(keyEnd);
    s.expect(colon, COLON, "':'");
    const v = s.skipSpace(colon + 1);
    if (key !== 'data') {
      const left = Math.max(0, this.#envelopeLeft() - (v - i));
      const end = s.valueEnd(v, { bytes: left, what: 'the envelope outside data' });
      this.#envelopeBytes += end - i;
      this.others.push([i, end]);
      this.#pos = end;
      this.#place = 'after_value';
      return;
    }
    if (this.dataIsArray || this.single) throw invalid('data appears twice');
    if (this.bytes[v] === OPEN_BRACKET) {
      this.dataIsArray = true;
      const first = s.skipSpace(v + 1);
      this.#pos = this.bytes[first] === CLOSE_BRACKET ? first + 1 : first;
      this.#place = this.bytes[first] === CLOSE_BRACKET ? 'after_value' : 'item';
      return;
    }
    const end = s.valueEnd(v, { bytes: MAX_ITEM_BYTES, values: MAX_VALUES_PER_ITEM, what: 'data' });
    this.single = [v, end];
    this.#pos = end;
    this.#place = 'after_value';
  }

  /** One element of `data`. */
  #item(i: number): void {
    if (this.starts.length >= this.#maxItems)
      throw new EnvelopeError('too_large', `answer holds more than ${this.#maxItems} items; not decoded`);
    const end = this.#scan.valueEnd(i, {
      bytes: MAX_ITEM_BYTES,
      values: MAX_VALUES_PER_ITEM,
      what: 'one item of data',
    });
    this.starts.push(i);
    this.ends.push(end);
    this.#pos = end;
    this.#place = 'after_item';
  }

  #afterValue(i: number): void {
    const s = this.#scan;
    if (this.bytes[i] === COMMA) {
      this.#pos = i + 1;
      this.#place = 'key';
      return;
    }
    s.expect(i, CLOSE_BRACE, "',' or '}'");
    if (s.skipSpace(i + 1) !== this.bytes.length) throw invalid('more after the envelope');
    this.#pos = this.bytes.length;
    this.#place = 'done';
  }

  #envelopeLeft(): number {
    return Math.max(0, MAX_ENVELOPE_BYTES - this.#envelopeBytes);
  }
}

/** `JSON.parse` of `bytes[from, to)`; invalid JSON is an {@link EnvelopeError}. */
function parseValue(bytes: Uint8Array, from: number, to: number): unknown {
  try {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('utf8'));
  } catch {
    // Not JSON.parse's words: they quote the body, which may echo anything (a token, too).
    throw invalid(`the value at byte ${from} does not parse`);
  }
}

/**
 * The elements of a list `data`, parsed and handed on a slice per step, so that only one slice's
 * objects exist at once.
 */
export class ItemSlices {
  readonly #index: EnvelopeIndex;
  readonly #run: StepRunner;

  /** Built by {@link decodeEnvelope}; `run` runs each step. */
  constructor(index: EnvelopeIndex, run: StepRunner) {
    this.#index = index;
    this.#run = run;
  }

  get count(): number {
    return this.#index.starts.length;
  }

  /** Calls `fn` with each slice of elements in order, each in a step of its own. */
  async forEachSlice(fn: (items: readonly unknown[]) => void): Promise<void> {
    const { starts, ends, bytes } = this.#index;
    for (let first = 0; first < starts.length; ) {
      let last = first;
      const byteLimit = starts[first]! + SLICE_BYTES;
      while (last + 1 < starts.length && last + 1 - first < SLICE_ITEMS && ends[last + 1]! <= byteLimit)
        last++;
      const span = { from: starts[first]!, to: ends[last]!, count: last - first + 1 };
      await this.#run(() => fn(parseSlice(bytes, span)));
      first = last + 1;
    }
  }

  /** Every element in one array (for the small lists: sites). */
  async all(): Promise<unknown[]> {
    const out: unknown[] = [];
    await this.forEachSlice((items) => {
      for (const item of items) out.push(item);
    });
    return out;
  }
}

/** `data` of a decoded answer: a list's elements in slices, or one value. */
export type EnvelopeData =
  | { readonly kind: 'list'; readonly items: ItemSlices }
  | { readonly kind: 'value'; readonly value: unknown };

/**
 * Decodes an answer's envelope, each step through `run`, once the whole body is indexed and
 * checked: `data` is a list parsed a slice at a time when read, or one value (`undefined` when
 * absent). Rejects, as does reading a slice that is not JSON, with an {@link EnvelopeError}.
 */
export async function decodeEnvelope(
  bytes: Uint8Array,
  run: StepRunner,
  limits: EnvelopeLimits = {},
): Promise<EnvelopeData> {
  const index = new EnvelopeIndex(bytes, limits.maxItems ?? MAX_ITEMS_PER_ANSWER);
  while (!index.done) await run(() => index.step());
  const rest = index.others.length === 0 ? {} : joinMembers(bytes, index.others);
  // The envelope is checked without its data (a stand-in keeps `data` present when it is).
  const present = index.dataIsArray || index.single !== undefined;
  if (!envelopeSchema.safeParse(present ? { ...(rest as object), data: null } : rest).success)
    throw new EnvelopeError('invalid', 'response is not the documented envelope');
  if (index.dataIsArray) return { kind: 'list', items: new ItemSlices(index, run) };
  const single = index.single;
  if (!single) return { kind: 'value', value: undefined };
  // A small value (a station summary) is parsed in the step that indexed it.
  const [from, to] = single;
  const value =
    to - from <= SLICE_BYTES ? parseValue(bytes, from, to) : await run(() => parseValue(bytes, from, to));
  return { kind: 'value', value };
}

/** The members outside `data` as one object (they are at most {@link MAX_ENVELOPE_BYTES}). */
function joinMembers(bytes: Uint8Array, spans: ReadonlyArray<readonly [number, number]>): unknown {
  const text = spans.map(([a, b]) => Buffer.from(bytes.buffer, bytes.byteOffset + a, b - a).toString('utf8'));
  try {
    return JSON.parse(`{${text.join(',')}}`);
  } catch {
    throw invalid('a member outside data does not parse');
  }
}

/** Parses the elements in `bytes[from, to)` (with the commas between them) as one array. */
function parseSlice(
  bytes: Uint8Array,
  span: { readonly from: number; readonly to: number; readonly count: number },
): unknown[] {
  const { from, to, count } = span;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('utf8');
  let items: unknown;
  try {
    items = JSON.parse(`[${text}]`);
  } catch {
    throw invalid(`an item of data between bytes ${from} and ${to} does not parse`);
  }
  // The byte loop and JSON.parse must agree on where elements are; anything else is not JSON.
  if (!Array.isArray(items) || items.length !== count) throw invalid('elements of data do not parse');
  return items;
}
