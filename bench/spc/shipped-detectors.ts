/**
 * The detectors the benches of measurement charts run: the exporter's CUSUM as its config
 * defaults give it, the fast CUSUM beside it, and the EWMA off (no shipped alert reads it).
 * Read from the config schema, so that a changed default changes what the benches measure.
 */
import { controlSchema } from '../../src/config/control-schema.ts';
import { type DetectorParams, FAST_CUSUM } from '../../src/spc/detector-state.ts';

const DEFAULTS = controlSchema.parse({});

/** The shipped CUSUM pair, with the EWMA not stepped. */
export const SHIPPED_CUSUM_PAIR: DetectorParams = {
  cusum: DEFAULTS.cusum,
  ewma: { ...DEFAULTS.ewma, enabled: false },
  fast: FAST_CUSUM,
};
