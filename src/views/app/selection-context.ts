// What the view tells the host when the person selects days or hours
// (ui/update-model-context, PRODUCT.md §5e): the property and search type,
// the selected dates or hours (Pacific; hours keyed as Google keys them), the
// metrics over the selection and per day/hour, the comparison window's aligned
// figures, and the known anomalies and team notes that overlap it — so "why
// did this drop happen?" reaches the model with what "this" is. Team notes are
// quoted as people wrote them and labelled as such, not as Google data.
import { count, percent, position } from './dom.js';
import {
  addDays,
  type Analytics,
  type Annotation,
  type Anomaly,
  type Day,
  daysBetween,
  METRIC_LABEL,
  type Metrics,
  type Series,
  type Slots,
  sumMetrics,
} from './performance-data.js';
import type { Range } from './selection.js';

/** At most this many days or hours are listed one by one (the totals cover all of them). */
const LISTED = 48;

export interface SelectionContext {
  /** For the view itself: what is selected, and its figures. */
  readonly headline: string;
  readonly text: string;
  readonly structured: Record<string, unknown>;
}

export function selectionContext(data: Analytics, series: Series, slots: Slots, range: Range | undefined): SelectionContext {
  if (!range) {
    return {
      headline: 'Nothing selected.',
      text: `The person cleared their selection in the performance view of ${data.site_url}; nothing is selected.`,
      structured: { selection: null, site_url: data.site_url },
    };
  }
  const unit = slots.hourly ? 'hour' : 'day';
  const inRange = (d: Day) => {
    const at = slots.of(d.date);
    return at >= range.from && at <= range.to;
  };
  const current = series.current.days.filter(inRange);
  const startDate = slots.dateOf(range.from);
  const endDate = slots.dateOf(range.to);
  const start = slots.hourly ? (current[0]?.date ?? slots.label(range.from)) : startDate;
  const end = slots.hourly ? (current[current.length - 1]?.date ?? slots.label(range.to)) : endDate;
  const n = range.to - range.from + 1;
  const metrics = sumMetrics(current);
  const incomplete = current.filter((d) => d.incomplete).length;

  const previousWindow = series.previous;
  let previous: Record<string, unknown> | undefined;
  if (previousWindow) {
    // Slot i of the comparison sits under slot i of the current window.
    const shift = daysBetween(series.current.start_date, previousWindow.start_date);
    const days = previousWindow.days.filter((d) => {
      const at = slots.of(`${addDays(d.date.slice(0, 10), -shift)}${d.date.slice(10)}`);
      return at >= range.from && at <= range.to;
    });
    previous = {
      start_date: addDays(startDate, shift),
      end_date: addDays(endDate, shift),
      metrics: sumMetrics(days),
      [`${unit}s`]: days.slice(0, LISTED).map(figures),
    };
  }

  const anomalies = (data.data_truth.anomalies ?? [])
    .map((a) => ({ a, days: overlapDays(a, startDate, endDate) }))
    .filter((o) => o.days > 0);
  const notes = (data.annotations ?? []).filter((note) => note.date >= startDate && note.date <= endDate);

  const when =
    n === 1
      ? `${unit === 'hour' ? 'the hour' : 'the day'} ${start}`
      : `${start} to ${end} (${n} ${unit}s${slots.hourly ? '' : ', Pacific dates'})`;
  const lines = [
    `In the performance view of ${data.site_url} (${data.type} search${filterWords(data)}), the person selected ${when}.${slots.hourly ? ` Hours are America/Los_Angeles wall-clock hours; keys carry Google's UTC offset.` : ''}`,
    `Over the selection: ${says(metrics)}.${incomplete ? ` ${incomplete} of these ${unit}s are incomplete: Google is still collecting them.` : ''}${current.length < n ? ` ${n - current.length} ${unit}s have no data.` : ''}`,
  ];
  if (previous) {
    lines.push(
      `The aligned comparison ${unit}s ${String(previous.start_date)} to ${String(previous.end_date)}: ${says(previous.metrics as Metrics)}.`,
    );
  }
  for (const { a, days } of anomalies) {
    const metricsWord = a.affected.map((m) => METRIC_LABEL[m]).join(', ');
    const fine = a.not_affected.length ? `; ${a.not_affected.map((m) => METRIC_LABEL[m]).join(', ')} fine` : '';
    lines.push(
      `Known Google data anomaly ${a.id} overlaps ${days} selected day${days === 1 ? '' : 's'}: ${metricsWord} unreliable there${fine}. ${a.sentence} Source: ${a.source}`,
    );
  }
  if (notes.length) {
    lines.push(
      `Team notes on these days (written by people using this server, not Google data): ${notes.map((note) => `${note.date} ${JSON.stringify(note.text)}${note.tag ? ` [${note.tag}]` : ''}`).join('; ')}.`,
    );
  }
  const listed = current.slice(0, LISTED);
  lines.push(
    `Per ${unit}${current.length > LISTED ? ` (first ${LISTED} of ${current.length})` : ''}: ${listed.map((d) => `${d.date} ${count(d.clicks)} clicks, ${count(d.impressions)} impressions`).join('; ') || 'no data'}.`,
  );

  const selection: Record<string, unknown> = {
    site_url: data.site_url,
    type: data.type,
    ...(data.filters?.length ? { filters: data.filters } : {}),
    granularity: unit,
    start,
    end,
    start_date: startDate,
    end_date: endDate,
    [`${unit}s`]: n,
    time_zone: data.data_truth.time_zone,
    ...(slots.hourly && data.data_truth.hour_offsets ? { hour_offsets: data.data_truth.hour_offsets } : {}),
    metrics,
    ...(incomplete ? { incomplete } : {}),
    series: listed.map(figures),
    ...(previous ? { previous } : {}),
    anomalies: anomalies.map(({ a, days }) => anomalyFact(a, days)),
    annotations: notes.map(noteFact),
  };
  return { headline: `Selected ${when}: ${says(metrics)}.`, text: lines.join('\n'), structured: { selection } };
}

/** Days of [start, end] inside the anomaly. */
function overlapDays(a: Anomaly, start: string, end: string): number {
  const from = a.start_date > start ? a.start_date : start;
  const to = a.end_date === undefined || a.end_date > end ? end : a.end_date;
  return from <= to ? daysBetween(from, to) + 1 : 0;
}

function anomalyFact(a: Anomaly, days: number) {
  return {
    id: a.id,
    start_date: a.start_date,
    ...(a.end_date ? { end_date: a.end_date } : {}),
    affected: a.affected,
    not_affected: a.not_affected,
    selected_days: days,
    sentence: a.sentence,
    source: a.source,
  };
}

const noteFact = (note: Annotation) => ({
  date: note.date,
  text: note.text,
  ...(note.tag ? { tag: note.tag } : {}),
  ...(note.author ? { author: note.author } : {}),
});

const figures = (d: Day) => ({
  key: d.date,
  clicks: d.clicks,
  impressions: d.impressions,
  ctr: d.ctr,
  position: d.position,
  ...(d.incomplete ? { incomplete: true } : {}),
});

const says = (m: Metrics) =>
  `${count(m.clicks)} clicks, ${count(m.impressions)} impressions, CTR ${percent(m.ctr)}, average position ${m.impressions ? position(m.position) : '—'}`;

function filterWords(data: Analytics): string {
  const filters = (data.filters ?? []).map((f) => `${f.dimension} ${f.operator} "${f.expression}"`);
  return filters.length ? `; ${filters.join(' and ')}` : '';
}
