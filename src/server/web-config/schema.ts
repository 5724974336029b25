/**
 * The web config file (`--web.config.file`) in the exporter-toolkit format of Go exporters.
 * Unknown keys, and keys of that format this exporter does not implement, are errors that say so.
 */
import { z } from 'zod';
import { parseDuration } from '../../config/duration.ts';
import { TLS_VERSION_NAMES, TLS_VERSIONS } from '../../util/tls-versions.ts';

/** Client certificate policies, named as Go's `tls.ClientAuthType` (and exporter-toolkit). */
const CLIENT_AUTH_TYPES = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
] as const;
/** A client certificate policy. */
export type ClientAuthType = (typeof CLIENT_AUTH_TYPES)[number];

/** Allowed headers and values (empty: any): exporter-toolkit's list, so a file means the same everywhere. */
const ALLOWED_HEADERS: Readonly<Record<string, readonly string[]>> = {
  'Strict-Transport-Security': [],
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': [],
  'Content-Security-Policy': [],
};

// bcrypt in its modular crypt form: $2a$, $2b$ or $2y$, a two-digit cost, 53 characters of salt and hash.
const BCRYPT_RE = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

const unsupported = (hint: string) =>
  z.unknown().superRefine((_v, ctx) => {
    ctx.addIssue({ code: 'custom', message: `is not supported by station-exporter; ${hint}` });
  });

const tlsVersion = z.enum(TLS_VERSION_NAMES);

const tlsSchema = z
  .strictObject({
    cert_file: z.string().min(1, 'must not be empty'),
    key_file: z.string().min(1, 'must not be empty'),
    client_ca_file: z.string().min(1, 'must not be empty').optional(),
    client_auth_type: z.enum(CLIENT_AUTH_TYPES).default('NoClientCert'),
    min_version: tlsVersion.default('TLS12'),
    max_version: tlsVersion.default('TLS13'),
    cert: unsupported('use cert_file').optional(),
    key: unsupported('use key_file').optional(),
    client_ca: unsupported('use client_ca_file').optional(),
    cipher_suites: unsupported("Node's default cipher suites are used").optional(),
    curve_preferences: unsupported("Node's default curves are used").optional(),
    prefer_server_cipher_suites: unsupported("Node's default is used").optional(),
    client_allowed_sans: unsupported('restrict clients with client_ca_file').optional(),
  })
  .superRefine((tls, ctx) => {
    const order = Object.keys(TLS_VERSIONS);
    if (order.indexOf(tls.min_version) > order.indexOf(tls.max_version)) {
      ctx.addIssue({ code: 'custom', path: ['min_version'], message: 'must not be above max_version' });
    }
    const verifies =
      tls.client_auth_type === 'VerifyClientCertIfGiven' ||
      tls.client_auth_type === 'RequireAndVerifyClientCert';
    if (verifies && tls.client_ca_file === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['client_ca_file'],
        message: `is required with client_auth_type ${tls.client_auth_type}`,
      });
    }
    if (tls.client_ca_file !== undefined && tls.client_auth_type === 'NoClientCert') {
      ctx.addIssue({
        code: 'custom',
        path: ['client_auth_type'],
        message:
          'client_ca_file is set but client certificates are not requested; use RequireAndVerifyClientCert',
      });
    }
  });

const headersSchema = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  for (const [name, value] of Object.entries(headers)) {
    const allowed = ALLOWED_HEADERS[name];
    if (allowed === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `cannot be configured; allowed: ${Object.keys(ALLOWED_HEADERS).join(', ')}`,
      });
    } else if (allowed.length > 0 && !allowed.includes(value)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `must be one of ${allowed.join(', ')}` });
    } else if (/[\r\n]/.test(value)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'must be one line' });
    }
  }
});

const httpSchema = z.strictObject({
  // Accepted so that files written for Go exporters load; this server speaks HTTP/1.1 only.
  http2: z.boolean().optional(),
  headers: headersSchema.default({}),
});

/** `0`, `0s` or a Prometheus duration, in milliseconds; 0 turns the limiter off. */
const interval = z.string().transform((text, ctx) => {
  if (/^0+(ms|s|m|h)?$/.test(text)) return 0;
  const ms = parseDuration(text);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a duration such as 100ms or 1s, or 0 to turn it off' });
    return z.NEVER;
  }
  return ms;
});

const rateLimitSchema = z
  .strictObject({ interval, burst: z.int().min(0).default(0) })
  .superRefine((r, ctx) => {
    if (r.interval > 0 && r.burst < 1) {
      ctx.addIssue({ code: 'custom', path: ['burst'], message: 'must be at least 1 when interval is set' });
    }
  });

const usersSchema = z.record(z.string().min(1), z.string()).superRefine((users, ctx) => {
  for (const [user, hash] of Object.entries(users)) {
    if (user.includes(':'))
      ctx.addIssue({ code: 'custom', path: [user], message: 'user names cannot contain ":"' });
    // The message never repeats the value: a plain password put here by mistake stays out of the logs.
    if (!BCRYPT_RE.test(hash)) {
      ctx.addIssue({
        code: 'custom',
        path: [user],
        message: 'must be a bcrypt hash ($2y$10$...), e.g. from htpasswd -nBC 10',
      });
    }
  }
});

/** The schema of the whole file. An empty file is a valid file that changes nothing. */
export const webConfigSchema = z.strictObject({
  tls_server_config: tlsSchema.optional(),
  http_server_config: httpSchema.default({ headers: {} }),
  basic_auth_users: usersSchema.default({}),
  rate_limit: rateLimitSchema.optional(),
});

/** The validated file, before the certificate files are read. */
type WebConfigData = z.output<typeof webConfigSchema>;
/** The `tls_server_config` section, validated. */
export type TlsSection = NonNullable<WebConfigData['tls_server_config']>;
