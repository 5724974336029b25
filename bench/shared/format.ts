/** Number formatting for the benches' rows and details. */

/** `12.3 MB`, `45.6 kB` or `789 B` (decimal units, as network traffic is usually counted). */
export function bytes(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${Math.round(n)} B`;
}

/** Binary megabytes, as memory is usually counted. */
export function mib(n: number): string {
  return `${(n / 2 ** 20).toFixed(0)} MiB`;
}

/** `850 ms` below ten seconds, `12.3 s` above. */
export function ms(n: number): string {
  if (n >= 10_000) return `${(n / 1000).toFixed(1)} s`;
  if (n >= 100) return `${n.toFixed(0)} ms`;
  return `${n.toFixed(1)} ms`;
}

/** Thousands separated by commas. */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** `3.2 %` */
export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(ratio < 0.01 ? 2 : 1)} %`;
}
