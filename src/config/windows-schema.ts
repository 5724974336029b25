/** The `windows` section: rolling windows, the current shift, today and this week (`window` label values). */
import { z } from 'zod';
import { WEEKDAYS, type WindowSpec } from '../time/windows.ts';
import { always, checkDuration, clockTime, duration, reportDuplicates, timeZone } from './fields.ts';

const WINDOW_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

const windowName = z
  .string()
  .regex(
    WINDOW_NAME_RE,
    'must be 1-64 letters, digits, "_", ".", ":" or "-", starting with a letter or digit',
  )
  .describe('Name of the window, exported as the `window` label value.');

const WINDOW_TYPE =
  'Kind of window: `rolling` (the last `duration`), `today` (since local midnight), `week` (since local ' +
  'midnight of the first day of the week) or `shift` (since the current shift began).';

const windowTimeZone = timeZone().describe('IANA time zone in which the day, the week or the shifts start.');

/** A window mapping of one `type`: its name, its type and `fields`. */
function windowOf<T extends string, S extends z.core.$ZodLooseShape>(type: T, fields: S) {
  return z.strictObject({ name: windowName, type: z.literal(type).describe(WINDOW_TYPE), ...fields });
}

const rollingWindow = windowOf('rolling', {
  duration: duration().describe('Length of a `rolling` window (at most 7d).'),
}).transform((w) => ({ name: w.name, kind: 'rolling' as const, durationMs: w.duration }));

const shiftWindow = windowOf('shift', {
  timezone: windowTimeZone,
  shift_starts: z
    .array(clockTime())
    .min(1)
    .superRefine(
      (starts, ctx) => reportDuplicates(starts, ctx, { key: (s) => s, what: 'shift start' }),
      always,
    )
    .describe('Local start times (`HH:MM`) of the shifts of a `shift` window; it covers the current shift.'),
}).transform((w) => ({
  name: w.name,
  kind: 'shift' as const,
  timezone: w.timezone,
  shiftStarts: [...w.shift_starts].sort(),
}));

const todayWindow = windowOf('today', {
  timezone: windowTimeZone,
}).transform((w) => ({ name: w.name, kind: 'today' as const, timezone: w.timezone }));

const weekWindow = windowOf('week', {
  timezone: windowTimeZone,
  week_starts: z
    .enum(WEEKDAYS)
    .default('monday')
    .describe(
      'First day of the week of a `week` window; the default `monday` gives ISO 8601 weeks. ' +
        'The window covers the current week, from local midnight of that day.',
    ),
}).transform((w) => ({
  name: w.name,
  kind: 'week' as const,
  timezone: w.timezone,
  weekStarts: w.week_starts,
}));

const windowShorthand = z.string().transform((text, ctx) => {
  const durationMs = checkDuration(text, ctx);
  return durationMs === undefined ? z.NEVER : { name: text, kind: 'rolling' as const, durationMs };
});

const windowSchema = z
  .union([
    windowShorthand,
    z.discriminatedUnion('type', [rollingWindow, shiftWindow, todayWindow, weekWindow], {
      error: 'must be one of rolling, shift, today, week',
    }),
  ])
  .meta({ 'x-type': 'duration or mapping' }) satisfies z.ZodType<WindowSpec>;

/** A time window over which upstream statistics are requested (the type lives with the time arithmetic). */
export type { WindowSpec };

/** The `windows` list, with its default. */
export const windowsSchema = z
  .array(windowSchema)
  .min(1)
  .prefault(['1h', '24h'])
  .superRefine(
    (windows, ctx) => reportDuplicates(windows, ctx, { key: (w) => w?.name, what: 'window name' }),
    always,
  )
  .describe(
    'Time windows for statistics. A duration such as `1h` is a rolling window of that length named after it; ' +
      'a mapping gives a name and a type: `rolling` (last `duration`), `today` (since local midnight), ' +
      '`week` (since local midnight of the first day of the week, Monday by default) or ' +
      '`shift` (since the start of the current shift).',
  );
