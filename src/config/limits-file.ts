/**
 * `measurements.control.limits_file` at load time: resolved like `token_file` and validated, so that
 * a mistake is a config error naming both paths instead of a chart that silently rolls.
 */
import { isAbsolute, resolve } from 'node:path';
import { readRegularFileSync } from '../util/read-file.ts';
import type { PathIssue } from './env.ts';
import { LIMITS_MAX_BYTES, LimitsFileError, parseLimits } from './limits-schema.ts';
import { readErrorText } from './read-errors.ts';
import type { ConfigData } from './schema.ts';

type MeasurementsConfig = ConfigData['measurements'];

const FIELD = ['measurements', 'control', 'limits_file'];

const absolute = (path: string, baseDir: string) => (isAbsolute(path) ? path : resolve(baseDir, path));

/** The measurements settings with `control.limitsFile` absolute. */
export function withLimitsFile(m: MeasurementsConfig, baseDir: string): MeasurementsConfig {
  const file = m.control.limitsFile;
  if (file === undefined) return m;
  return { ...m, control: { ...m.control, limitsFile: absolute(file, baseDir) } };
}

/** Every problem of the limits file the expanded config names, as `…: FILE: charts[3].sigma: …`. */
export function checkLimitsFile(
  raw: unknown,
  at: { readonly baseDir: string; readonly skip: Set<string> },
): PathIssue[] {
  const control = (raw as { measurements?: { control?: { limits_file?: unknown } } } | undefined)
    ?.measurements?.control;
  const name = control?.limits_file;
  if (typeof name !== 'string' || name === '' || at.skip.has(FIELD.join('.'))) return [];
  const path = absolute(name, at.baseDir);
  let text: string;
  try {
    text = readRegularFileSync(path, { maxBytes: LIMITS_MAX_BYTES });
  } catch (err) {
    return [{ path: FIELD, message: `cannot read ${path}: ${readErrorText(err)}` }];
  }
  try {
    parseLimits(text, path);
    return [];
  } catch (err) {
    if (!(err instanceof LimitsFileError)) throw err;
    return err.issues.map((message) => ({ path: FIELD, message }));
  }
}
