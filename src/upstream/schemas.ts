/**
 * Loose schemas of the upstream's JSON: extra fields pass, and each record is parsed on its own so
 * that one bad record is skipped and counted instead of failing the whole response.
 */
import { z } from 'zod';

/** The success envelope. `data` is checked per endpoint. */
export const envelopeSchema = z.looseObject({
  data: z.unknown(),
  message: z.string().optional(),
  meta: z.unknown().optional(),
});

/** The documented error body. */
export const errorBodySchema = z.looseObject({
  error: z.looseObject({
    code: z.union([z.string(), z.number()]).optional(),
    message: z.string().optional(),
  }),
});

const nullableString = z.string().nullable().optional();

export const stationRefSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable().optional(),
});

export const elementSchema = z.discriminatedUnion('type', [
  stationRefSchema.extend({ type: z.literal('station') }),
  stationRefSchema.extend({ type: z.literal('group'), stations: z.array(z.unknown()) }),
]);

/** A line of `/sites/{id}`: its elements are checked one by one, later. */
export const lineSchema = stationRefSchema.extend({ elements: z.array(z.unknown()) });

/** A site of `/sites/{id}`: its lines are checked one by one, later. */
export const siteSchema = stationRefSchema.extend({ lines: z.array(z.unknown()) });

// The fields every record starts with. Record schemas strip unknown keys instead of copying them
// (z.looseObject): the mapping reads only the keys listed here, and copying the rest cost an
// object's worth per record.
const recordHead = {
  station_id: z.string(),
  slot: nullableString,
  unit_serial: z.string(),
  time_created: z.union([z.string(), z.number()]),
  time_inserted: z.unknown().optional(),
  tz: z.unknown().optional(),
  mode: nullableString,
};

export const metricRecordSchema = z.object({
  ...recordHead,
  name: z.string(),
  value: z.union([z.string(), z.number()]).nullable(),
  unit: nullableString,
  type: nullableString,
  limit_upper: z.union([z.string(), z.number()]).nullable().optional(),
  limit_lower: z.union([z.string(), z.number()]).nullable().optional(),
});

export const unitRecordSchema = z.object({
  ...recordHead,
  unit_type: nullableString,
  direction: z.string(),
  result: nullableString,
});

/** The summary's fields by their domain names (`uniqueUnits`) and wire names (`unique_units`). */
export const SUMMARY_FIELDS = {
  uniqueUnits: 'unique_units',
  totalInput: 'total_input',
  uniqueInput: 'unique_input',
  totalOutput: 'total_output',
  uniqueOutput: 'unique_output',
  firstPass: 'first_pass',
  finalPass: 'final_pass',
  firstPassYield: 'first_pass_yield',
  finalYield: 'final_yield',
  retryRate: 'retry_rate',
} as const;

/**
 * Every summary field is documented as a required number, but each is read alone (a missing one
 * is left out, not a failed summary): the schema only asks for an object.
 */
export const summarySchema = z.looseObject({});
