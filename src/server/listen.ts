/** Parses `host:port`, `:port` or `[v6]:port` (the config validates the shape). */
export function parseListenAddress(address: string): { hostname: string | undefined; port: number } {
  const i = address.lastIndexOf(':');
  const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  return { hostname: host === '' ? undefined : host, port: Number(address.slice(i + 1)) };
}
