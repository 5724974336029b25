/** Command-line options of the bench scripts, in the one form they take: `--name=value`. */

/** The value of `--name=value` on the command line, or `fallback` without it. */
export function arg(name: string, fallback: string): string {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
}
