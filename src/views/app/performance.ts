// The Performance view of query_search_analytics (PRODUCT.md §5d, §5e): clicks
// and impressions (CTR and position on a toggle) per day — or per hour when the
// answer is grouped by hour — from the app-only tool performance_daily_series,
// what Google is still collecting drawn hollow, the comparison window overlaid,
// Google's known anomalies as shaded bands, the team's notes as markers, totals,
// top movers and the data-truth notes. A day or range the person selects is told
// to the host (ui/update-model-context), so the model knows what "this" is.
import { type Band, type ChartSeries, lineChart, type Marker } from './chart.js';
import { count, el, notice, percent, position, show, signed, textOf } from './dom.js';
import { addDays, type Analytics, daysBetween, type Metric, METRIC_LABEL, type Series, Slots } from './performance-data.js';
import { anomalyLegend, movers, notesList, truthNotes } from './performance-notes.js';
import { selectionContext } from './selection-context.js';
import { ChartSelection, type Range } from './selection.js';
import { type ToolResult, ViewBridge } from './view-bridge.js';

const SERIES_TOOL = 'performance_daily_series';
const app = document.getElementById('app')!;
let metrics: 'volume' | 'quality' = 'volume';

interface Drawn {
  readonly data: Analytics;
  readonly series: Series;
  readonly slots: Slots;
  /** Days from the current window's start to the comparison's (slot i of one sits over slot i of the other). */
  readonly shift: number;
  readonly selection: ChartSelection;
  readonly panel: HTMLElement;
}
let drawn: Drawn | undefined;

const bridge = new ViewBridge({ onToolResult: (result) => void render(result) });
show(app, el('p', { class: 'muted' }, 'Waiting for the query result…'));
void bridge.connect('google-search-console-mcp performance view');

async function render(result: ToolResult): Promise<void> {
  const data = result.structuredContent as Analytics | undefined;
  if (result.isError || !data) {
    show(app, notice(textOf(result) || 'The query returned no data.', 'error'));
    return;
  }
  const hourly = data.dimensions.includes('hour');
  const chartBox = el(
    'section',
    { class: 'charts', 'aria-live': 'polite' },
    el('p', { class: 'muted' }, `Loading the ${hourly ? 'hourly' : 'daily'} series…`),
  );
  const toggle = el(
    'div',
    { class: 'toggle', role: 'group', 'aria-label': 'Metrics' },
    button('volume', 'Clicks & impressions'),
    button('quality', 'CTR & position'),
  );
  const panel = el('section', { class: 'selection-panel', 'aria-live': 'polite' });
  show(
    app,
    header(data),
    totals(data),
    toggle,
    chartBox,
    panel,
    anomalyLegend(data),
    notesList(data.annotations ?? []),
    movers(data),
    truthNotes(data),
  );
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
  if (hourly) {
    args.hourly = true;
  }
  let answer: ToolResult;
  try {
    answer = await bridge.callTool(SERIES_TOOL, args);
  } catch (error) {
    show(chartBox, notice(`The series could not be loaded: ${error instanceof Error ? error.message : String(error)}`, 'error'));
    return;
  }
  if (answer.isError || !answer.structuredContent) {
    show(chartBox, notice(textOf(answer) || 'The series could not be loaded.', 'error'));
    return;
  }
  const series = answer.structuredContent as unknown as Series;
  const slots = new Slots(series.current, hourly);
  const selection = new ChartSelection(
    { count: slots.count, page: hourly ? 24 : 7, label: (slot) => slots.label(slot) },
    (range) => void tell(range),
  );
  const shift = series.previous ? daysBetween(series.current.start_date, series.previous.start_date) : 0;
  drawn = { data, series, slots, shift, selection, panel };
  show(panel, el('p', { class: 'muted small' }, selectHint(hourly)));
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

const selectHint = (hourly: boolean) =>
  `Click a ${hourly ? 'point for its hour' : 'day'} or drag across the chart to select${hourly ? ' hours' : ' days'} (or use the arrow keys on a focused chart); the assistant is told what you selected, so you can ask about "this".`;

function drawCharts(box: HTMLElement): void {
  if (!drawn) {
    return;
  }
  const { series: s, slots, shift, data } = drawn;
  drawn.selection.detachAll();
  const unit = slots.hourly ? 'hour' : 'day';
  // The comparison's day (or hour) at the slot of the current window it sits under.
  const back = (key: string) => `${addDays(key.slice(0, 10), -shift)}${key.slice(10)}`;
  const chart = (metric: Metric, title: string) => {
    const lines: ChartSeries[] = [
      {
        name: 'current',
        label: `${s.current.start_date} – ${s.current.end_date}`,
        points: s.current.days.map((d) => ({ at: slots.of(d.date), key: d.date, value: d[metric], incomplete: d.incomplete })),
      },
    ];
    if (s.previous) {
      lines.push({
        name: 'previous',
        label: `${s.previous.start_date} – ${s.previous.end_date}`,
        points: s.previous.days.map((d) => ({ at: slots.of(back(d.date)), key: d.date, value: d[metric] })),
      });
    }
    const svg = lineChart({
      series: lines,
      metric,
      unit,
      slots: slots.count,
      ticks: ticks(slots),
      axisNote: slots.hourly ? hourNote(data) : undefined,
      bands: bands(metric),
      markers: markers(),
      invert: metric === 'position',
    });
    drawn!.selection.attach(svg, title);
    return el('figure', { class: 'chart-box' }, el('figcaption', {}, title), svg);
  };
  const bands = (metric: Metric): Band[] =>
    (data.data_truth.anomalies ?? []).flatMap((a) => {
      const affected = a.affected.includes(metric);
      const title = affected ? `${a.summary} ${a.sentence}` : `${METRIC_LABEL[metric]} is not affected by ${a.id}: ${a.summary}`;
      const spans = [
        a.overlap && { ...slots.span(a.overlap.start_date, a.overlap.end_date), previous: false },
        a.previous_overlap && {
          ...slots.span(addDays(a.previous_overlap.start_date, -shift), addDays(a.previous_overlap.end_date, -shift)),
          previous: true,
        },
      ];
      return spans.flatMap((sp) =>
        sp && sp.from !== undefined && sp.to !== undefined
          ? [{ from: sp.from, to: sp.to, previous: sp.previous, affected, id: a.id, title }]
          : [],
      );
    });
  const markers = (): Marker[] =>
    (data.annotations ?? []).flatMap((note, i) => {
      const inCurrent = note.date >= s.current.start_date && note.date <= s.current.end_date;
      const inPrevious = !!s.previous && note.date >= s.previous.start_date && note.date <= s.previous.end_date;
      if (!inCurrent && !inPrevious) {
        return [];
      }
      const title = `${i + 1}. ${note.date}${note.tag ? ` [${note.tag}]` : ''}: ${note.text}${note.author ? ` (${note.author})` : ''}`;
      return [{ at: slots.of(inCurrent ? note.date : back(note.date)), n: i + 1, id: note.id, title, previous: !inCurrent }];
    });
  const anomalies = data.data_truth.anomalies ?? [];
  const legend = el(
    'p',
    { class: 'legend' },
    el('span', { class: 'legend-key current' }, `${s.current.start_date} – ${s.current.end_date}`),
    s.previous ? el('span', { class: 'legend-key previous' }, `compared with ${s.previous.start_date} – ${s.previous.end_date}`) : null,
    s.first_incomplete_hour || s.first_incomplete_date
      ? el(
          'span',
          { class: 'legend-key incomplete' },
          `from ${s.first_incomplete_hour ?? s.first_incomplete_date}: incomplete, Google is still collecting`,
        )
      : null,
    ...anomalies.map((a) =>
      el(
        'span',
        { class: 'legend-key anomaly', 'data-anomaly': a.id },
        `known anomaly: ${a.affected.map((m) => METRIC_LABEL[m]).join(', ')} unreliable${a.not_affected.length ? ` (${a.not_affected.map((m) => METRIC_LABEL[m]).join(', ')} fine)` : ''}`,
      ),
    ),
    data.annotations?.length ? el('span', { class: 'legend-key note' }, 'team note') : null,
  );
  const per = slots.hourly ? 'per hour' : 'per day';
  show(
    box,
    legend,
    ...(metrics === 'volume'
      ? [chart('clicks', `Clicks ${per}`), chart('impressions', `Impressions ${per}`)]
      : [chart('ctr', `CTR ${per}`), chart('position', `Average position ${per}`)]),
  );
}

/** Days: the first and last date. Hours: each midnight (its date) and, over a few days, every 6 or 12 hours. */
function ticks(slots: Slots): Array<{ at: number; label: string }> {
  if (!slots.hourly) {
    return [
      { at: 0, label: slots.dateOf(0) },
      { at: slots.count - 1, label: slots.dateOf(slots.count - 1) },
    ];
  }
  const days = slots.count / 24;
  const step = days <= 2 ? 6 : days <= 4 ? 12 : 24;
  const out: Array<{ at: number; label: string }> = [];
  for (let at = 0; at < slots.count; at += step) {
    out.push({ at, label: at % 24 === 0 ? slots.dateOf(at).slice(5) : `${String(at % 24).padStart(2, '0')}:00` });
  }
  return out;
}

function hourNote(data: Analytics): string {
  const offsets = data.data_truth.hour_offsets ?? [];
  return `hour of day, ${data.data_truth.time_zone}${offsets.length ? ` (UTC ${offsets.join(', then ')})` : ''}`;
}

/** Tells the view and the host what the person selected (or that they cleared it). */
async function tell(range: Range | undefined): Promise<void> {
  if (!drawn) {
    return;
  }
  const { data, series, slots, panel } = drawn;
  const context = selectionContext(data, series, slots, range);
  const status = el('p', { class: 'muted small' }, 'Telling the assistant…');
  show(panel, el('p', { class: 'selected' }, context.headline), status);
  try {
    const sent = await bridge.updateModelContext({
      content: [{ type: 'text', text: context.text }],
      structuredContent: context.structured,
    });
    status.textContent = sent
      ? range
        ? 'The assistant now knows what you selected: ask it about "this".'
        : 'The assistant was told the selection is cleared.'
      : 'This host does not take context from views, so the assistant was not told; quote the figures above.';
  } catch (error) {
    status.textContent = `The host refused the selection: ${error instanceof Error ? error.message : String(error)}`;
  }
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
