/**
 * The approved-limits file, read again when it changed on disk, so that an approval reaches the
 * charts within a poll; a bad file is logged and the last good one stays. Read in a worker
 * thread: 10,000 entries cost seconds of YAML parsing, which would stall every scrape.
 */
import type { Stats } from 'node:fs';
import type { Logger } from 'pino';
import { type LimitsFile, LimitsFileError, loadLimitsFileInThread } from '../../config/limits-schema.ts';
import { readErrorText } from '../../config/read-errors.ts';
import { statWithin } from '../../util/read-file.ts';

/** How long a stat of the file may take (a hung network mount, say). */
const STAT_TIMEOUT_MS = 5_000;

/** What one {@link ApprovedLimits.refresh} did: nothing, took a new file, or kept the last good one. */
export type LimitsRefresh = 'unchanged' | 'loaded' | 'failed';

/** The file's identity on disk: a change of any part means it was written again. */
function signatureOf(s: Stats): string {
  return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}

/** The current limits file of `measurements.control.limits_file`, with the last good one kept. */
export class ApprovedLimits {
  readonly #path: string | undefined;
  readonly #logger: Logger;
  #current: LimitsFile | undefined;
  /** The signature of the file last read, good or bad: the same file is not read again. */
  #seen: string | undefined;
  #version = 0;

  /** `path`: the resolved `limits_file`; undefined when none is configured (every chart rolls). */
  constructor(path: string | undefined, logger: Logger) {
    this.#path = path;
    this.#logger = logger;
  }

  /** The last good file; undefined before one loaded, or without a file configured. */
  get current(): LimitsFile | undefined {
    return this.#current;
  }

  /** Counts the good files taken: charts compare it to know when to look again. */
  get version(): number {
    return this.#version;
  }

  /** Reads the file again when it changed since the last read. */
  async refresh(): Promise<LimitsRefresh> {
    const path = this.#path;
    if (path === undefined) return 'unchanged';
    let signature: string;
    try {
      signature = signatureOf(await statWithin(path, { timeoutMs: STAT_TIMEOUT_MS }));
    } catch (err) {
      return this.#failed('gone', new LimitsFileError(path, [`cannot read the file: ${readErrorText(err)}`]));
    }
    if (signature === this.#seen) return 'unchanged';
    this.#seen = signature;
    try {
      const file = await loadLimitsFileInThread(path);
      this.#take(file);
      return 'loaded';
    } catch (err) {
      if (!(err instanceof LimitsFileError)) throw err;
      return this.#failed(signature, err);
    }
  }

  #take(file: LimitsFile): void {
    this.#current = file;
    this.#version++;
    let approved = 0;
    for (const c of file.charts) if (file.approved(c) === c) approved++;
    this.#logger.info(
      { file: file.source, entries: file.charts.length, approved },
      'approved control limits loaded',
    );
  }

  /** Logs and reports a bad or missing file once per state of it; the last good file stays. */
  #failed(signature: string, err: LimitsFileError): LimitsRefresh {
    if (signature === 'gone' && this.#seen === 'gone') return 'unchanged';
    this.#seen = signature;
    this.#logger.error(
      { err: err.issues.join('; '), kept: this.#current !== undefined ? this.#current.source : 'none' },
      this.#current !== undefined
        ? 'limits file unusable; still charting against the last good one'
        : 'limits file unusable; charts use their configured baselines until it is fixed',
    );
    return 'failed';
  }
}
