/** What bench/exporter/scrape.ts and its bare-server child (bench/exporter/bare-child.ts) exchange. */

/** Prometheus asks for the text format; gzip is its default. */
export const SCRAPE_HEADERS = {
  plain: { accept: 'text/plain;version=0.0.4' },
  gzip: { accept: 'text/plain;version=0.0.4', 'accept-encoding': 'gzip' },
} as const;

/** The child's argument: where the exporter answers. */
export interface BareSpec {
  readonly exporterUrl: string;
}

/** The child's message once its bare server listens. */
export interface BareReady {
  readonly type: 'bare';
  readonly url: string;
  /** Body bytes of one scrape as the exporter sent it, plain and gzip (compressed). */
  readonly plainBytes: number;
  readonly gzipBytes: number;
}

export const isBareReady = (msg: unknown): msg is BareReady =>
  typeof msg === 'object' && msg !== null && (msg as { type?: unknown }).type === 'bare';
