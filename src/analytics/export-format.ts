// How an export's rows are kept in the state store and read back out: one
// stream entry per row as Google returned it, rendered on reading as CSV
// (RFC 4180) or NDJSON. Values are exactly Google's: numbers at full
// precision, text unaltered (a spreadsheet user should know that cells
// starting with = + - @ are queries, not formulas).

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

export function csvHeader(dimensions: readonly string[]): string {
  return `${columnsOf(dimensions).map(csvField).join(',')}\r\n`;
}

export function csvLine(row: AnalyticsRow): string {
  return `${[...row.keys.map(csvField), String(row.clicks), String(row.impressions), String(row.ctr), String(row.position)].join(',')}\r\n`;
}

export function ndjsonLine(dimensions: readonly string[], row: AnalyticsRow): string {
  const object: Record<string, string | number> = {};
  dimensions.forEach((d, i) => (object[d] = row.keys[i]));
  Object.assign(object, { clicks: row.clicks, impressions: row.impressions, ctr: row.ctr, position: row.position });
  return `${JSON.stringify(object)}\n`;
}
