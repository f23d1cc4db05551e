import * as z from 'zod';
import { ConfigError } from './config-error.js';

// Variables whose values must never appear in a message.
export const SECRET_VARIABLES = new Set([
  'GSC_SERVICE_ACCOUNT_KEY',
  'GSC_CLIENT_SECRET',
  'GSC_REFRESH_TOKEN',
  'GSC_HTTP_TOKEN',
  'GSC_ADMIN_TOKEN',
  'GSC_APPROVAL_SECRET',
]);

// Each message is the line an operator sees: the variable and its valid forms.
const bool = (name: string, why = '') =>
  z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['true', 'false'], { error: `${name} must be true or false${why}` }))
    .optional();
const url = (name: string, example: string) =>
  z
    .string()
    .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), { error: `${name} must be an http(s) URL such as ${example}` })
    .optional();
const token = (name: string) =>
  z.string().min(16, { error: `${name} must be at least 16 characters long; generate one with: openssl rand -hex 32` }).optional();
const PORT = 'GSC_HTTP_PORT must be an integer from 0 to 65535 (0 picks a free port)';

/**
 * The scalar variables. Composite ones (credentials, property lists, tool
 * patterns) are parsed beside this, in their own files.
 *
 * zod rather than class-validator, which the design card names for
 * configuration: class-validator costs 110–120 ms to import (it loads all of
 * validator.js and libphonenumber-js), more than a third of the 300 ms cold-start
 * budget, for ten scalar checks. zod is already loaded for the tool schemas.
 */
const EnvironmentVariables = z.object({
  GSC_TRANSPORT: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['stdio', 'http'], { error: 'GSC_TRANSPORT must be stdio or http' }))
    .optional(),
  GSC_HTTP_HOST: z.string().max(253, { error: 'GSC_HTTP_HOST must be a host name or IP address such as 127.0.0.1' }).optional(),
  GSC_HTTP_PORT: z
    .string()
    .regex(/^\d+$/, { error: PORT })
    .transform(Number)
    .pipe(z.number().max(65535, { error: PORT }))
    .optional(),
  GSC_HTTP_TOKEN: token('GSC_HTTP_TOKEN'),
  GSC_ADMIN_TOKEN: token('GSC_ADMIN_TOKEN'),
  GSC_APPROVAL_SECRET: z
    .string()
    .refine((v) => Buffer.byteLength(v, 'utf8') >= 32, { error: 'GSC_APPROVAL_SECRET must be at least 32 bytes long; generate one with: openssl rand -hex 32' })
    .optional(),
  GSC_READ_ONLY: bool('GSC_READ_ONLY'),
  ELICITATION: bool('ELICITATION', ' — anything else is refused so that a typo never leaves the approval dialog in a state you did not choose'),
  GSC_API_ROOT_URL: url('GSC_API_ROOT_URL', 'http://127.0.0.1:4000'),
  GSC_OAUTH_TOKEN_URL: url('GSC_OAUTH_TOKEN_URL', 'http://127.0.0.1:4000/token'),
});

export type EnvironmentVariables = z.infer<typeof EnvironmentVariables>;

/** Reads a variable; empty or whitespace-only counts as unset. */
export function readVar(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function validateEnvironment(env: NodeJS.ProcessEnv): EnvironmentVariables {
  const plain: Record<string, string> = {};
  for (const name of Object.keys(EnvironmentVariables.shape)) {
    const value = readVar(env, name);
    if (value !== undefined) plain[name] = value;
  }
  const parsed = EnvironmentVariables.safeParse(plain);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const variable = String(issue.path[0]);
  const shown = SECRET_VARIABLES.has(variable) ? '' : ` (got "${plain[variable]}")`;
  throw new ConfigError(`${issue.message}${shown}`);
}
