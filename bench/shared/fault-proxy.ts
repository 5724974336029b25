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

type Json = Record<string, unknown>;

const JSON_TYPE = { 'content-type': 'application/json' } as const;

/** Bytes of each piece of a slow-drip body. */
const DRIP_BYTES = 64;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The proxy in front of one upstream, with the faults in force and the requests it has seen. */
export class FaultProxy {
  /** Requests seen, by path (without the query). */
  readonly counts = new Map<string, number>();
  readonly #target: string;
  readonly #server: Server;
  #faults: ProxyFaults;
  #url = '';

  constructor(target: string, initial: ProxyFaults) {
    this.#target = target;
    this.#faults = initial;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
    });
  }

  /** Listens on a free port of 127.0.0.1. */
  async listen(): Promise<void> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    const { port } = this.#server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${port}`;
  }

  /** The proxy's base URL, once it listens. */
  get url(): string {
    return this.#url;
  }

  /** Replaces the faults in force. */
  set(faults: ProxyFaults): void {
    this.#faults = faults;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy');
    this.counts.set(url.pathname, (this.counts.get(url.pathname) ?? 0) + 1);
    const faults = appliesTo(url, this.#faults) ? this.#faults : {};
    if (await answeredByFault(req, res, { url, faults })) return;
    const authorization = req.headers.authorization ?? '';
    const upstream = await fetch(new URL(url.pathname + url.search, this.#target), {
      headers: { authorization },
    });
    let text = await upstream.text();
    if (upstream.ok) text = rewriteAnswer(text, { url, faults, authorization });
    await sendAnswer(res, { status: upstream.status, text, faults });
  }
}

/** Starts the proxy on 127.0.0.1 in front of `target`. */
export async function startFaultProxy(target: string, initial: ProxyFaults = {}): Promise<FaultProxy> {
  const proxy = new FaultProxy(target, initial);
  await proxy.listen();
  return proxy;
}

/** Whether the faults apply to a request: the paths they name, never the simulator's own /_sim routes. */
function appliesTo(url: URL, f: ProxyFaults): boolean {
  return !url.pathname.startsWith('/_sim') && (f.paths ?? ['/']).some((p) => url.pathname.startsWith(p));
}

interface Request {
  readonly url: URL;
  readonly faults: ProxyFaults;
}

/**
 * The faults that act before the upstream is asked: latency, then a reset, an error status or a
 * refused station, each of which answers the request. True when the request is answered.
 */
async function answeredByFault(
  req: IncomingMessage,
  res: ServerResponse,
  { url, faults: f }: Request,
): Promise<boolean> {
  if (f.latencyMs) await sleep(f.latencyMs);
  if (f.reset) {
    req.socket.destroy();
    return true;
  }
  if (f.status) {
    res.writeHead(
      f.status,
      f.retryAfter === undefined ? JSON_TYPE : { ...JSON_TYPE, 'retry-after': f.retryAfter },
    );
    res.end(JSON.stringify({ error: { code: 'INJECTED', message: injectedMessage(req, f) } }));
    return true;
  }
  const refused = new Set(f.refuse ?? []);
  if (refused.size > 0 && stationIdsOf(url).some((id) => refused.has(id))) {
    res.writeHead(403, JSON_TYPE);
    res.end(JSON.stringify({ error: { code: 'FORBIDDEN', message: 'station not accessible' } }));
    return true;
  }
  return false;
}

function injectedMessage(req: IncomingMessage, f: ProxyFaults): string {
  if (!f.echoHeaders) return `injected ${f.status}`;
  const auth = req.headers.authorization ?? '';
  return `internal: request had Authorization: ${auth} (credential ${auth.replace(/^Bearer\s+/i, '')}), headers ${JSON.stringify(req.headers)}`;
}

function stationIdsOf(url: URL): string[] {
  return (url.searchParams.get('station_ids') ?? '')
    .split(',')
    .filter(Boolean)
    .map((s) => s.toLowerCase());
}

/** A successful answer's text with the faults that rewrite its body applied (as is without any). */
function rewriteAnswer(
  text: string,
  { url, faults: f, authorization }: Request & { authorization: string },
): string {
  const renames = Boolean(f.echoInSites || f.renameSites !== undefined || f.stationNameLength);
  if (!(f.drift || f.hideStations?.length || f.oversizeBytes || renames)) return text;
  const envelope = JSON.parse(text) as Json;
  const sites = url.pathname.startsWith('/sites');
  if (sites && f.hideStations?.length)
    hide(envelope.data, new Set(f.hideStations.map((s) => s.toLowerCase())));
  if (sites && renames) rewriteSites(envelope.data, { faults: f, authorization });
  if (f.drift && f.drift !== 'none') drift(envelope, f.drift);
  if (f.oversizeBytes) envelope.padding = 'x'.repeat(f.oversizeBytes);
  return JSON.stringify(envelope);
}

/** Sends an answer, gzip-compressed and slowly dripped when the faults say so. */
async function sendAnswer(
  res: ServerResponse,
  { status, text, faults: f }: { status: number; text: string; faults: ProxyFaults },
): Promise<void> {
  let body: Buffer = Buffer.from(text);
  if (f.gzip) body = gzipSync(body);
  res.writeHead(status, f.gzip ? { ...JSON_TYPE, 'content-encoding': 'gzip' } : JSON_TYPE);
  if (!f.dripMs) {
    res.end(body);
    return;
  }
  for (let i = 0; i < body.length && !res.destroyed; i += DRIP_BYTES) {
    res.write(body.subarray(i, i + DRIP_BYTES));
    await sleep(f.dripMs);
  }
  res.end();
}

/** Every station of a site in a /sites answer, those inside groups included. */
function* stationsOf(site: Json): Generator<Json> {
  for (const line of (site.lines ?? []) as Json[]) {
    for (const e of (line.elements ?? []) as Json[]) {
      if (e.type === 'group') yield* (e.stations ?? []) as Json[];
      else yield e;
    }
  }
}

/** Applies the /sites faults that rewrite names and descriptions, in place. */
function rewriteSites(
  sites: unknown,
  { faults: f, authorization }: { faults: ProxyFaults; authorization: string },
): void {
  if (!Array.isArray(sites)) return;
  for (const site of sites as Json[]) {
    if (f.renameSites !== undefined) site.name = f.renameSites;
    if (f.echoInSites) site.name = `${String(site.name)} [${authorization}]`;
    for (const st of stationsOf(site)) {
      if (f.echoInSites) st.description = `last seen by ${authorization}`;
      if (f.stationNameLength) st.name = String(st.name).padEnd(f.stationNameLength, 'N');
    }
  }
}

/** Removes the hidden stations from a /sites answer, and the groups left empty. */
function hide(sites: unknown, hidden: ReadonlySet<string>): void {
  if (!Array.isArray(sites)) return;
  const visible = (s: Json) => !hidden.has(String(s.id));
  for (const site of sites as Json[]) {
    for (const line of (site.lines ?? []) as Json[]) {
      line.elements = ((line.elements ?? []) as Json[])
        .map((e) =>
          e.type === 'group' ? { ...e, stations: ((e.stations ?? []) as Json[]).filter(visible) } : e,
        )
        .filter((e) => (e.type === 'group' ? (e.stations as Json[]).length > 0 : visible(e)));
    }
  }
}

/** The upstream's field names and the names a drifted schema gives them. */
const RENAMED_FIELDS = [
  ['station_id', 'stationId'],
  ['time_created', 'created_at'],
  ['value', 'val'],
  ['first_pass_yield', 'fpy'],
] as const;

/** Applies a drift to an envelope in place. */
function drift(envelope: Json, kind: Drift): void {
  const data = envelope.data;
  if (kind === 'data-object' && Array.isArray(data)) envelope.data = { items: data };
  const alter =
    kind === 'renamed-fields' ? renameFields : kind === 'string-numbers' ? stringifyNumbers : undefined;
  if (alter) for (const r of recordsOf(data)) alter(r);
}

/** The records of an envelope's `data`: its items, or the one object it is. */
function recordsOf(data: unknown): Json[] {
  if (Array.isArray(data)) return data as Json[];
  return data && typeof data === 'object' ? [data as Json] : [];
}

function renameFields(r: Json): void {
  for (const [from, to] of RENAMED_FIELDS) {
    if (from in r) {
      r[to] = r[from];
      delete r[from];
    }
  }
}

function stringifyNumbers(r: Json): void {
  for (const [k, v] of Object.entries(r)) if (typeof v === 'number') r[k] = String(v);
}
