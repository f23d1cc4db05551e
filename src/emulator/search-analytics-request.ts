// Validation of SearchAnalyticsQueryRequest. Enums are accepted in every
// spelling Google accepts (wire camelCase and discovery SCREAMING_SNAKE,
// case-insensitively); invalid combinations are refused, never silently changed.

import { RE2JS } from 're2js';
import { invalidParameter, type GoogleApiError } from './emulator-errors.js';
import { checkFields } from './emulator-routing.js';
import { isValidDate } from './pacific-time.js';
import type { SearchType } from './search-analytics-data.js';

export type Dimension = 'date' | 'hour' | 'query' | 'page' | 'country' | 'device' | 'searchAppearance';
export type FilterDimension = Exclude<Dimension, 'date' | 'hour'>;
export type Operator = 'equals' | 'notEquals' | 'contains' | 'notContains' | 'includingRegex' | 'excludingRegex';
export type Aggregation = 'auto' | 'byPage' | 'byProperty' | 'byNewsShowcasePanel';
export type DataState = 'final' | 'all' | 'hourly_all';

export interface Filter {
  dimension: FilterDimension;
  operator: Operator;
  expression: string;
  /** includingRegex / excludingRegex: whether a value matches (RE2). */
  regex?: (value: string) => boolean;
}

export interface AnalyticsQuery {
  startDate: string;
  endDate: string;
  dimensions: Dimension[];
  type: SearchType;
  filters: Filter[];
  aggregation: Aggregation;
  rowLimit: number;
  startRow: number;
  dataState: DataState;
}

const REQUEST_FIELDS = [
  'startDate',
  'endDate',
  'dimensions',
  'type',
  'searchType',
  'dimensionFilterGroups',
  'aggregationType',
  'rowLimit',
  'startRow',
  'dataState',
];

/** lower-case without underscores: SEARCH_APPEARANCE, searchAppearance and searchappearance are one value. */
const canon = (v: string) => v.toLowerCase().replace(/_/g, '');

function enumMap<T extends string>(values: readonly T[]): Map<string, T> {
  return new Map(values.map((v) => [canon(v), v]));
}

const DIMENSIONS = enumMap<Dimension>(['date', 'hour', 'query', 'page', 'country', 'device', 'searchAppearance']);
const FILTER_DIMENSIONS = enumMap<FilterDimension>(['query', 'page', 'country', 'device', 'searchAppearance']);
const OPERATORS = enumMap<Operator>(['equals', 'notEquals', 'contains', 'notContains', 'includingRegex', 'excludingRegex']);
const AGGREGATIONS = enumMap<Aggregation>(['auto', 'byPage', 'byProperty', 'byNewsShowcasePanel']);
const DATA_STATES = enumMap<DataState>(['final', 'all', 'hourly_all']);
const TYPES = enumMap<SearchType>(['web', 'image', 'video', 'news', 'discover', 'googleNews']);

const bad = (message: string, location?: string): GoogleApiError => invalidParameter('classic', message, location);

function enumValue<T>(map: Map<string, T>, value: unknown, field: string, fallback?: T): T {
  if (value === undefined || value === null || value === '') {
    if (fallback !== undefined) {
      return fallback;
    }
    throw bad(`Missing value for ${field}.`, field);
  }
  const found = typeof value === 'string' ? map.get(canon(value)) : undefined;
  if (found === undefined) {
    throw bad(`Invalid value for ${field}: ${JSON.stringify(value)}`, field);
  }
  return found;
}

/** proto3 int32 from JSON: a number or a numeric string; 0 is indistinguishable from unset. */
function int(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw bad(`Invalid value at '${field}' (TYPE_INT32), ${JSON.stringify(value)}`, field);
  }
  return n;
}

/**
 * Google runs includingRegex / excludingRegex with RE2: compiled here by re2js,
 * a port of RE2's parser and matcher, so what RE2 refuses (look-around,
 * back-references, repeats over 1000, bad syntax) is refused and the rest
 * matches as RE2 matches — a partial match, case-sensitive unless (?i).
 */
export function compileRe2(expression: string, field: string): (value: string) => boolean {
  try {
    const re = RE2JS.compile(expression);
    return (value) => re.matcher(value).find();
  } catch {
    throw bad(`Invalid regular expression: '${expression}'.`, field);
  }
}

function parseFilters(groups: unknown): Filter[] {
  if (groups === undefined || groups === null) {
    return [];
  }
  if (!Array.isArray(groups)) {
    throw bad('dimensionFilterGroups must be a list.', 'dimensionFilterGroups');
  }
  const filters: Filter[] = [];
  groups.forEach((group: unknown, gi) => {
    const where = `dimensionFilterGroups[${gi}]`;
    if (!group || typeof group !== 'object') {
      throw bad(`${where} must be an object.`, where);
    }
    const g = group as Record<string, unknown>;
    checkFields(g, ['groupType', 'filters'], 'classic', where);
    if (g.groupType !== undefined && (typeof g.groupType !== 'string' || canon(g.groupType) !== 'and')) {
      throw bad(`Unsupported groupType ${JSON.stringify(g.groupType)}: only "and" is supported.`, `${where}.groupType`);
    }
    const list = g.filters ?? [];
    if (!Array.isArray(list)) {
      throw bad(`${where}.filters must be a list.`, `${where}.filters`);
    }
    list.forEach((filter: unknown, fi) => {
      const at = `${where}.filters[${fi}]`;
      if (!filter || typeof filter !== 'object') {
        throw bad(`${at} must be an object.`, at);
      }
      const f = filter as Record<string, unknown>;
      checkFields(f, ['dimension', 'operator', 'expression'], 'classic', at);
      const dimension = enumValue(FILTER_DIMENSIONS, f.dimension, `${at}.dimension`);
      const operator = enumValue(OPERATORS, f.operator, `${at}.operator`, 'equals');
      if (typeof f.expression !== 'string') {
        throw bad(`${at}.expression is required.`, `${at}.expression`);
      }
      if (f.expression.length > 4096) {
        throw bad(`${at}.expression is longer than 4096 characters.`, `${at}.expression`);
      }
      const regex =
        operator === 'includingRegex' || operator === 'excludingRegex' ? compileRe2(f.expression, `${at}.expression`) : undefined;
      filters.push({ dimension, operator, expression: f.expression, regex });
    });
  });
  return filters;
}

export function parseAnalyticsQuery(body: Record<string, unknown>): AnalyticsQuery {
  checkFields(body, REQUEST_FIELDS, 'classic');
  for (const field of ['startDate', 'endDate'] as const) {
    const v = body[field];
    if (v === undefined || v === null || v === '') {
      throw bad(`Missing required field: ${field}.`, field);
    }
    if (typeof v !== 'string' || !isValidDate(v)) {
      throw bad(`Invalid ${field} ${JSON.stringify(v)}: expected YYYY-MM-DD.`, field);
    }
  }
  const startDate = body.startDate as string;
  const endDate = body.endDate as string;
  if (startDate > endDate) {
    throw bad('startDate must be earlier than or equal to endDate.', 'startDate');
  }

  const rawDims = body.dimensions ?? [];
  if (!Array.isArray(rawDims)) {
    throw bad('dimensions must be a list.', 'dimensions');
  }
  const dimensions: Dimension[] = [];
  for (const d of rawDims) {
    const dim = enumValue(DIMENSIONS, d, 'dimensions');
    if (dimensions.includes(dim)) {
      throw bad(`Cannot group by the same dimension twice: ${dim}.`, 'dimensions');
    }
    dimensions.push(dim);
  }

  const type = enumValue(TYPES, body.type ?? body.searchType, 'type', 'web');
  const dataState = enumValue(DATA_STATES, body.dataState, 'dataState', 'final');
  const aggregation = enumValue(AGGREGATIONS, body.aggregationType, 'aggregationType', 'auto');
  const filters = parseFilters(body.dimensionFilterGroups);

  const rowLimit = int(body.rowLimit, 'rowLimit') || 1000;
  if (rowLimit < 1 || rowLimit > 25000) {
    throw bad(`rowLimit must be between 1 and 25000, got ${rowLimit}.`, 'rowLimit');
  }
  const startRow = int(body.startRow, 'startRow') ?? 0;
  if (startRow < 0) {
    throw bad(`startRow must be non-negative, got ${startRow}.`, 'startRow');
  }

  if (dimensions.includes('hour') && dataState !== 'hourly_all') {
    throw bad('The hour dimension requires dataState HOURLY_ALL.', 'dimensions');
  }
  if (dimensions.includes('searchAppearance') && dimensions.length > 1) {
    throw bad('searchAppearance cannot be grouped with other dimensions; filter by it instead.', 'dimensions');
  }

  const pageInvolved = dimensions.includes('page') || filters.some((f) => f.dimension === 'page');
  const newsSurface = type === 'discover' || type === 'googleNews';
  if (aggregation === 'byProperty' && pageInvolved) {
    throw bad('aggregationType byProperty is not supported when grouping or filtering by page.', 'aggregationType');
  }
  if (aggregation === 'byProperty' && newsSurface) {
    throw bad(`aggregationType byProperty is not supported for type ${type}.`, 'aggregationType');
  }
  if (aggregation === 'byNewsShowcasePanel') {
    const showcase = filters.some(
      (f) => f.dimension === 'searchAppearance' && f.operator === 'equals' && canon(f.expression) === 'newsshowcase',
    );
    if (!newsSurface || !showcase || pageInvolved) {
      throw bad(
        'aggregationType byNewsShowcasePanel requires type discover or googleNews, a searchAppearance equals NEWS_SHOWCASE filter, and no page grouping or filtering.',
        'aggregationType',
      );
    }
  }
  return { startDate, endDate, dimensions, type, filters, aggregation, rowLimit, startRow, dataState };
}
