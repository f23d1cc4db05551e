import { isIP } from 'node:net';
import * as z from 'zod';
import { ConfigError } from './config-error.js';
import { quote } from './quote.js';
import type { SettingSource } from './setting-source.js';
import { SECRET_SETTINGS, type SettingName } from './settings-table.js';

// Each message is the line an operator sees: the variable and its valid forms.
const bool = (name: string, why = '') =>
  z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['true', 'false'], { error: `${name} must be true or false${why}` }))
    .optional();
const integer = (message: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, { error: message })
    .transform(Number)
    .pipe(z.number().min(min, { error: message }).max(max, { error: message }))
    .optional();
// A bearer token travels in an Authorization header, so it is printable ASCII without spaces.
const token = (name: string) =>
  z
    .string()
    .min(16, { error: `${name} must be at least 16 characters long; generate one with: openssl rand -hex 32` })
    .regex(/^[\x21-\x7e]+$/, { error: `${name} must be printable ASCII without spaces (clients send it in a header); generate one with: openssl rand -hex 32` })
    .optional();

const HOST = 'GSC_HTTP_HOST must be a host name or IP address such as 127.0.0.1, ::1 or 0.0.0.0';
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** Timeout bounds: under a second is no deadline for a real Google call, over ten minutes is no deadline at all. */
export const GOOGLE_TIMEOUT_MS = { min: 1000, max: 600_000, default: 30_000 } as const;
export const HTTP_MAX_SESSIONS = { min: 1, max: 100_000, default: 1000 } as const;
/** all_rows exports one principal keeps (PRODUCT §5b): a person who needs more reads theirs and asks again. */
export const EXPORT_MAX_PER_PRINCIPAL = { min: 1, max: 100, default: 10 } as const;
/** Bytes of stored rows per principal: 64 MiB holds several full 50 000-row exports (~5–15 MB each). */
export const EXPORT_MAX_BYTES_PER_PRINCIPAL = { min: 1_000_000, max: 999_999_999, default: 64 * 1024 * 1024 } as const;

/**
 * The scalar settings. Composite ones (credentials, property lists, tool
 * patterns, URLs, state, auth) are parsed beside this, in their own files.
 *
 * zod rather than class-validator, which the design card names for
 * configuration: class-validator costs 110–120 ms to import (it loads all of
 * validator.js and libphonenumber-js), more than a third of the 300 ms cold-start
 * budget, for a dozen scalar checks. zod is already loaded for the tool schemas.
 */
const ScalarSettings = z.object({
  GSC_TRANSPORT: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['stdio', 'http'], { error: 'GSC_TRANSPORT must be stdio or http' }))
    .optional(),
  GSC_HTTP_HOST: z
    .string()
    .transform((v) => v.replace(/^\[(.*)\]$/, '$1'))
    .refine((v) => isIP(v) !== 0 || (v.length <= 253 && v.replace(/\.$/, '').split('.').every((label) => LABEL.test(label))), { error: HOST })
    .optional(),
  GSC_HTTP_PORT: integer('GSC_HTTP_PORT must be an integer from 0 to 65535 (0 picks a free port)', 0, 65535),
  GSC_HTTP_MAX_SESSIONS: integer(
    `GSC_HTTP_MAX_SESSIONS must be an integer from ${HTTP_MAX_SESSIONS.min} to ${HTTP_MAX_SESSIONS.max} (default ${HTTP_MAX_SESSIONS.default})`,
    HTTP_MAX_SESSIONS.min,
    HTTP_MAX_SESSIONS.max,
  ),
  GSC_GOOGLE_TIMEOUT_MS: integer(
    `GSC_GOOGLE_TIMEOUT_MS must be a whole number of milliseconds from ${GOOGLE_TIMEOUT_MS.min} to ${GOOGLE_TIMEOUT_MS.max} (default ${GOOGLE_TIMEOUT_MS.default})`,
    GOOGLE_TIMEOUT_MS.min,
    GOOGLE_TIMEOUT_MS.max,
  ),
  GSC_EXPORT_MAX_PER_PRINCIPAL: integer(
    `GSC_EXPORT_MAX_PER_PRINCIPAL must be an integer from ${EXPORT_MAX_PER_PRINCIPAL.min} to ${EXPORT_MAX_PER_PRINCIPAL.max} (default ${EXPORT_MAX_PER_PRINCIPAL.default})`,
    EXPORT_MAX_PER_PRINCIPAL.min,
    EXPORT_MAX_PER_PRINCIPAL.max,
  ),
  GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL: integer(
    `GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL must be a whole number of bytes from ${EXPORT_MAX_BYTES_PER_PRINCIPAL.min} to ${EXPORT_MAX_BYTES_PER_PRINCIPAL.max} (default ${EXPORT_MAX_BYTES_PER_PRINCIPAL.default}, 64 MiB)`,
    EXPORT_MAX_BYTES_PER_PRINCIPAL.min,
    EXPORT_MAX_BYTES_PER_PRINCIPAL.max,
  ),
  GSC_HTTP_TOKEN: token('GSC_HTTP_TOKEN'),
  GSC_ADMIN_TOKEN: token('GSC_ADMIN_TOKEN'),
  GSC_APPROVAL_SECRET: z
    .string()
    .refine((v) => Buffer.byteLength(v, 'utf8') >= 32, { error: 'GSC_APPROVAL_SECRET must be at least 32 bytes long; generate one with: openssl rand -hex 32' })
    .optional(),
  GSC_READ_ONLY: bool('GSC_READ_ONLY'),
  ELICITATION: bool('ELICITATION', ' — anything else is refused so that a typo never leaves the approval dialog in a state you did not choose'),
} satisfies Partial<Record<SettingName, z.ZodType>>);

export type ScalarSettings = z.infer<typeof ScalarSettings>;

export function validateScalars(source: SettingSource): ScalarSettings {
  const plain: Record<string, string> = {};
  for (const name of Object.keys(ScalarSettings.shape) as SettingName[]) {
    const value = source.get(name);
    if (value !== undefined) plain[name] = value;
  }
  const parsed = ScalarSettings.safeParse(plain);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const variable = String(issue.path[0]);
  const shown = SECRET_SETTINGS.has(variable) ? '' : ` (got ${quote(plain[variable])})`;
  throw new ConfigError(`${issue.message}${shown}`);
}
