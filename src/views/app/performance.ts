// The Performance view of query_search_analytics (PRODUCT.md §5d): daily
// clicks and impressions (CTR and position on a toggle) from the app-only tool
// performance_daily_series, incomplete days drawn hollow, the comparison window
// overlaid, totals, top movers and the data-truth notes of the tool's answer.
import type * as z from 'zod';
import type { AnalyticsOutput, SeriesOutput } from '../../analytics/analytics.schemas.js';
import { type ChartSeries, lineChart } from './chart.js';
import { count, el, notice, percent, position, show, signed, textOf } from './dom.js';
import { type ToolResult, ViewBridge } from './view-bridge.js';

// The tools' own output schemas (types only: erased from the bundle), so a view never drifts from what the tool sends.
type Analytics = z.output<typeof AnalyticsOutput>;
type Series = z.output<typeof SeriesOutput>;
type Metrics = NonNullable<Analytics['totals']>;

const SERIES_TOOL = 'performance_daily_series';
const app = document.getElementById('app')!;
let metrics: 'volume' | 'quality' = 'volume';
let series: Series | undefined;

const bridge = new ViewBridge({ onToolResult: (result) => void render(result) });
show(app, el('p', { class: 'muted' }, 'Waiting for the query result…'));
void bridge.connect('google-search-console-mcp performance view');

async function render(result: ToolResult): Promise<void> {
  const data = result.structuredContent as Analytics | undefined;
  if (result.isError || !data) {
    show(app, notice(textOf(result) || 'The query returned no data.', 'error'));
    return;
  }
  const chartBox = el('section', { class: 'charts', 'aria-live': 'polite' }, el('p', { class: 'muted' }, 'Loading the daily series…'));
  const toggle = el(
    'div',
    { class: 'toggle', role: 'group', 'aria-label': 'Metrics' },
    button('volume', 'Clicks & impressions'),
    button('quality', 'CTR & position'),
  );
  show(app, header(data), totals(data), toggle, chartBox, movers(data), truthNotes(data));
  const current = data.compare?.current ?? data;
  const args: Record<string, unknown> = {
    site_url: data.site_url,
    start_date: current.start_date,
    end_date: current.end_date,
    type: data.type,
  };
  if (data.filters?.length) {
    args.filters = data.filters;
  }
  if (data.compare) {
    args.previous = { start_date: data.compare.previous.start_date, end_date: data.compare.previous.end_date };
  }
  let answer: ToolResult;
  try {
    answer = await bridge.callTool(SERIES_TOOL, args);
  } catch (error) {
    show(chartBox, notice(`The daily series could not be loaded: ${error instanceof Error ? error.message : String(error)}`, 'error'));
    return;
  }
  if (answer.isError || !answer.structuredContent) {
    show(chartBox, notice(textOf(answer) || 'The daily series could not be loaded.', 'error'));
    return;
  }
  series = answer.structuredContent as unknown as Series;
  drawCharts(chartBox);

  function button(value: typeof metrics, label: string): HTMLButtonElement {
    const b = el('button', { type: 'button', 'data-metrics': value, 'aria-pressed': String(metrics === value) }, label);
    b.addEventListener('click', () => {
      metrics = value;
      for (const other of toggle.querySelectorAll('button')) {
        other.setAttribute('aria-pressed', String(other.dataset.metrics === value));
      }
      drawCharts(chartBox);
    });
    return b;
  }
}

function drawCharts(box: HTMLElement): void {
  if (!series) {
    return;
  }
  const s = series;
  const chart = (metric: keyof Metrics, title: string) => {
    const lines: ChartSeries[] = [
      {
        name: 'current',
        label: `${s.current.start_date} – ${s.current.end_date}`,
        points: s.current.days.map((d) => ({ date: d.date, value: d[metric], incomplete: d.incomplete })),
      },
    ];
    if (s.previous) {
      lines.push({
        name: 'previous',
        label: `${s.previous.start_date} – ${s.previous.end_date}`,
        points: s.previous.days.map((d) => ({ date: d.date, value: d[metric] })),
      });
    }
    return el('figure', { class: 'chart-box' }, el('figcaption', {}, title), lineChart(lines, metric, metric === 'position'));
  };
  const legend = el(
    'p',
    { class: 'legend' },
    el('span', { class: 'legend-key current' }, `${s.current.start_date} – ${s.current.end_date}`),
    s.previous ? el('span', { class: 'legend-key previous' }, `compared with ${s.previous.start_date} – ${s.previous.end_date}`) : null,
    s.first_incomplete_date
      ? el('span', { class: 'legend-key incomplete' }, `from ${s.first_incomplete_date}: incomplete, Google is still collecting`)
      : null,
  );
  show(
    box,
    legend,
    ...(metrics === 'volume'
      ? [chart('clicks', 'Clicks per day'), chart('impressions', 'Impressions per day')]
      : [chart('ctr', 'CTR per day'), chart('position', 'Average position per day')]),
  );
}

function header(data: Analytics): HTMLElement {
  const filters = (data.filters ?? []).map((f) => `${f.dimension} ${f.operator} "${f.expression}"`).join(' and ');
  return el(
    'header',
    {},
    el('h1', {}, data.site_url),
    el(
      'p',
      { class: 'muted' },
      `${data.start_date} – ${data.end_date} · ${data.type} search${data.dimensions.length ? ` · by ${data.dimensions.join(', ')}` : ''}${filters ? ` · ${filters}` : ''}`,
    ),
  );
}

function totals(data: Analytics): HTMLElement | null {
  const t = data.totals ?? data.rows_sum;
  if (!t) {
    return null;
  }
  const d = data.compare?.change;
  const tile = (label: string, value: string, delta?: HTMLElement) =>
    el('div', { class: 'tile' }, el('span', { class: 'label' }, label), el('strong', {}, value), delta ?? null);
  return el(
    'section',
    { class: 'totals', 'aria-label': data.totals ? 'Property totals' : 'Totals of the rows returned' },
    tile('Clicks', count(t.clicks), d && signed(d.clicks)),
    tile('Impressions', count(t.impressions), d && signed(d.impressions)),
    tile('CTR', percent(t.ctr), d && signed(d.ctr_points, 2)),
    tile('Position', position(t.position), d && signed(d.position, 1, true)),
  );
}

function movers(data: Analytics): HTMLElement | null {
  if (!data.rows.length || !data.dimensions.length) {
    return null;
  }
  const rows = data.rows.slice(0, 10);
  const head = data.compare ? ['Clicks', 'Δ clicks', 'Impressions', 'Δ impressions'] : ['Clicks', 'Impressions', 'CTR', 'Position'];
  return el(
    'section',
    { class: 'movers' },
    el('h2', {}, data.compare ? 'Top movers' : 'Top rows'),
    el(
      'table',
      {},
      el('thead', {}, el('tr', {}, el('th', {}, data.dimensions.join(' · ')), ...head.map((h) => el('th', { class: 'num' }, h)))),
      el(
        'tbody',
        {},
        ...rows.map((r) =>
          el(
            'tr',
            {},
            el('td', { class: 'key' }, r.keys.join(' · '), r.only_in ? el('span', { class: 'tag' }, `only in ${r.only_in}`) : null),
            ...(data.compare
              ? [
                  num(r.clicks),
                  el('td', { class: 'num' }, r.delta ? signed(r.delta.clicks) : '—'),
                  num(r.impressions),
                  el('td', { class: 'num' }, r.delta ? signed(r.delta.impressions) : '—'),
                ]
              : [
                  num(r.clicks),
                  num(r.impressions),
                  el('td', { class: 'num' }, r.ctr === undefined ? '—' : percent(r.ctr)),
                  el('td', { class: 'num' }, r.position === undefined ? '—' : position(r.position)),
                ]),
          ),
        ),
      ),
    ),
  );
}

const LEFT_OUT: Record<string, string> = {
  not_final: 'not final yet',
  outside_retention: 'older than Google keeps',
  not_in_other_window: 'so that day i still matches day i of the other window',
};

const num = (n: number | undefined) => el('td', { class: 'num' }, n === undefined ? '—' : count(n));

function truthNotes(data: Analytics): HTMLElement {
  const t = data.data_truth;
  const notes: string[] = [`Window ${t.start_date} – ${t.end_date}, ${t.time_zone} days; data_state ${t.data_state}.`];
  if (t.data_state_note) {
    notes.push(t.data_state_note);
  }
  if (!data.totals && data.rows_sum) {
    notes.push('The totals are the sum of the rows returned, not the property total.');
  }
  if (t.freshness === 'final') {
    notes.push('Every day shown is final.');
  }
  if (t.first_incomplete_date) {
    notes.push(
      data.compare
        ? `From ${t.first_incomplete_date} Google is still collecting: those days are left out of the comparison.`
        : `From ${t.first_incomplete_date} Google is still collecting: those days are incomplete (drawn hollow on the dotted stretch of the line).`,
    );
  }
  if (t.freshness_unknown) {
    notes.push(`Freshness unknown: ${t.freshness_unknown}`);
  }
  if (t.row_cap_reached) {
    notes.push(`Google's row cap (${count(t.row_cap)}) was reached: rows below it are not listed.`);
  }
  if (t.row_sum_caveats.includes('anonymised_queries_left_out')) {
    notes.push('Rows grouped by query leave out anonymised queries, so they do not add up to the property total.');
  }
  if (t.row_sum_caveats.includes('counted_per_page')) {
    notes.push('Grouped by page, impressions are counted per page: rows can add up to more than the property total.');
  }
  const u = t.unattributed;
  if (u?.click_share !== undefined) {
    notes.push(
      `Not attributed to any listed query: ${percent(u.click_share)} of clicks, ${percent(u.impression_share ?? 0)} of impressions.`,
    );
  }
  if (u?.not_measured) {
    notes.push(`Share of anonymised queries not measured: ${u.not_measured}`);
  }
  for (const left of data.compare?.left_out ?? []) {
    notes.push(`Left out of the ${left.window} window: ${left.start_date} – ${left.end_date} (${LEFT_OUT[left.reason] ?? left.reason}).`);
  }
  return el('section', { class: 'truth' }, el('h2', {}, 'About these numbers'), el('ul', {}, ...notes.map((n) => el('li', {}, n))));
}
