// Some MCP clients hand the model only structuredContent. So every fact the
// text of a query_search_analytics result states must be in its structured
// half too. This spec calls the tool through a real client in every result
// shape it has (plain, paged, cut to the budget, no data, hourly, compare in
// each mode, exports complete, capped, partial and empty, side queries that
// failed) and checks the text against the structured half mechanically:
//
// - every date, timestamp, URL, gsc:// URI, e-mail address and quoted string
//   of the text is a structured value;
// - every number of the text is a structured number as the text formats
//   numbers (12.34% is a share 0.1234 or a value 12.34; +40 a delta 40; 4.8 a
//   position), except Google's documented limits named in fixed phrases;
// - every table row names a structured row (same keys) and its markers ("only
//   in current", …) are that row's only_in / not_listed_in;
// - every statement of the data-truth block and the notes is a structured field.

import { beforeAll, describe, expect, it } from '@jest/globals';
import { Clock } from '../src/common/clock.js';
import { StandingClock } from './support/manual-clock.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { text, type ToolResult } from './support/clients.js';
import { useStack } from './support/stack.js';

const OWNED = SEED_PROPERTIES.owned;
const LARGE = SEED_PROPERTIES.large;
const TOOL = 'query_search_analytics';
// 12:00 PDT on 20 March 2026: Google is still collecting 03-18 onwards.
const NOW = new Date('2026-03-20T19:00:00Z');
const OLD = { start_date: '2026-02-01', end_date: '2026-02-14' };

const { google, client, legacy } = useStack({ google: { now: () => NOW }, overrides: [[Clock, new StandingClock(() => NOW)]] });

interface Case {
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** Runs before the call (after the emulator's reset). */
  readonly before?: () => void;
  readonly legacy?: boolean;
}

const CASES: Case[] = [
  { name: 'whole property, default period', args: {} },
  { name: 'by date, fresh data', args: { period: 'last7days', dimensions: ['date'], data_state: 'all' } },
  { name: 'by query, every row: anonymised share measured', args: { ...OLD, dimensions: ['query'], row_limit: 25000 } },
  { name: 'by query, a top slice with a next page', args: { period: 'last28days', dimensions: ['query'], row_limit: 5 } },
  { name: 'by query and page: rows by page, total by page', args: { ...OLD, dimensions: ['query', 'page'], row_limit: 25000 } },
  { name: 'by page', args: { ...OLD, dimensions: ['page'] } },
  {
    name: 'filtered, by device',
    args: {
      ...OLD,
      dimensions: ['device'],
      filters: [
        { dimension: 'query', operator: 'contains', expression: 'widget' },
        { dimension: 'country', expression: 'usa' },
      ],
    },
  },
  { name: 'a later page', args: { ...OLD, dimensions: ['query'], row_limit: 5, start_row: 5 } },
  { name: 'hourly', args: { period: 'today', dimensions: ['hour'], data_state: 'hourly_all' } },
  { name: 'hourly, no dates: yesterday and today', args: { dimensions: ['hour', 'device'] } },
  {
    name: 'compare by hour, incomplete hours left out',
    args: { period: 'today', dimensions: ['hour'], compare: { start_date: '2026-03-13', end_date: '2026-03-13' } },
  },
  {
    name: 'branded split by query',
    args: { ...OLD, dimensions: ['query'], brand_terms: ['example', 'widget ?pro'], brand: 'branded' },
  },
  { name: 'non-branded split, whole property', args: { ...OLD, brand_terms: ['example'], brand: 'non_branded' } },
  { name: 'compare by page: page-row sums', args: { ...OLD, dimensions: ['page'], compare: 'previous_period' } },
  { name: 'no data', args: { period: 'yesterday' } },
  { name: 'today, no data_state: all, saying so', args: { period: 'today', dimensions: ['query'] } },
  {
    name: 'the last rows Google serves: the cap',
    args: {
      site_url: LARGE,
      start_date: '2026-02-15',
      end_date: '2026-03-14',
      dimensions: ['date', 'query'],
      row_limit: 25000,
      start_row: 25000,
    },
  },
  { name: 'cut to 100 kB', args: { period: 'last3months', dimensions: ['date', 'query', 'page', 'country', 'device'], row_limit: 25000 } },
  { name: 'side queries failed', args: { period: 'last7days', dimensions: ['query'] }, before: () => failSideQueries() },
  {
    name: 'compare previous_period by query and country',
    args: { period: 'last7days', dimensions: ['query', 'country'], compare: 'previous_period', row_limit: 60 },
  },
  {
    name: 'compare previous_year by date across DST',
    args: { start_date: '2026-03-02', end_date: '2026-03-15', dimensions: ['date'], compare: 'previous_year' },
    legacy: true,
  },
  { name: 'compare whole property, own window', args: { ...OLD, compare: { start_date: '2026-01-18', end_date: '2026-01-31' } } },
  { name: 'compare past the retention, whole property', args: { period: 'last16months', compare: 'previous_year' } },
  {
    name: 'compare with cut lists (more than 25 000 rows a window)',
    args: {
      site_url: LARGE,
      start_date: '2026-02-15',
      end_date: '2026-03-14',
      dimensions: ['query'],
      compare: 'previous_period',
      row_limit: 30,
    },
  },
  {
    name: 'export past the cap',
    args: { site_url: LARGE, start_date: '2026-02-15', end_date: '2026-03-14', dimensions: ['date', 'query'], all_rows: true },
  },
  { name: 'export by query under the cap', args: { ...OLD, dimensions: ['query'], all_rows: true } },
  { name: 'export with nothing to store', args: { period: 'today', data_state: 'final', all_rows: true } },
  {
    name: 'export cut short by Google',
    args: { site_url: LARGE, start_date: '2026-02-15', end_date: '2026-03-14', dimensions: ['date', 'query'], all_rows: true },
    before: () => failSecondPage(),
  },
];

function failSideQueries(): void {
  google.emulator.injectFault({ route: 'searchanalytics.query', status: 403, bodyMatches: { dimensions: [], rowLimit: 1 } });
  google.emulator.injectFault({
    route: 'searchanalytics.query',
    status: 403,
    bodyMatches: { dimensions: ['date'], dataState: 'all', rowLimit: 7 },
  });
}

function failSecondPage(): void {
  google.emulator.injectFault({
    route: 'searchanalytics.query',
    status: 429,
    message: 'Search Analytics load quota exceeded (long-term).',
    bodyMatches: { startRow: 25000 },
  });
}

// Google's documented limits and the server's own constants, as the text names them in fixed phrases.
const LIMIT_PHRASES = [
  /under 100 kB/g,
  /~2–3 days/g,
  /~16 months/g,
  /52 weeks/g,
  /\(24 hours\)/g,
  /over 7 days ago/g,
  /of up to 25000/g,
  /returns at most per request/g,
  /a week at a time/g,
  /50000-row cap/g,
  /at most 50000 rows/g,
];

interface Atoms {
  numbers: number[];
  strings: string[];
}

function atomsOf(value: unknown, out: Atoms = { numbers: [], strings: [] }): Atoms {
  if (typeof value === 'number') {
    out.numbers.push(value);
  } else if (typeof value === 'string') {
    out.strings.push(value);
  } else if (Array.isArray(value)) {
    value.forEach((v) => atomsOf(v, out));
  } else if (value && typeof value === 'object') {
    Object.values(value).forEach((v) => atomsOf(v, out));
  }
  return out;
}

/** A number of the text, e.g. "12.34%", "+40", "-0.3", "4.8", "1018", against the structured numbers. */
function numberIsStructured(token: string, numbers: number[]): boolean {
  const percent = token.endsWith('%');
  const body = percent ? token.slice(0, -1) : token;
  const digits = (body.split('.')[1] ?? '').length;
  const plus = body.startsWith('+');
  const format = (n: number) => {
    const t = n.toFixed(digits);
    return plus && n >= 0 ? `+${t}` : t;
  };
  return numbers.some((n) =>
    [n, ...(percent ? [n * 100] : [])].some(
      (c) => format(c) === body || (!plus && format(Math.abs(c)) === body.replace(/^-/, '') && body.startsWith('-') === c < 0),
    ),
  );
}

interface Problem {
  readonly what: string;
  readonly value: string;
}

function check(result: ToolResult): Problem[] {
  const said = text(result);
  const structured = result.structuredContent!;
  const { numbers, strings } = atomsOf(structured);
  const problems: Problem[] = [];
  // A value is carried when it is a structured string or part of one (a sentence Google's error became).
  const has = (s: string) => strings.some((v) => v === s || v.includes(s));
  let rest = said;
  const take = (re: RegExp, what: string, ok: (m: RegExpExecArray) => boolean) => {
    for (const m of rest.matchAll(new RegExp(re.source, 'g'))) {
      if (!ok(m)) {
        problems.push({ what, value: m[0] });
      }
    }
    rest = rest.replace(new RegExp(re.source, 'g'), ' ');
  };

  // Table rows first: their cells are checked as rows.
  const rows = structured.rows as any[];
  const lines = said.split('\n');
  let header: string[] | undefined;
  for (const line of lines) {
    if (!line.startsWith('|')) {
      header = undefined;
      continue;
    }
    if (/^\|(---\|)+$/.test(line)) {
      continue;
    }
    const cells = line
      .slice(2, -2)
      .split(/(?<!\\) \| /)
      .map((c) => c.replace(/\\\|/g, '|'));
    if (!header) {
      header = cells;
      continue;
    }
    const keyCount = header.indexOf('clicks');
    const keys = cells.slice(0, keyCount);
    const row = rows.find((r) => JSON.stringify(r.keys) === JSON.stringify(keys));
    if (!row) {
      problems.push({ what: 'table row without a structured row', value: line });
    }
    for (const cell of cells.slice(keyCount)) {
      if (cell === '—') {
        continue;
      }
      const marker = /^(only in current|only in previous|not in the previous rows|not in the current rows)(?:, had (.+))?$/.exec(cell);
      if (marker) {
        const expected = {
          'only in current': ['only_in', 'current'],
          'only in previous': ['only_in', 'previous'],
          'not in the previous rows': ['not_listed_in', 'previous'],
          'not in the current rows': ['not_listed_in', 'current'],
        }[marker[1]]!;
        if (row && row[expected[0]] !== expected[1]) {
          problems.push({ what: 'marker not in the structured row', value: `${line} (${cell})` });
        }
        if (marker[2] && !numberIsStructured(marker[2], numbers)) {
          problems.push({ what: 'number', value: marker[2] });
        }
        continue;
      }
      const value = cell.replace(/^had /, '');
      if (!numberIsStructured(value, numbers)) {
        problems.push({ what: 'table number', value: `${cell} in ${line}` });
      }
    }
  }
  rest = lines.filter((l) => !l.startsWith('|')).join('\n');
  // Whole sentences the structured half carries verbatim (why a side query failed, why an export stopped).
  for (const sentence of strings.filter((v) => v.length > 40)) {
    rest = rest.split(sentence).join(' ');
  }

  for (const phrase of LIMIT_PHRASES) {
    rest = rest.replace(phrase, ' ');
  }
  take(/gsc:\/\/exports\/[0-9a-f]{24}\.(csv|ndjson)/, 'export URI', (m) => has(m[0]));
  take(/https?:\/\/[^\s,()]*[^\s,().:]/, 'URL', (m) => has(m[0]));
  take(/[\w.+-]+@[\w-]+(\.[\w-]+)+/, 'e-mail', (m) => has(m[0]));
  take(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/, 'timestamp', (m) => has(m[0]));
  take(/[+-]\d{2}:\d{2} P[DS]T/, 'UTC offset', (m) => has(m[0]));
  take(/\d{4}-\d{2}-\d{2}/, 'date', (m) => has(m[0]));
  take(/"([^"]*)"/, 'quoted', (m) => has(m[1]));
  take(/header ([\w,]+)/, 'columns', (m) => m[1].split(',').every(has));
  take(/\(local\)/, 'principal', () => has('local'));
  take(/rows (\d+)–(\d+)/, 'row range', (m) => numbers.includes(Number(m[1]) - 1) && numbers.includes(Number(m[2])));
  take(/(?<![\w.-])[+-]?\d+(\.\d+)?%?(?![\w])/, 'number', (m) => numberIsStructured(m[0], numbers));

  // Statements, each with the structured field that carries it.
  const truth = structured.data_truth;
  const statements: Array<[RegExp, () => boolean]> = [
    [/- Freshness: fresh/, () => truth.freshness === 'fresh'],
    [/- Freshness: final/, () => truth.freshness === 'final'],
    [/- Freshness: unknown/, () => truth.freshness === 'unknown' && said.includes(truth.freshness_unknown)],
    [/not final yet, so they are missing here/, () => truth.data_state === 'final' && !!truth.first_incomplete_date],
    [/- Row cap: reached/, () => truth.row_cap_reached === true],
    [/- Row cap: not reached/, () => truth.row_cap_reached === false],
    [/leaves out anonymised queries/, () => truth.row_sum_caveats.includes('anonymised_queries_left_out')],
    [/Aggregated by page/, () => truth.row_sum_caveats.includes('counted_per_page')],
    [/- Not in any listed query/, () => truth.unattributed?.click_share !== undefined],
    [/queries below the \d+ rows listed/, () => truth.unattributed?.listed_rows_complete === false],
    [/which Google leaves out of query rows/, () => truth.unattributed?.listed_rows_complete === true],
    [/- Anonymised queries: not measured/, () => !!truth.unattributed?.not_measured && said.includes(truth.unattributed.not_measured)],
    [/Google returned exactly row_limit/, () => structured.next_start_row !== undefined],
    [/are not shown, to keep this result under 100 kB/, () => structured.rows_not_shown !== undefined],
    [/This is an answer, not an error/, () => structured.rows.length === 0],
    [/not final yet, Google is still collecting them/, () => structured.compare.left_out.some((l: any) => l.reason === 'not_final')],
    [/older than the ~16 months Google keeps/, () => structured.compare.left_out.some((l: any) => l.reason === 'outside_retention')],
    [
      /matching days in the other window are left out/,
      () => structured.compare.left_out.some((l: any) => l.reason === 'not_in_other_window'),
    ],
    [/previous_year: the same weekdays/, () => structured.compare.with === 'previous_year'],
    [/previous_period: the same number of days/, () => structured.compare.with === 'previous_period'],
    [/the window given/, () => structured.compare.with === 'custom'],
    [/, better\)/, () => structured.compare.change.position < 0],
    [/, worse\)/, () => structured.compare.change.position > 0],
    [
      /, none before/,
      () => structured.compare.change.clicks_percent === undefined || structured.compare.change.impressions_percent === undefined,
    ],
    [/Sum of the \d+ rows? (returned|exported) \(rows_sum\)/, () => structured.rows_sum !== undefined],
    [/^Total: /m, () => structured.totals !== undefined && structured.rows_sum === undefined],
    [/Property totals \(a whole-property query/, () => structured.totals !== undefined],
    [/- Data state: period today/, () => said.includes(truth.data_state_note)],
    [
      /window has more than the \d+ rows Google returns/,
      () => structured.compare.current.rows_complete === false || structured.compare.previous.rows_complete === false,
    ],
    [/The export is incomplete/, () => structured.export.complete === false && said.includes(structured.export.stopped)],
    [/Nothing was stored/, () => structured.export === undefined],
    [/ — all rows\./, () => structured.rows_returned === undefined],
    [/, whole property/, () => structured.dimensions.length === 0],
    [/^[^\n]*data_state (final|all|hourly_all)/, () => said.split('\n')[0].includes(`data_state ${truth.data_state}`)],
    [/, (web|image|video|news|discover|googleNews) search/, () => said.includes(`, ${structured.type} search`)],
    [/Filters \(all must match/, () => structured.filters.length > 0],
    [/- Known anomaly \(/, () => truth.anomalies.length > 0],
    [/of the previous window \(/, () => truth.anomalies.some((a: any) => a.previous_overlap)],
    [/Branded split: /, () => structured.brand.classifier === 'caller_terms'],
    [/Sums of every page row \(rows_sum/, () => structured.rows_sum !== undefined && structured.compare.previous_rows_sum !== undefined],
    [/Totals \(whole-property queries/, () => structured.totals !== undefined && structured.compare.previous_totals !== undefined],
    [/Totals \(the whole property hour by hour/, () => structured.totals !== undefined && structured.compare.previous_totals !== undefined],
    [/so that hour i still matches hour i/, () => structured.compare.left_out.every((l: any) => l.from_hour)],
    [/hours in America\/Los_Angeles/, () => truth.hour_offsets.length > 0],
  ];
  for (const [pattern, holds] of statements) {
    if (pattern.test(said)) {
      let ok: boolean;
      try {
        ok = holds();
      } catch {
        ok = false; // a field the statement needs is missing altogether
      }
      if (!ok) {
        problems.push({ what: 'statement without its structured field', value: pattern.source });
      }
    }
  }
  for (const dimension of structured.dimensions) {
    if (!said.includes(dimension)) {
      problems.push({ what: 'dimension', value: dimension });
    }
  }
  return problems;
}

describe('structuredContent carries every fact the text carries', () => {
  const results = new Map<string, ToolResult>();
  beforeAll(async () => {
    for (const c of CASES) {
      google.emulator.reset();
      c.before?.();
      results.set(c.name, await (c.legacy ? legacy : client).call(TOOL, { site_url: OWNED, ...c.args }));
      if (process.env.GSC_TEST_PRINT) {
        process.stderr.write(`\n=== ${c.name}\n${text(results.get(c.name)!)}\n`);
      }
    }
  }, 120_000);

  it.each(CASES.map((c) => [c.name]))('%s', (name) => {
    const result = results.get(name)!;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toBeDefined();
    expect(check(result)).toEqual([]);
  });

  it('the checker itself finds a fact missing from the structured half', () => {
    const result = results.get('by query, every row: anonymised share measured')!;
    const structured = JSON.parse(JSON.stringify(result.structuredContent));
    delete structured.data_truth.unattributed;
    delete structured.data_truth.anomalies; // its overlap repeats the window's dates
    structured.rows[0].keys = ['renamed'];
    structured.end_date = '1999-01-01';
    structured.data_truth.end_date = '1999-01-01';
    const problems = check({ ...result, structuredContent: structured });
    expect(problems).toEqual(
      expect.arrayContaining([
        { what: 'table row without a structured row', value: expect.any(String) },
        { what: 'statement without its structured field', value: '- Not in any listed query' },
        { what: 'date', value: OLD.end_date },
      ]),
    );
  });

  it('covers every result shape: compare, export and every data-truth statement appear in the corpus', () => {
    const all = [...results.values()].map(text).join('\n');
    for (const needle of [
      '- Freshness: fresh',
      '- Freshness: final —',
      '- Freshness: unknown',
      'not final yet, so they are missing here',
      '- Row cap: reached',
      '- Row cap: not reached',
      '- Not in any listed query',
      '- Anonymised queries: not measured',
      'queries below the',
      'Aggregated by page',
      'only in current',
      'only in previous',
      'not in the previous rows',
      'Left out of both windows, so that',
      'not final yet, Google is still collecting',
      'matching days in the other window are left out',
      'older than the ~16 months',
      'Property totals (a whole-property query',
      'Sum of the',
      '- Data state: period today',
      'The export is incomplete',
      'Nothing was stored',
      'are not shown, to keep this result under 100 kB',
      'Google returned exactly row_limit',
      '- Known anomaly (',
      'Branded split: ',
      'Sums of every page row (rows_sum',
      'so that hour i still matches hour i',
    ]) {
      expect(all).toContain(needle);
    }
  });
});
