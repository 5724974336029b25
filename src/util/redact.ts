/**
 * Keeps secrets out of everything the process writes: one redactor per process knows every token
 * it has seen and masks them in logs, error messages, command output and pages, so that a gateway
 * echoing the Authorization header cannot carry a token there.
 */

/** What a masked secret reads as: plain text that is safe in JSON, HTML and log lines. */
export const REDACTED = '[REDACTED]';

/** Shorter secrets are not masked: masking every "ab" would ruin the output, and protect nothing. */
export const MIN_SECRET_LENGTH = 4;

/**
 * `Bearer <credential>` in any text, whoever's token it is (an upstream echoing another client's
 * header); the credential runs up to a blank, quote, backslash or bracket (RFC 6750's token68).
 */
const BEARER = /\b(Bearer)(\s+)([^\s"'`\\<>()[\]{},;]+)/gi;

/** A plain short word after "Bearer" is prose ("Bearer token has expired"), not a credential. */
const PROSE_WORD = /^[A-Za-z]{1,12}$/;

/** `text` with every `Bearer <credential>` masked by `mask`; prose and masked ones stay. */
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

/** A JSON Web Token: three base64url parts (the last may be empty), the first JSON (`eyJ` is `{"`). */
const JWT = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;

/** Runs of the characters API keys and base64 are made of; `/` and `:` end one (paths, URLs). */
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
 * A run that reads as a generated credential: letters and digits, at least 3.5 bits of entropy a
 * character (a random hex key has about 3.8, base64 about 4.5; joined words have no digits).
 */
function isKeyLike(run: string): boolean {
  return /\d/.test(run) && /[A-Za-z]/.test(run) && entropyBits(run) >= 3.5;
}

/** What a masked credential-like value reads as: its length, never its characters. */
function maskedText(value: string): string {
  return `[masked: ${value.length} characters]`;
}

/**
 * Masks what looks like a credential, known or not (JWTs, `Bearer <credential>`, long high-entropy
 * runs), where a typed value is shown back: a token pasted into the wrong field must not print.
 */
export function maskCredentialLike(text: string): string {
  return maskBearer(text, maskedText)
    .replace(JWT, (jwt) => maskedText(jwt))
    .replace(KEY_LIKE_RUN, (run) => (isKeyLike(run) ? maskedText(run) : run));
}
