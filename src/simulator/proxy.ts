/**
 * A hostile upstream: a node:http proxy in front of the simulator that injects faults the
 * simulator does not have (error statuses with Retry-After, connection resets, latency,
 * slow-drip bodies, 403 for chosen stations, schema drift, oversized answers, stations that
 * come and go). Faults are data ({@link ProxyFaults}), switched at run time; the fault-matrix
 * tests and the soak run use it. Loopback only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** Schema drift applied to answers: renamed fields, `data` as an object, numbers as strings. */
type Drift = 'none' | 'renamed-fields' | 'data-object' | 'string-numbers';

/** The faults in force; every field is optional, the empty object is a faithful proxy. */
export interface ProxyFaults {
  /** Answer API requests with this status instead of forwarding them. */
  readonly status?: number;
  /** `Retry-After` header sent with `status`. */
  readonly retryAfter?: string;
  /**
   * With `status`: the error body echoes the request's headers, Authorization included, as a
   * careless gateway does (in the message, and the bare credential once more).
   */
  readonly echoHeaders?: boolean;
  /** Delay before answering (ms). */
  readonly latencyMs?: number;
  /** Send the body in small pieces, this many ms apart (slow drip). */
  readonly dripMs?: number;
  /** Close the connection without answering. */
  readonly reset?: boolean;
  /** Stations refused with 403 when a request names them (station_ids). */
  readonly refuse?: readonly string[];
  readonly drift?: Drift;
  /** Pad every answer to at least this many bytes. */
  readonly oversizeBytes?: number;
  /** Send the answer gzip-compressed. */
  readonly gzip?: boolean;
  /** Stations removed from /sites answers (topology churn). */
  readonly hideStations?: readonly string[];
  /**
   * /sites answers reflect the request's Authorization header into every site name and station
   * description, as a careless upstream does (the exporter must mask it on /metrics).
   */
  readonly echoInSites?: boolean;
  /** /sites answers with every site renamed to this (a rename between two discoveries). */
  readonly renameSites?: string;
  /** /sites answers with every station name padded to this many characters (a hostile 1 MB name). */
  readonly stationNameLength?: number;
  /** Only requests whose path starts with one of these get the faults (default: all but /_sim). */
  readonly paths?: readonly string[];
}

export interface FaultProxy {
  readonly url: string;
  /** Replaces the faults in force. */
  set(faults: ProxyFaults): void;
  /** Requests seen, by path (without the query). */
  readonly counts: Map<string, number>;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function stationIdsOf(url: URL): string[] {
  return (url.searchParams.get('station_ids') ?? '')
    .split(',')
    .filter(Boolean)
    .map((s) => s.toLowerCase());
}

/** Applies the /sites faults that rewrite names and descriptions, in place. */
function rewriteSites(sites: unknown, f: ProxyFaults, authorization: string): void {
  if (!Array.isArray(sites)) return;
  for (const site of sites as Json[]) {
    if (f.renameSites !== undefined) site.name = f.renameSites;
    if (f.echoInSites) site.name = `${String(site.name)} [${authorization}]`;
    for (const line of (site.lines ?? []) as Json[]) {
      for (const e of (line.elements ?? []) as Json[]) {
        for (const st of e.type === 'group' ? ((e.stations ?? []) as Json[]) : [e]) {
          if (f.echoInSites) st.description = `last seen by ${authorization}`;
          if (f.stationNameLength) st.name = String(st.name).padEnd(f.stationNameLength, 'N');
        }
      }
    }
  }
}

function hide(sites: unknown, hidden: ReadonlySet<string>): void {
  if (!Array.isArray(sites)) return;
  for (const site of sites as Json[]) {
    for (const line of (site.lines ?? []) as Json[]) {
      const elements = (line.elements ?? []) as Json[];
      line.elements = elements
        .map((e) =>
          e.type === 'group'
            ? { ...e, stations: ((e.stations ?? []) as Json[]).filter((s) => !hidden.has(String(s.id))) }
            : e,
        )
        .filter((e) => (e.type === 'group' ? (e.stations as Json[]).length > 0 : !hidden.has(String(e.id))));
    }
  }
}

/** Applies a drift to an envelope in place. */
function drift(envelope: Json, kind: Drift): void {
  const data = envelope.data;
  if (kind === 'data-object' && Array.isArray(data)) envelope.data = { items: data };
  const records = Array.isArray(data)
    ? (data as Json[])
    : data && typeof data === 'object'
      ? [data as Json]
      : [];
  for (const r of records) {
    if (kind === 'renamed-fields') {
      for (const [from, to] of [
        ['station_id', 'stationId'],
        ['time_created', 'created_at'],
        ['value', 'val'],
        ['first_pass_yield', 'fpy'],
      ] as const) {
        if (from in r) {
          r[to] = r[from];
          delete r[from];
        }
      }
    }
    if (kind === 'string-numbers') {
      for (const [k, v] of Object.entries(r)) if (typeof v === 'number') r[k] = String(v);
    }
  }
}

function injectedMessage(req: IncomingMessage, f: ProxyFaults): string {
  if (!f.echoHeaders) return `injected ${f.status}`;
  const auth = req.headers.authorization ?? '';
  return `internal: request had Authorization: ${auth} (credential ${auth.replace(/^Bearer\s+/i, '')}), headers ${JSON.stringify(req.headers)}`;
}

/** Starts the proxy on 127.0.0.1 in front of `target`. */
export async function startFaultProxy(target: string, initial: ProxyFaults = {}): Promise<FaultProxy> {
  let faults = initial;
  const counts = new Map<string, number>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy');
    counts.set(url.pathname, (counts.get(url.pathname) ?? 0) + 1);
    const f = faults;
    const faulty =
      !url.pathname.startsWith('/_sim') && (f.paths ?? ['/']).some((p) => url.pathname.startsWith(p));
    if (faulty && f.latencyMs) await new Promise((r) => setTimeout(r, f.latencyMs));
    if (faulty && f.reset) {
      req.socket.destroy();
      return;
    }
    if (faulty && f.status) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (f.retryAfter !== undefined) headers['retry-after'] = f.retryAfter;
      res.writeHead(f.status, headers);
      res.end(JSON.stringify({ error: { code: 'INJECTED', message: injectedMessage(req, f) } }));
      return;
    }
    const refused = new Set(f.refuse ?? []);
    if (faulty && refused.size > 0 && stationIdsOf(url).some((id) => refused.has(id))) {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'FORBIDDEN', message: 'station not accessible' } }));
      return;
    }
    const upstream = await fetch(new URL(url.pathname + url.search, target), {
      headers: { authorization: req.headers.authorization ?? '' },
    });
    let text = await upstream.text();
    const rewrite = f.echoInSites || f.renameSites !== undefined || f.stationNameLength;
    if (faulty && upstream.ok && (f.drift || f.hideStations?.length || f.oversizeBytes || rewrite)) {
      const envelope = JSON.parse(text) as Json;
      if (f.hideStations?.length && url.pathname.startsWith('/sites')) {
        hide(envelope.data, new Set(f.hideStations.map((s) => s.toLowerCase())));
      }
      if (rewrite && url.pathname.startsWith('/sites')) {
        rewriteSites(envelope.data, f, req.headers.authorization ?? '');
      }
      if (f.drift && f.drift !== 'none') drift(envelope, f.drift);
      if (f.oversizeBytes) envelope.padding = 'x'.repeat(f.oversizeBytes);
      text = JSON.stringify(envelope);
    }
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    let body: Buffer = Buffer.from(text);
    if (faulty && f.gzip) {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
    }
    res.writeHead(upstream.status, headers);
    if (faulty && f.dripMs) {
      for (let i = 0; i < body.length && !res.destroyed; i += 64) {
        res.write(body.subarray(i, i + 64));
        await new Promise((r) => setTimeout(r, f.dripMs));
      }
      res.end();
      return;
    }
    res.end(body);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    set: (next) => {
      faults = next;
    },
    counts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
