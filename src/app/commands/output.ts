/** What every command shares: masked output, config errors as exit codes. */
import { LimitsFileError } from '../../config/limits-schema.ts';
import { ConfigError, loadConfig } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';
import { WebConfigError } from '../../server/web-config/load.ts';
import { maskCredentialLike, Redactor } from '../../util/redact.ts';

/**
 * What a command writes to stdout and stderr, masked: a message may quote a value from the config
 * or an upstream answer, and either may hold the token.
 */
export class Output {
  /** Masks every token the loader saw. */
  readonly redactor = new Redactor();

  err(text: string): void {
    process.stderr.write(this.#masked(text));
  }

  out(text: string): void {
    process.stdout.write(this.#masked(text));
  }

  /** Loads a config file, teaching the redactor every token the loader sees. */
  load(path: string): Promise<Config> {
    return loadConfig(path, process.env, { onSecret: (s) => this.redactor.add(s) });
  }

  /** Known tokens, and what looks like one: a token pasted into another field is unknown. */
  #masked(text: string): string {
    return maskCredentialLike(this.redactor.redact(text));
  }
}

/** Reports a bad config or web config and returns exit code 2; rethrows anything else. */
export function reportConfigError(err: unknown, io: Output): number {
  if (err instanceof ConfigError || err instanceof WebConfigError || err instanceof LimitsFileError) {
    io.err(`${err.message}\n`);
    return 2;
  }
  throw err;
}
