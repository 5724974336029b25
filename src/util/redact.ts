/**
 * Keeps secrets out of everything the process writes. One redactor per process knows every
 * token it has seen (inline, expanded from the environment, read from a token file, and each
 * re-read), and masks them in log lines, error messages, command output and the HTTP pages.
 * A gateway that echoes the request's Authorization header into an error body, or a token
 * pasted into the wrong config field, must not carry the token into a log or a page.
 */

/** What a masked secret reads as: plain text that is safe in JSON, HTML and log lines. */
export const REDACTED = '[REDACTED]';

/**
 * Secrets shorter than this are not masked: masking every "ab" in every log line would make
 * the output unreadable, and a token that short protects nothing.
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * `Bearer <credential>` in any text, whoever's token it is: the backstop for a token the
 * process never read itself (an upstream echoing another client's header). The credential is
 * the run of characters up to a blank, quote, backslash or bracket (RFC 6750's token68 and more).
 */
const BEARER = /\b(Bearer)(\s+)([^\s"'`\\<>()[\]{},;]+)/gi;

/**
 * A plain short word after "Bearer" is prose ("Bearer token has expired"), not a credential:
 * credentials carry digits or punctuation, or are long.
 */
const PROSE_WORD = /^[A-Za-z]{1,12}$/;

/**
 * `text` with the credential of every `Bearer <credential>` replaced by `mask(credential)`;
 * prose ("Bearer token has expired") and an already masked credential stay.
 */
function maskBearer(text: string, mask: (credential: string) => string): string {
  return text.replace(BEARER, (whole, word: string, blank: string, credential: string) =>
    credential === REDACTED || PROSE_WORD.test(credential) ? whole : `${word}${blank}${mask(credential)}`,
  );
}

/** The forms a secret takes in output: as is, JSON-escaped, HTML-escaped and percent-encoded. */
function formsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const html = secret
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
  return [...new Set([secret, json, html, encodeURIComponent(secret)])];
}

/** Masks known secrets and `Bearer <credential>` in text. */
export class Redactor {
  /** Every form of every secret, longest first, so that a secret inside another is masked whole. */
  #forms: string[] = [];
  #secrets = new Set<string>();

  /** Learns a secret (surrounding whitespace ignored); a repeated or too short one is ignored. */
  add(secret: string | undefined): void {
    const s = secret?.trim();
    if (s === undefined || s.length < MIN_SECRET_LENGTH || this.#secrets.has(s)) return;
    this.#secrets.add(s);
    const forms = new Set([...this.#forms, ...formsOf(s)]);
    this.#forms = [...forms].sort((a, b) => b.length - a.length);
  }

  /** How many secrets are known. */
  get size(): number {
    return this.#secrets.size;
  }

  /** `text` with every known secret and every `Bearer <credential>` masked. */
  redact(text: string): string {
    let out = text;
    for (const form of this.#forms) if (out.includes(form)) out = out.replaceAll(form, REDACTED);
    if (!/bearer/i.test(out)) return out;
    return maskBearer(out, () => REDACTED);
  }

  /** A function form of {@link Redactor.redact}, for injection. */
  readonly apply = (text: string): string => this.redact(text);
}

/**
 * A JSON Web Token: three base64url parts, the first an encoded JSON object (`eyJ` is `{"`).
 * The signature may be empty (an unsigned token).
 */
const JWT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;

/**
 * Runs of the characters API keys and base64 are made of. `/` and `:` end a run, so that a path
 * or a URL is checked part by part.
 */
const KEY_LIKE_RUN = /[A-Za-z0-9_\-+=.~]{28,}/g;

/** Shannon entropy of a string, in bits per character. */
function entropyBits(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * True for a run that reads as a generated credential: at least 28 characters mixing letters
 * and digits, with at least 3.5 bits of entropy a character. Words joined by underscores have no
 * digits; dates and durations are short or repetitive; a 24-digit hexadecimal id is too short. A
 * random 32-digit hex key has about 3.8 bits a character, random base64 about 4.5 at this length.
 */
function isKeyLike(run: string): boolean {
  return /\d/.test(run) && /[A-Za-z]/.test(run) && entropyBits(run) >= 3.5;
}

/** What a masked credential-like value reads as: its length, never its characters. */
function maskedText(value: string): string {
  return `[masked: ${value.length} characters]`;
}

/**
 * Masks what looks like a credential in `text`, known or not: JWTs, `Bearer <credential>`, and
 * long high-entropy runs. For config errors and command output, where the value a user typed is
 * shown back: a token pasted into the wrong field (or whose file path is the token) must not be
 * printed, although the process has never read it as a token.
 */
export function maskCredentialLike(text: string): string {
  return maskBearer(text, maskedText)
    .replace(JWT, (jwt) => maskedText(jwt))
    .replace(KEY_LIKE_RUN, (run) => (isKeyLike(run) ? maskedText(run) : run));
}
