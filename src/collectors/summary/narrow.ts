/**
 * Requests around refused stations (403): a set is sent for its accessible stations only (counted
 * as `partial`) instead of vanishing; a one-station request finds a refusal and re-probes it.
 */
import type { RefusedStations } from '../../records/refused.ts';
import { UpstreamError } from '../../upstream/errors.ts';
import type { StationSummary } from '../../upstream/types.ts';
import type { SummaryRequest } from './plan.ts';

/** What a poll does with one planned request: send it as is, narrowed, or not at all. */
export function narrow(
  request: SummaryRequest,
  refused: RefusedStations,
  now: number,
): { request?: SummaryRequest; partial: boolean } {
  if (refused.size === 0) return { request, partial: false };
  if (request.stationIds.length === 1) {
    return refused.wanted(request.stationIds[0]!, now) ? { request, partial: false } : { partial: false };
  }
  const ids = request.stationIds.filter((id) => !refused.has(id));
  if (ids.length === request.stationIds.length) return { request, partial: false };
  return ids.length === 0 ? { partial: true } : { request: { ...request, stationIds: ids }, partial: true };
}

/**
 * Learns from a single-station answer: a 403 refuses the station, an answer clears it, in
 * `refused`; `now`, the time of the poll (Unix ms), as a refused station is re-probed a while after it.
 */
export function learn(
  answer: Promise<StationSummary | undefined>,
  request: SummaryRequest,
  { refused, now }: { readonly refused: RefusedStations; readonly now: number },
): Promise<StationSummary | undefined> {
  if (request.stationIds.length !== 1) return answer;
  const id = request.stationIds[0]!;
  return answer.then(
    (summary) => {
      refused.accept(id);
      return summary;
    },
    (err: unknown) => {
      if (err instanceof UpstreamError && err.status === 403) refused.refuse(id, now);
      throw err;
    },
  );
}
