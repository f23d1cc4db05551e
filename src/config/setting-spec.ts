import type * as z from 'zod';
import type { Config } from './config-types.js';

// The shape of one row of the settings table (settings-table.ts), apart from
// the rows: connected-setting-rows.ts checks its rows against it without
// importing the table it is spread into.

export type SettingKind =
  /** free text */
  | 'text'
  /** a file or folder path */
  | 'path'
  /** an http(s) URL */
  | 'url'
  /** comma-separated entries; an array in a settings object */
  | 'list'
  /** exactly true or false */
  | 'boolean'
  /** a decimal integer */
  | 'integer'
  /** a secret string */
  | 'secret'
  /** the service account key: a secret string, or the parsed key object in a settings object */
  | 'key';

/** Composite settings: parsed together with their neighbours by this function of src/config/. */
export type ParsedBy =
  | 'resolveCredential'
  | 'parseProperty'
  | 'parseSiteList'
  | 'parseToolPatterns'
  | 'parseOrigins'
  | 'parseAuth'
  | 'parsePublicUrl'
  | 'parseState'
  | 'readPolicyFile'
  | 'readAnomaliesFile'
  | 'assertAppendable'
  | 'parseHttpUrl'
  | 'connectedClient'
  | 'parseConnected'
  | 'parseTelemetry';

/**
 * How /admin/config shows a setting: `credential` folds it into the credential
 * summary (kind, principal, origin, subject) the Google credential service
 * gives; otherwise a dotted path in the /admin/config object and the value put
 * there (undefined leaves it out). Never a secret's value.
 */
export type Shown = 'credential' | { readonly at: string; readonly value: (config: Config) => unknown };

export interface SettingSpec {
  readonly name: string;
  readonly kind: SettingKind;
  /** Never quoted in a message, removed from process.env once read. */
  readonly secret?: boolean;
  /** Removed from process.env once read although not secret itself. */
  readonly scrub?: boolean;
  /** One line, for `--help` and the README's table. */
  readonly help: string;
  /** More, for the README's table only. */
  readonly more?: string;
  /** A scalar setting's zod schema (its message is the operator's one line), or the function that parses a composite one. */
  readonly parse: z.ZodType<unknown, string> | ParsedBy;
  readonly show: Shown;
}
