/** A `limits` command line that cannot be run: the message, then the usage, exit code 2. */
export class LimitsUsageError extends Error {
  override readonly name = 'LimitsUsageError';
}
