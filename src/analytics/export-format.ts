// How an export's rows are kept in the state store and read back out: one
// stream entry per row as Google returned it, rendered on reading as CSV
// (RFC 4180) or NDJSON. NDJSON is exactly Google's: numbers at full precision,
// text unaltered. CSV is for spreadsheets, which run a cell that starts with
// = + - @ (or a tab or carriage return) as a formula — and query text is typed
// by the public — so such a text cell is written with a leading apostrophe
// (OWASP's CSV-injection advice), which a spreadsheet shows as text.

import type { AnalyticsRow } from './analytics.service.js';

export const EXPORT_URI_PREFIX = 'gsc://exports/';
export const FORMATS = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;
export type ExportFormat = keyof typeof FORMATS;

export function exportUri(id: string, format: ExportFormat): string {
  return `${EXPORT_URI_PREFIX}${id}.${format}`;
}

/** "<id>.csv" → { id, format }; anything else → undefined. */
export function parseExportFile(file: string): { id: string; format: ExportFormat } | undefined {
  const match = /^([0-9a-f]{24})\.(csv|ndjson)$/.exec(file);
  return match ? { id: match[1], format: match[2] as ExportFormat } : undefined;
}

export function encodeRow(row: AnalyticsRow): string {
  return JSON.stringify([row.keys, row.clicks, row.impressions, row.ctr, row.position]);
}

export function decodeRow(value: string): AnalyticsRow {
  const [keys, clicks, impressions, ctr, position] = JSON.parse(value) as [string[], number, number, number, number];
  return { keys, clicks, impressions, ctr, position };
}

export function columnsOf(dimensions: readonly string[]): string[] {
  return [...dimensions, 'clicks', 'impressions', 'ctr', 'position'];
}

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The first characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell (a query, page, country…): never a live formula once a spreadsheet opens the file; such a cell is also quoted, as OWASP advises. */
function csvText(value: string): string {
  return FORMULA_START.test(value) ? `"'${value.replace(/"/g, '""')}"` : csvField(value);
}

/** What the export resource says about the two formats (its description, the README). */
export const FORMATS_NOTE =
  "CSV is for spreadsheets: a text cell that starts with =, +, -, @, a tab or a carriage return is written with a leading apostrophe (') so that it is shown as text, never run as a formula. NDJSON carries Google's values exactly.";

export function csvHeader(dimensions: readonly string[]): string {
  return `${columnsOf(dimensions).map(csvField).join(',')}\r\n`;
}

export function csvLine(row: AnalyticsRow): string {
  return `${[...row.keys.map(csvText), String(row.clicks), String(row.impressions), String(row.ctr), String(row.position)].join(',')}\r\n`;
}

export function ndjsonLine(dimensions: readonly string[], row: AnalyticsRow): string {
  const object: Record<string, string | number> = {};
  dimensions.forEach((d, i) => (object[d] = row.keys[i]));
  Object.assign(object, { clicks: row.clicks, impressions: row.impressions, ctr: row.ctr, position: row.position });
  return `${JSON.stringify(object)}\n`;
}
