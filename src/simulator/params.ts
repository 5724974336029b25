/** Query-parameter parsing and validation, with the error each invalid input gets. */

/** An error answered with the contract's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 500,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The error body of the contract. */
export function errorBody(err: ApiError) {
  return { error: { code: err.code, message: err.message, details: null } };
}

const ID_PATTERN = /^[0-9a-fA-F]{24}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const DAY_MS = 86_400_000;

const badRequest = (message: string) => new ApiError(400, 'BAD_REQUEST', message);

/** All values of a parameter, in repeated or comma-separated form; undefined when absent or empty. */
export function listParam(params: URLSearchParams, name: string): string[] | undefined {
  const values = params
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return values.length > 0 ? values : undefined;
}

/** Validates a 24-hex identifier (the value is echoed only when it is short, never a token). */
export function checkId(id: string, what: string): string {
  if (!ID_PATTERN.test(id)) throw badRequest(`invalid ${what}: expected 24 hexadecimal characters`);
  return id.toLowerCase();
}

/** `station_ids`, validated; undefined when absent. */
export function stationIdsParam(params: URLSearchParams): string[] | undefined {
  const ids = listParam(params, 'station_ids');
  return ids ? [...new Set(ids.map((id) => checkId(id, 'station id')))] : undefined;
}

function dateParam(params: URLSearchParams, name: 'from' | 'to'): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const ms = DATE_TIME.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(ms)) throw badRequest(`invalid ${name}: expected an ISO 8601 date-time`);
  return ms;
}

/** The window [from, to); defaults to the 24 hours before now, or 24 hours around the one bound given. */
export function windowParams(params: URLSearchParams, nowMs: number): { fromMs: number; toMs: number } {
  const from = dateParam(params, 'from');
  const to = dateParam(params, 'to');
  const toMs = to ?? (from === undefined ? nowMs : Math.max(nowMs, from));
  const fromMs = from ?? toMs - DAY_MS;
  if (fromMs > toMs) throw badRequest('invalid window: from is after to');
  return { fromMs, toMs };
}

/** `direction`, default output only. */
export function directionParam(params: URLSearchParams): Set<'input' | 'output'> {
  const values = listParam(params, 'direction') ?? ['output'];
  const out = new Set<'input' | 'output'>();
  for (const v of values) {
    if (v !== 'input' && v !== 'output') throw badRequest('invalid direction: expected input or output');
    out.add(v);
  }
  return out;
}
