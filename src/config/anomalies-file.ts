import { readFileSync, statSync } from 'node:fs';
import { hasInvisible, inert } from '../common/inert-text.js';
import { ConfigError } from './config-error.js';
import type { AnomalyCatalog, KnownAnomaly, Metric } from './config-types.js';

export type { AnomalyCatalog, KnownAnomaly, Metric } from './config-types.js';
import { quote } from './quote.js';
import type { SettingSource } from './setting-source.js';
import { assertPath } from './values.js';

// The list of Google's announced data anomalies (PRODUCT.md §5e): shipped with
// the package (src/analytics/known-anomalies.json) and replaceable without a
// code change by GSC_ANOMALIES_FILE. Both are read by parseAnomalies, as
// strictly as the policy file: an operator's mistake stops start-up with one
// line naming the file, the entry and the valid forms.
//
// { "version": 3, "updated": "2026-12-05", "anomalies": [ {
//     "id": "impressions-logging-error-2025", "start_date": "2025-05-13",
//     "end_date": "2026-04-27", "end_approximate": true,
//     "affected": ["impressions", "ctr", "position"], "not_affected": ["clicks"],
//     "search_types": ["web"]?, "backfilled": false?,
//     "source": "https://…", "more_sources": ["https://…"]?, "sentence": "…" } ] }

export const METRICS = ['clicks', 'impressions', 'ctr', 'position'] as const satisfies readonly Metric[];
export const ANOMALY_SEARCH_TYPES = ['web', 'image', 'video', 'news', 'discover', 'googleNews'] as const;

/** A list of announcements is small; anything this large is not one. */
export const ANOMALIES_FILE_MAX_BYTES = 256 * 1024;
const MAX_ENTRIES = 500;
const SENTENCE_MAX = 400;
const ENTRY_KEYS = [
  'id',
  'start_date',
  'end_date',
  'end_approximate',
  'affected',
  'not_affected',
  'search_types',
  'backfilled',
  'source',
  'more_sources',
  'sentence',
] as const;
const TOP_KEYS = ['version', 'updated', 'anomalies'] as const;
const ID = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const EXAMPLE =
  '{"version": 1, "updated": "2026-12-05", "anomalies": [{"id": "…", "start_date": "YYYY-MM-DD", "end_date": "YYYY-MM-DD", "affected": ["impressions"], "source": "https://…", "sentence": "…"}]}';

/**
 * Validates an anomaly list; `json` is the file's text or an already-parsed
 * object. Throws ConfigError with one line naming `source` and the entry.
 */
export function parseAnomalies(json: unknown, source: string): AnomalyCatalog {
  let document = json;
  if (typeof json === 'string') {
    try {
      document = JSON.parse(json);
    } catch (error) {
      throw new ConfigError(`${source} is not valid JSON (${inert((error as Error).message, 160)}); write an object such as ${EXAMPLE}`);
    }
  }
  if (!isPlainObject(document)) {
    throw new ConfigError(`${source} must be a JSON object such as ${EXAMPLE}`);
  }
  const unknown = Object.keys(document).find((key) => !(TOP_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    throw new ConfigError(`${source} has the unknown key ${quote(unknown)}; the keys are ${TOP_KEYS.join(', ')}`);
  }
  const { version, updated, anomalies } = document;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new ConfigError(`${source} "version" must be a whole number from 1, raised with every change to the list`);
  }
  if (typeof updated !== 'string' || !isCalendarDate(updated)) {
    throw new ConfigError(`${source} "updated" must be the date the list was last checked against Google's announcements, YYYY-MM-DD`);
  }
  if (!Array.isArray(anomalies)) {
    throw new ConfigError(`${source} "anomalies" must be a list of entries (it may be empty)`);
  }
  if (anomalies.length > MAX_ENTRIES) {
    throw new ConfigError(`${source} has ${anomalies.length} anomalies; at most ${MAX_ENTRIES}`);
  }
  const entries = anomalies.map((raw, index) => parseEntry(raw, index + 1, source));
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.id)) {
      throw new ConfigError(`${source} names the anomaly ${quote(entry.id)} twice; each id is one announcement`);
    }
    seen.add(entry.id);
  }
  return Object.freeze({ source, version, updated, anomalies: Object.freeze(entries) });
}

function parseEntry(raw: unknown, number: number, source: string): KnownAnomaly {
  const label = isPlainObject(raw) && typeof raw.id === 'string' && ID.test(raw.id) ? `anomaly ${number} (${raw.id})` : `anomaly ${number}`;
  const fail: (what: string) => never = (what) => {
    throw new ConfigError(`${source} ${label}: ${what}`);
  };
  if (!isPlainObject(raw)) {
    return fail('an entry must be an object');
  }
  const unknown = Object.keys(raw).find((key) => !(ENTRY_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    fail(`unknown key ${quote(unknown)}; the keys are ${ENTRY_KEYS.join(', ')}`);
  }
  if (typeof raw.id !== 'string' || !ID.test(raw.id)) {
    fail('"id" must be lower-case letters, digits and hyphens (at most 64), e.g. "impressions-logging-error-2025"');
  }
  const date = (key: 'start_date' | 'end_date') => {
    const value = raw[key];
    if (typeof value !== 'string' || !isCalendarDate(value)) {
      fail(`"${key}" must be a Pacific date, YYYY-MM-DD${key === 'end_date' ? ' (leave it out while Google has announced no fix)' : ''}`);
    }
    return value;
  };
  const start = date('start_date');
  const end = raw.end_date === undefined ? undefined : date('end_date');
  if (end !== undefined && end < start) {
    fail(`"end_date" ${end} is before "start_date" ${start}; both days are inclusive`);
  }
  const flag = (key: 'end_approximate' | 'backfilled') => {
    if (raw[key] !== undefined && typeof raw[key] !== 'boolean') {
      fail(`"${key}" must be true or false`);
    }
    return raw[key];
  };
  const endApproximate = flag('end_approximate') ?? false;
  if (endApproximate && end === undefined) {
    fail('"end_approximate" needs an "end_date"');
  }
  const backfilled = flag('backfilled');
  const metrics = (key: 'affected' | 'not_affected', required: boolean) => {
    const value = raw[key];
    if (value === undefined && !required) {
      return [];
    }
    if (!Array.isArray(value) || (required && value.length === 0) || value.some((m) => !(METRICS as readonly unknown[]).includes(m))) {
      fail(`"${key}" must be a ${required ? 'non-empty ' : ''}list of ${METRICS.join(', ')}`);
    }
    if (new Set(value).size !== value.length) {
      fail(`"${key}" names a metric twice`);
    }
    return METRICS.filter((m) => (value as unknown[]).includes(m));
  };
  const affected = metrics('affected', true);
  const notAffected = metrics('not_affected', false);
  const both = affected.find((m) => notAffected.includes(m));
  if (both) {
    fail(`${both} is both affected and not affected`);
  }
  let searchTypes: string[] | undefined;
  if (raw.search_types !== undefined) {
    const value = raw.search_types;
    if (
      !Array.isArray(value) ||
      value.length === 0 ||
      value.some((t) => !(ANOMALY_SEARCH_TYPES as readonly unknown[]).includes(t)) ||
      new Set(value).size !== value.length
    ) {
      fail(`"search_types" must be a non-empty list of ${ANOMALY_SEARCH_TYPES.join(', ')} without repeats (leave it out for all)`);
    }
    searchTypes = value as string[];
  }
  const url = (value: unknown, key: string) => {
    if (typeof value !== 'string' || value.length > 2048 || hasInvisible(value) || !/^https:\/\/[^\s/]+\.[^\s/]+(\/\S*)?$/.test(value)) {
      fail(`${key} must be an https:// link to the announcement or a report of it`);
    }
    return value;
  };
  const primary = url(raw.source, '"source"');
  let more: string[] | undefined;
  if (raw.more_sources !== undefined) {
    if (!Array.isArray(raw.more_sources)) {
      fail('"more_sources" must be a list of https:// links');
    }
    more = (raw.more_sources as unknown[]).map((v, i) => url(v, `"more_sources"[${i}]`));
  }
  const sentence = raw.sentence;
  if (typeof sentence !== 'string' || !sentence.trim() || sentence.length > SENTENCE_MAX || hasInvisible(sentence)) {
    fail(`"sentence" must be one line of plain text, at most ${SENTENCE_MAX} characters, saying what happened`);
  }
  return Object.freeze({
    id: raw.id,
    start_date: start,
    ...(end !== undefined ? { end_date: end } : {}),
    end_approximate: endApproximate,
    affected,
    not_affected: notAffected,
    ...(searchTypes ? { search_types: searchTypes } : {}),
    ...(backfilled !== undefined ? { backfilled } : {}),
    source: primary,
    ...(more ? { more_sources: more } : {}),
    sentence: sentence.trim(),
  });
}

/** GSC_ANOMALIES_FILE: its text, or undefined when unset (the built-in list applies). */
export function readAnomaliesFile(source: SettingSource): string | undefined {
  const path = source.get('GSC_ANOMALIES_FILE');
  if (!path) {
    return undefined;
  }
  assertPath('GSC_ANOMALIES_FILE', path);
  try {
    const stat = statSync(path);
    if (!stat.isFile()) {
      throw new ConfigError(`GSC_ANOMALIES_FILE points at ${quote(path)}, which is not a file; point it at a JSON list of anomalies`);
    }
    if (stat.size > ANOMALIES_FILE_MAX_BYTES) {
      throw new ConfigError(
        `GSC_ANOMALIES_FILE ${quote(path)} is ${stat.size} bytes; a list of anomalies is at most ${ANOMALIES_FILE_MAX_BYTES} bytes of JSON`,
      );
    }
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) {
      throw error;
    }
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`GSC_ANOMALIES_FILE points at ${quote(path)}, which cannot be read (${code}); fix the path or unset it`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return !!m && new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).toISOString().slice(0, 10) === value;
}
