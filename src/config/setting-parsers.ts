import { isIP } from 'node:net';
import * as z from 'zod';

// How a scalar setting's text becomes its value: the zod schemas the
// configuration table's rows carry (settings-table.ts). Each message is the
// line an operator sees: the variable and its valid forms.
//
// zod rather than class-validator, which the design card names for
// configuration: class-validator costs 110–120 ms to import (it loads all of
// validator.js and libphonenumber-js), more than a third of the 300 ms
// cold-start budget, for a dozen scalar checks. zod is already loaded for the
// tool schemas.

export const bool = (name: string, why = '') =>
  z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['true', 'false'], { error: `${name} must be true or false${why}` }));

export const integer = (message: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, { error: message })
    .transform(Number)
    .pipe(z.number().min(min, { error: message }).max(max, { error: message }));

// A bearer token travels in an Authorization header, so it is printable ASCII without spaces.
export const token = (name: string) =>
  z
    .string()
    .min(16, { error: `${name} must be at least 16 characters long; generate one with: openssl rand -hex 32` })
    .regex(/^[\x21-\x7e]+$/, {
      error: `${name} must be printable ASCII without spaces (clients send it in a header); generate one with: openssl rand -hex 32`,
    });

export const choice = <const T extends readonly [string, ...string[]]>(name: string, values: T) =>
  z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(values, { error: `${name} must be ${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}` }));

const HOST = 'GSC_HTTP_HOST must be a host name or IP address such as 127.0.0.1, ::1 or 0.0.0.0';
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

export const host = () =>
  z
    .string()
    .transform((v) => v.replace(/^\[(.*)\]$/, '$1'))
    .refine(
      (v) =>
        isIP(v) !== 0 ||
        (v.length <= 253 &&
          v
            .replace(/\.$/, '')
            .split('.')
            .every((label) => LABEL.test(label))),
      { error: HOST },
    );

export const minBytes = (name: string, bytes: number) =>
  z.string().refine((v) => Buffer.byteLength(v, 'utf8') >= bytes, {
    error: `${name} must be at least ${bytes} bytes long; generate one with: openssl rand -hex ${bytes}`,
  });

/** Timeout bounds: under a second is no deadline for a real Google call, over ten minutes is no deadline at all. */
export const GOOGLE_TIMEOUT_MS = { min: 1000, max: 600_000, default: 30_000 } as const;
export const HTTP_MAX_SESSIONS = { min: 1, max: 100_000, default: 1000 } as const;
/** all_rows exports one principal keeps (PRODUCT §5b): a person who needs more reads theirs and asks again. */
export const EXPORT_MAX_PER_PRINCIPAL = { min: 1, max: 100, default: 10 } as const;
/** Bytes of stored rows per principal: 64 MiB holds several full 50 000-row exports (~5–15 MB each). */
export const EXPORT_MAX_BYTES_PER_PRINCIPAL = { min: 1_000_000, max: 999_999_999, default: 64 * 1024 * 1024 } as const;
