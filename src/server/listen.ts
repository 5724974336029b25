import type { ConnectionStats } from './connections.ts';

/** What a listen error's code means for the user. */
const LISTEN_ERRORS = new Map([
  ['EADDRINUSE', 'the address is already in use (another exporter or program listens there)'],
  ['EACCES', 'permission denied (ports below 1024 need privileges)'],
  ['EADDRNOTAVAIL', 'the host is not an address of this machine'],
  ['ENOTFOUND', 'the host name does not resolve'],
  ['EAI_AGAIN', 'the host name does not resolve'],
]);

/** Why the server cannot listen on `address`, and the flag that changes it. */
function listenErrorText(address: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const known = code === undefined ? undefined : LISTEN_ERRORS.get(code);
  if (known !== undefined)
    return `cannot listen on ${address}: ${known}; choose another with --web.listen-address (or server.listen_address in the config)`;
  const reason = code ?? (err instanceof Error ? err.message : String(err));
  return `cannot listen on ${address}: ${reason}`;
}

/** Where one server listens: an address from the flags or the config, or a socket from systemd. */
export interface ListenTarget {
  /** As the user gave it, or `systemd socket fd N`, for messages. */
  readonly address: string;
  readonly hostname: string | undefined;
  readonly port: number;
  readonly fd?: number;
}

/** A target for `host:port`, `:port` or `[v6]:port` (the config validates the shape). */
export function addressTarget(address: string): ListenTarget {
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { address, hostname: host === '' ? undefined : host, port: Number(address.slice(i + 1)) };
}

const SD_LISTEN_FDS_START = 3;

/**
 * The sockets systemd passed to this process, as sd_listen_fds(3) reads them; throws a
 * {@link ListenFailure} when there are none (`--web.systemd-socket` outside socket activation).
 */
export function systemdTargets(
  env: NodeJS.ProcessEnv = process.env,
  pid: number = process.pid,
): ListenTarget[] {
  const count = Number(env.LISTEN_FDS);
  const none = (why: string): never => {
    const message = `--web.systemd-socket: ${why}; start the exporter from a systemd .socket unit`;
    throw Object.assign(new Error(message), { address: 'systemd socket' });
  };
  if (env.LISTEN_PID === undefined || env.LISTEN_FDS === undefined)
    none('no sockets were passed (LISTEN_FDS is not set)');
  if (Number(env.LISTEN_PID) !== pid)
    none(`the sockets were passed to process ${env.LISTEN_PID}, not to this one (${pid})`);
  if (!Number.isSafeInteger(count) || count < 1)
    none(`LISTEN_FDS must be a whole number of at least 1, got "${env.LISTEN_FDS}"`);
  return Array.from({ length: count }, (_, i) => {
    const fd = SD_LISTEN_FDS_START + i;
    return { address: `systemd socket fd ${fd}`, hostname: undefined, port: 0, fd };
  });
}

/** Why a server could not listen: the message for the log, the address and the error code. */
export interface ListenFailure extends Error {
  readonly address: string;
  readonly code?: string;
}

/** Starts one server per target; when one cannot listen, closes the others: {@link ListenFailure}. */
export async function startServers<S extends { close(): Promise<void> }>(
  targets: readonly ListenTarget[],
  start: (target: ListenTarget) => Promise<S>,
): Promise<S[]> {
  const started: S[] = [];
  for (const target of targets) {
    try {
      started.push(await start(target));
    } catch (err) {
      await Promise.all(started.map((s) => s.close()));
      const code = (err as NodeJS.ErrnoException | undefined)?.code;
      throw Object.assign(new Error(listenErrorText(target.address, err)), { address: target.address, code });
    }
  }
  return started;
}

/** The URL a started server answers on; `localhost` for a wildcard host. */
export function serverUrl(server: { hostname: string | undefined; port: number; tls: boolean }): string {
  const { hostname } = server;
  const host = hostname && hostname !== '0.0.0.0' && hostname !== '::' ? hostname : 'localhost';
  return `${server.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${server.port}`;
}

/** The connection statistics of several servers, added up. */
export function sumConnectionStats(list: readonly ConnectionStats[]): ConnectionStats {
  const sum = (read: (s: ConnectionStats) => number) => list.reduce((n, s) => n + read(s), 0);
  return {
    open: () => sum((s) => s.open()),
    closed: (reason) => sum((s) => s.closed(reason)),
    stalled: () => sum((s) => s.stalled()),
  };
}
