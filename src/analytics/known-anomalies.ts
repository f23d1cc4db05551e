// Google's announced data anomalies (PRODUCT.md §5e), laid over an answer's
// window: which of the answer's days fall inside an anomaly, which metrics
// are unreliable there and which are fine — one structured item and one text
// line per anomaly, none when nothing overlaps. The list is the one shipped
// with the package (known-anomalies.json, inlined by the build, so start-up
// reads no file) unless GSC_ANOMALIES_FILE replaced it.

import { Inject, Injectable } from '@nestjs/common';
import * as z from 'zod';
import { type AnomalyCatalog, type KnownAnomaly, type Metric, parseAnomalies } from '../config/anomalies-file.js';
import { CONFIG, type Config } from '../config/config.js';
import { type DateRange, daysInRange } from './pacific-period.js';
import BUILT_IN from './known-anomalies.json' with { type: 'json' };

export const BUILT_IN_SOURCE = 'the built-in known-anomalies.json';

/** The list in force: GSC_ANOMALIES_FILE's, else the built-in one, checked by the same rules at start-up. */
@Injectable()
export class KnownAnomalies {
  readonly catalog: AnomalyCatalog;

  constructor(@Inject(CONFIG) config: Config) {
    this.catalog = config.knownAnomalies ?? builtInAnomalies();
  }
}

export function builtInAnomalies(): AnomalyCatalog {
  return parseAnomalies(BUILT_IN, BUILT_IN_SOURCE);
}

const Overlap = z.object({
  start_date: z.string(),
  end_date: z.string(),
  days: z.number().int().describe("The window's days inside the anomaly."),
  window_days: z.number().int(),
});

export const AnomalyFactSchema = z.object({
  id: z.string(),
  start_date: z.string(),
  end_date: z.string().optional().describe('Absent while Google has announced no fix.'),
  end_approximate: z.boolean().describe('true: the end is "about" that day, not a day Google named.'),
  affected: z.array(z.enum(['clicks', 'impressions', 'ctr', 'position'])),
  not_affected: z.array(z.enum(['clicks', 'impressions', 'ctr', 'position'])),
  backfilled: z.boolean().optional().describe('false: Google did not correct the affected days afterwards.'),
  overlap: Overlap.optional().describe("The answer's window (compare: the current one) inside the anomaly."),
  previous_overlap: Overlap.optional().describe("compare: the previous window's days inside the anomaly."),
  summary: z.string().describe('What the text line says: the affected metrics, the days, which side of a comparison.'),
  sentence: z.string().describe('What happened, from the list of known anomalies.'),
  source: z.string(),
});

export type AnomalyFact = z.infer<typeof AnomalyFactSchema>;

export interface AnomalyWindows {
  /** The answer's window (compare: the current one). */
  readonly range: DateRange;
  /** compare: the previous window. */
  readonly previous?: DateRange;
  readonly type: string;
}

const LABEL: Record<Metric, string> = { clicks: 'clicks', impressions: 'impressions', ctr: 'CTR', position: 'position' };

/** The anomalies that overlap the window(s), as structured items and one text line each, in the list's order. */
export function anomalyFacts(anomalies: readonly KnownAnomaly[], windows: AnomalyWindows): { structured: AnomalyFact[]; lines: string[] } {
  const structured: AnomalyFact[] = [];
  const lines: string[] = [];
  for (const anomaly of anomalies) {
    if (anomaly.search_types && !anomaly.search_types.includes(windows.type)) {
      continue;
    }
    const current = overlapOf(anomaly, windows.range);
    const previous = windows.previous ? overlapOf(anomaly, windows.previous) : undefined;
    if (!current && !previous) {
      continue;
    }
    const summary = summarize(anomaly, current, previous, windows.previous !== undefined);
    structured.push({
      id: anomaly.id,
      start_date: anomaly.start_date,
      ...(anomaly.end_date ? { end_date: anomaly.end_date } : {}),
      end_approximate: anomaly.end_approximate,
      affected: [...anomaly.affected],
      not_affected: [...anomaly.not_affected],
      ...(anomaly.backfilled !== undefined ? { backfilled: anomaly.backfilled } : {}),
      ...(current ? { overlap: current } : {}),
      ...(previous ? { previous_overlap: previous } : {}),
      summary,
      sentence: anomaly.sentence,
      source: anomaly.source,
    });
    lines.push(`- Known anomaly (${anomaly.id}, ${span(anomaly)}): ${summary} ${anomaly.sentence} Source: ${anomaly.source}`);
  }
  return { structured, lines };
}

/** The days of `range` inside the anomaly; undefined when none. */
export function overlapOf(anomaly: KnownAnomaly, range: DateRange): z.infer<typeof Overlap> | undefined {
  const start = anomaly.start_date > range.start ? anomaly.start_date : range.start;
  const end = anomaly.end_date === undefined || anomaly.end_date > range.end ? range.end : anomaly.end_date;
  if (start > end) {
    return undefined;
  }
  return { start_date: start, end_date: end, days: daysInRange({ start, end }), window_days: daysInRange(range) };
}

function span(anomaly: KnownAnomaly): string {
  if (!anomaly.end_date) {
    return `from ${anomaly.start_date}, no fix announced yet`;
  }
  return `${anomaly.start_date} to ${anomaly.end_approximate ? 'about ' : ''}${anomaly.end_date}`;
}

type Days = z.infer<typeof Overlap>;

function summarize(anomaly: KnownAnomaly, current: Days | undefined, previous: Days | undefined, compared: boolean): string {
  const metrics = list(anomaly.affected.map((m) => LABEL[m]));
  const verb = be(anomaly.affected);
  const fine = anomaly.not_affected.length ? `${list(anomaly.not_affected.map((m) => LABEL[m]))} ${be(anomaly.not_affected)} fine` : '';
  const of = (d: Days) => `${d.days} of ${d.window_days} ${d.window_days === 1 ? 'day' : 'days'}`;
  if (!compared) {
    return `${metrics} ${verb} unreliable for ${of(current!)} (${range(current!)})${fine ? `; ${fine}` : ''}.`;
  }
  const sides = [
    current ? `${of(current)} of the current window (${range(current)})` : undefined,
    previous ? `${of(previous)} of the previous window (${range(previous)})` : undefined,
  ].filter(Boolean);
  const share = (d: Days | undefined) => (d ? d.days / d.window_days : 0);
  const untouched = !current ? ' The current window is not affected.' : !previous ? ' The previous window is not affected.' : '';
  const change =
    share(current) !== share(previous)
      ? ` The windows are affected unequally, so a change in ${metrics} between them may come from the anomaly${anomaly.end_date ? " or Google's fix" : ''}, not from the site.`
      : '';
  return `${metrics} ${verb} unreliable for ${sides.join(' and ')}.${untouched}${change}${fine ? ` ${fine[0].toUpperCase()}${fine.slice(1)}.` : ''}`;
}

/** "clicks are", "CTR is", "CTR and position are". */
function be(metrics: readonly Metric[]): string {
  return metrics.length === 1 && (metrics[0] === 'ctr' || metrics[0] === 'position') ? 'is' : 'are';
}

function range(d: Days): string {
  return d.start_date === d.end_date ? d.start_date : `${d.start_date} to ${d.end_date}`;
}

function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
