import type * as z from 'zod';
import { ConfigError } from './config-error.js';
import { quote } from './quote.js';
import type { SettingSource } from './setting-source.js';
import { type SettingName, type SettingSpec, SETTINGS } from './settings-table.js';

export { EXPORT_MAX_BYTES_PER_PRINCIPAL, EXPORT_MAX_PER_PRINCIPAL, GOOGLE_TIMEOUT_MS, HTTP_MAX_SESSIONS } from './setting-parsers.js';

/** The rows whose `parse` is a schema: the scalar settings. Composite ones are parsed beside this, in their own files. */
type ScalarRow = Extract<(typeof SETTINGS)[number], { parse: z.ZodType }>;

/** Each scalar setting's parsed value, by name; absent when unset. */
export type ScalarSettings = { readonly [R in ScalarRow as R['name']]?: z.output<R['parse']> };

/** Parses every scalar setting by its row's schema; the first bad one is the one line the operator sees. */
export function validateScalars(source: SettingSource): ScalarSettings {
  const parsed: Record<string, unknown> = {};
  for (const spec of SETTINGS as readonly SettingSpec[]) {
    if (typeof spec.parse === 'string') {
      continue;
    }
    const value = source.get(spec.name as SettingName);
    if (value === undefined) {
      continue;
    }
    const result = spec.parse.safeParse(value);
    if (!result.success) {
      const shown = spec.secret ? '' : ` (got ${quote(value)})`;
      throw new ConfigError(`${result.error.issues[0].message}${shown}`);
    }
    parsed[spec.name] = result.data;
  }
  return parsed;
}
