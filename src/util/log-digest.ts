/**
 * Repeated warnings aggregated into one line per reason per poll with a count: a field every
 * answer lacks would otherwise flood the log with thousands of identical lines.
 */
import type { Logger } from 'pino';
import { getOrCreate } from './maps.ts';

/** Counts events by collector and kind, and logs them once per poll. */
export class LogDigest {
  private readonly counts = new Map<string, Map<string, { fields: Record<string, unknown>; n: number }>>();

  constructor(private readonly logger: Logger) {}

  /** Counts `n` (default 1) events of `kind` (with its fixed fields) for `collector`. */
  add(
    collector: string,
    event: { readonly kind: string; readonly fields: Record<string, unknown>; readonly n?: number },
  ): void {
    const { kind, fields, n = 1 } = event;
    const byKind = getOrCreate(this.counts, collector, () => new Map());
    const key = `${kind}\u0000${JSON.stringify(fields)}`;
    const entry = byKind.get(key);
    if (entry) entry.n += n;
    else byKind.set(key, { fields: { ...fields, kind }, n });
  }

  /** Logs one line per kind counted for `collector` since its last flush. */
  flush(collector: string, level: 'debug' | 'warn' = 'warn'): void {
    const byKind = this.counts.get(collector);
    if (!byKind) return;
    this.counts.delete(collector);
    for (const { fields, n } of byKind.values()) {
      this.logger[level]({ collector, ...fields, count: n }, `${String(fields.kind)} (${n} in this poll)`);
    }
  }
}
