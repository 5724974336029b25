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

const stationRefSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable().optional(),
});

export const elementSchema = z.discriminatedUnion('type', [
  stationRefSchema.extend({ type: z.literal('station') }),
  stationRefSchema.extend({ type: z.literal('group'), stations: z.array(z.unknown()) }),
]);

export { stationRefSchema };

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

/** Every summary field is documented as a required number; a missing one becomes `undefined`. */
export const summarySchema = z.looseObject({
  unique_units: z.unknown(),
  total_input: z.unknown(),
  unique_input: z.unknown(),
  total_output: z.unknown(),
  unique_output: z.unknown(),
  first_pass: z.unknown(),
  final_pass: z.unknown(),
  first_pass_yield: z.unknown(),
  final_yield: z.unknown(),
  retry_rate: z.unknown(),
});
