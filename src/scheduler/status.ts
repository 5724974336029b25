/** What the scheduler remembers of each collector, for the landing page and readiness. */

/** Status of one collector. */
export interface CollectorStatus {
  readonly name: string;
  readonly intervalMs: number;
  readonly polls: number;
  readonly lastOk?: boolean;
  /** Wall clock, epoch ms. */
  readonly lastSuccessMs?: number;
  readonly lastDurationMs?: number;
  readonly lastError?: string;
}

/** The status after one more run. */
export function recordRun(
  prev: CollectorStatus | undefined,
  job: { readonly name: string; readonly intervalMs: number },
  run: { readonly ok: boolean; readonly seconds: number; readonly error: unknown; readonly now: number },
): CollectorStatus {
  const error =
    run.error === undefined ? undefined : run.error instanceof Error ? run.error.message : String(run.error);
  return {
    name: job.name,
    intervalMs: job.intervalMs,
    polls: (prev?.polls ?? 0) + 1,
    lastOk: run.ok,
    lastSuccessMs: run.ok ? run.now : prev?.lastSuccessMs,
    lastDurationMs: run.seconds * 1000,
    lastError: run.ok ? undefined : (error ?? prev?.lastError),
  };
}
