/** The exporter's upstream token: read as configured, with its expiry and file state reported. */
import { statSync } from 'node:fs';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import { InlineToken, TokenFile, type TokenProvider, tokenFileModeWarning } from '../config/token.ts';
import type { SelfMetrics } from '../exposition/selfmetrics.ts';
import { jwtExpiry } from '../upstream/jwt.ts';
import type { Redactor } from '../util/redact.ts';

interface TrackedTokenDeps {
  readonly self: SelfMetrics;
  readonly logger: Logger;
  readonly wallClock: () => number;
  readonly redactor: Redactor;
}

/** The token provider, reporting each new token's expiry, an expiry near, a file unreadable; never the token. */
export class TrackedToken {
  readonly #tokens: TokenProvider;
  readonly #deps: TrackedTokenDeps;
  readonly #warningMs: number;
  #lastToken: string | undefined;
  #expiring = false;

  constructor(upstream: Pick<Config['upstream'], 'token' | 'tokenExpiryWarningMs'>, deps: TrackedTokenDeps) {
    this.#deps = deps;
    this.#warningMs = upstream.tokenExpiryWarningMs;
    const source = upstream.token;
    const { self, logger } = deps;
    if (source.kind === 'file') {
      const warning = tokenFileModeWarning(source.path, modeOf(source.path));
      if (warning) logger.warn(warning);
    }
    this.#tokens =
      source.kind === 'inline'
        ? new InlineToken(source.value)
        : new TokenFile(source.path, {
            onFileError: (reason) => {
              self.setTokenFileError(reason !== undefined);
              if (reason)
                logger.error({ err: reason }, 'token file unreadable; still using the last token read');
              else logger.info('token file readable again');
            },
          });
    self.setTokenExpiring(false);
  }

  async get(): Promise<string> {
    return this.#track(await this.#tokens.get());
  }

  async renew(): Promise<string> {
    return this.#track(await this.#tokens.renew());
  }

  #track(token: string): string {
    const { self, logger, wallClock, redactor } = this.#deps;
    if (token !== this.#lastToken) {
      this.#lastToken = token;
      // Before any request carries it: an error body may echo it back.
      redactor.add(token);
      self.setTokenExpiry(jwtExpiry(token));
    }
    const exp = jwtExpiry(token);
    const soon = exp !== undefined && exp * 1000 - wallClock() < this.#warningMs;
    if (soon === this.#expiring) return token;
    this.#expiring = soon;
    self.setTokenExpiring(soon);
    if (soon) {
      logger.warn(
        { expires: new Date((exp ?? 0) * 1000).toISOString() },
        'the upstream token expires soon: renew it in the service dashboard and update the token file',
      );
    }
    return token;
  }
}

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode;
  } catch {
    return undefined;
  }
}
