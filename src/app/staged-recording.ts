/**
 * Where `station-exporter record` writes: a staging directory moved into place once complete, so
 * that the output directory never holds a mix of two recordings, whenever the recorder stops.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RECORDING_FILES } from '../simulator/replay.ts';
import type { RecordingMeta, RecordingPart } from '../simulator/types.ts';

const PARTS: readonly RecordingPart[] = ['sites', 'units', 'metrics', 'summaries'];

// Inside the output directory, not the system's temporary one, so that the final renames stay on
// one file system (a rename across file systems fails).
const STAGING_PREFIX = '.record-';
const STAGING_SUFFIX = '.partial';

/** One record run's files, written aside until {@link StagedRecording.commit}. */
export class StagedRecording {
  readonly id: string;
  readonly #outDir: string;
  readonly #staging: string;

  private constructor(outDir: string, id: string) {
    this.id = id;
    this.#outDir = outDir;
    this.#staging = path.join(outDir, `${STAGING_PREFIX}${id}${STAGING_SUFFIX}`);
  }

  /** A fresh staging directory in `outDir`; those a killed recorder left are removed first. */
  static async open(outDir: string): Promise<StagedRecording> {
    await mkdir(outDir, { recursive: true });
    for (const name of await readdir(outDir)) {
      if (name.startsWith(STAGING_PREFIX) && name.endsWith(STAGING_SUFFIX))
        await rm(path.join(outDir, name), { recursive: true, force: true });
    }
    const staged = new StagedRecording(outDir, randomUUID());
    await mkdir(staged.#staging);
    return staged;
  }

  file(part: RecordingPart): string {
    return path.join(this.#staging, RECORDING_FILES[part]);
  }

  /**
   * Moves the data files into place, then `meta.json`. The old `meta.json` goes first: until the
   * new one arrives the directory holds no recording, which replay refuses, instead of the old
   * `meta.json` with some new files.
   */
  async commit(meta: RecordingMeta): Promise<void> {
    const staged = (name: string) => path.join(this.#staging, name);
    const placed = (name: string) => path.join(this.#outDir, name);
    await writeFile(staged(RECORDING_FILES.meta), `${JSON.stringify(meta, null, 2)}\n`);
    await rm(placed(RECORDING_FILES.meta), { force: true });
    for (const part of PARTS) await rename(staged(RECORDING_FILES[part]), placed(RECORDING_FILES[part]));
    await rename(staged(RECORDING_FILES.meta), placed(RECORDING_FILES.meta));
    await this.discard();
  }

  /** Removes the staging directory and what it holds; the output directory is left as it was. */
  async discard(): Promise<void> {
    await rm(this.#staging, { recursive: true, force: true });
  }
}
