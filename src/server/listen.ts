/** Parses `host:port`, `:port` or `[v6]:port` (the config validates the shape). */
export function parseListenAddress(address: string): { hostname: string | undefined; port: number } {
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { hostname: host === '' ? undefined : host, port: Number(address.slice(i + 1)) };
}

/**
 * Why the server cannot listen on `address`, in words a user can act on: which address, what
 * is wrong, and the flag that changes it.
 */
export function listenErrorText(address: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const fix = 'choose another with --web.listen-address (or server.listen_address in the config)';
  if (code === 'EADDRINUSE')
    return `cannot listen on ${address}: the address is already in use (another exporter or program listens there); ${fix}`;
  if (code === 'EACCES')
    return `cannot listen on ${address}: permission denied (ports below 1024 need privileges); ${fix}`;
  if (code === 'EADDRNOTAVAIL')
    return `cannot listen on ${address}: the host is not an address of this machine; ${fix}`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `cannot listen on ${address}: the host name does not resolve; ${fix}`;
  const reason = code ?? (err instanceof Error ? err.message : String(err));
  return `cannot listen on ${address}: ${reason}`;
}
