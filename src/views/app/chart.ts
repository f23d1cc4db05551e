// A line chart in hand-written SVG: one point per day (or hour), what Google is
// still collecting drawn hollow on a dotted segment, a second window overlaid
// as a dashed line aligned slot by slot, Google's known anomalies as shaded
// bands (marked by whether this chart's metric is affected), the team's notes
// as numbered markers, and the person's selection as a highlighted range.
// Every text that came from elsewhere goes into <title>/<text> as a text node.
import { svg } from './dom.js';

export interface Point {
  /** Its slot on the x axis (day or hour of its window). */
  readonly at: number;
  /** The date or hour key, as the series has it. */
  readonly key: string;
  readonly value: number;
  readonly incomplete?: boolean;
}

export interface ChartSeries {
  readonly name: 'current' | 'previous';
  readonly label: string;
  readonly points: readonly Point[];
}

export interface Band {
  readonly from: number;
  readonly to: number;
  /** Whether this chart's metric is unreliable inside the band. */
  readonly affected: boolean;
  /** The comparison window's days inside an anomaly (drawn over the aligned current slots). */
  readonly previous?: boolean;
  readonly id: string;
  readonly title: string;
}

export interface Marker {
  readonly at: number;
  readonly n: number;
  readonly id: string;
  readonly title: string;
  readonly previous?: boolean;
}

export interface ChartSpec {
  readonly series: readonly ChartSeries[];
  readonly metric: string;
  readonly unit: 'day' | 'hour';
  /** Slots on the x axis (days, or days × 24). */
  readonly slots: number;
  readonly ticks: ReadonlyArray<{ at: number; label: string }>;
  /** Under the axis: e.g. the hours' time zone. */
  readonly axisNote?: string;
  readonly bands?: readonly Band[];
  readonly markers?: readonly Marker[];
  readonly invert?: boolean;
}

export const W = 640;
const H = 236;
export const PAD = { left: 48, right: 12, top: 16, bottom: 44 };

/** The x of a slot. */
export function xOf(slot: number, slots: number): number {
  return PAD.left + (slot * (W - PAD.left - PAD.right)) / Math.max(slots - 1, 1);
}

/** The slot nearest an x in viewBox units. */
export function slotAt(x: number, slots: number): number {
  const slot = Math.round(((x - PAD.left) * Math.max(slots - 1, 1)) / (W - PAD.left - PAD.right));
  return Math.max(0, Math.min(slots - 1, slot));
}

/** The left and right edges of a run of slots: half a step either side, inside the plot. */
export function slotEdges(from: number, to: number, slots: number): { x: number; width: number } {
  const half = (W - PAD.left - PAD.right) / Math.max(slots - 1, 1) / 2;
  const left = Math.max(PAD.left, xOf(from, slots) - half);
  const right = Math.min(W - PAD.right, xOf(to, slots) + half);
  return { x: left, width: Math.max(right - left, 1) };
}

export const PLOT = { top: PAD.top, height: H - PAD.top - PAD.bottom };

export function lineChart(spec: ChartSpec): SVGSVGElement {
  const { series, metric, invert = false, slots } = spec;
  const all = series.flatMap((s) => s.points.map((p) => p.value));
  // Counts get a round top (971 → 1 000), so the middle grid line reads 500, not 485.5.
  const max = invert ? Math.max(...all, 0) : niceCeil(Math.max(...all, 0));
  const min = invert ? Math.min(...all, max) : 0;
  const span = max - min || 1;
  const x = (slot: number) => xOf(slot, slots);
  // Position: lower is better, so the axis runs downwards (1 at the top), as in Search Console.
  const y = (v: number) => (invert ? PAD.top + ((v - min) / span) * PLOT.height : H - PAD.bottom - ((v - min) / span) * PLOT.height);

  const chart = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart',
    role: 'img',
    'aria-label': `${metric} per ${spec.unit}`,
    'data-metric': metric,
    'data-unit': spec.unit,
    'data-slots': slots,
  });
  for (const band of spec.bands ?? []) {
    const { x: bx, width } = slotEdges(band.from, band.to, slots);
    chart.appendChild(
      svg(
        'g',
        {
          class: `band anomaly ${band.affected ? 'affected' : 'fine'}${band.previous ? ' previous' : ''}`,
          'data-anomaly': band.id,
          'data-affected': String(band.affected),
        },
        svg('rect', { x: bx, y: PAD.top, width, height: PLOT.height }),
        svg(
          'text',
          { class: 'band-label', x: bx + 4, y: PAD.top + 11 },
          `${band.previous ? 'previous: ' : ''}${band.affected ? `${metric} unreliable` : `${metric} not affected`}`,
        ),
        svg('title', {}, band.title),
      ),
    );
  }
  for (const tick of [0, 0.5, 1]) {
    const v = min + span * tick;
    chart.appendChild(svg('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }));
    chart.appendChild(svg('text', { class: 'axis', x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, formatTick(v)));
  }
  for (const tick of spec.ticks) {
    const anchor = tick.at === 0 ? 'start' : tick.at === slots - 1 ? 'end' : 'middle';
    chart.appendChild(svg('line', { class: 'tick', x1: x(tick.at), x2: x(tick.at), y1: H - PAD.bottom, y2: H - PAD.bottom + 4 }));
    chart.appendChild(svg('text', { class: 'axis', x: x(tick.at), y: H - PAD.bottom + 16, 'text-anchor': anchor }, tick.label));
  }
  if (spec.axisNote) {
    chart.appendChild(svg('text', { class: 'axis axis-note', x: W / 2, y: H - 6, 'text-anchor': 'middle' }, spec.axisNote));
  }
  // The comparison first, so the current window is drawn on top.
  for (const s of [...series.filter((s) => s.name === 'previous'), ...series.filter((s) => s.name === 'current')]) {
    const group = svg('g', { class: `series ${s.name}`, 'data-series': s.name });
    const complete = s.points.filter((p) => !p.incomplete);
    // A day or hour Google has no row for breaks the line: nothing is drawn where there is no data.
    for (const run of runs(complete)) {
      group.appendChild(svg('polyline', { class: 'line', points: path(run, x, y) }));
    }
    if (complete.length < s.points.length) {
      const tail = s.points.slice(Math.max(complete.length - 1, 0));
      group.appendChild(svg('polyline', { class: 'line incomplete', points: path(tail, x, y) }));
    }
    for (const p of s.points) {
      const still = spec.unit === 'hour' ? 'this hour' : 'this day';
      group.appendChild(
        svg(
          'circle',
          {
            class: p.incomplete ? 'point incomplete' : 'point',
            cx: x(p.at),
            cy: y(p.value),
            r: spec.unit === 'hour' && slots > 72 ? 1.5 : 3,
            'data-date': p.key,
            'data-slot': p.at,
            'data-value': p.value,
          },
          svg(
            'title',
            {},
            `${s.label} ${p.key}: ${formatTick(p.value)}${p.incomplete ? ` (incomplete: Google is still collecting ${still})` : ''}`,
          ),
        ),
      );
    }
    chart.appendChild(group);
  }
  for (const marker of spec.markers ?? []) {
    chart.appendChild(
      svg(
        'g',
        { class: `marker${marker.previous ? ' previous' : ''}`, 'data-annotation': marker.id },
        svg('line', { x1: x(marker.at), x2: x(marker.at), y1: PAD.top, y2: H - PAD.bottom }),
        svg('circle', { cx: x(marker.at), cy: PAD.top, r: 7 }),
        svg('text', { x: x(marker.at), y: PAD.top + 3.5, 'text-anchor': 'middle' }, String(marker.n)),
        svg('title', {}, marker.title),
      ),
    );
  }
  return chart;
}

function runs(points: readonly Point[]): Point[][] {
  const out: Point[][] = [];
  for (const p of points) {
    const run = out[out.length - 1];
    if (run && p.at - run[run.length - 1].at <= 1) {
      run.push(p);
    } else {
      out.push([p]);
    }
  }
  return out;
}

function path(points: readonly Point[], x: (slot: number) => number, y: (v: number) => number): string {
  return points.map((p) => `${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
}

export function formatTick(v: number): string {
  if (Math.abs(v) >= 1000) {
    return `${(v / 1000).toFixed(v >= 10_000 ? 0 : 1)}k`;
  }
  return Number.isInteger(v) ? String(v) : v < 1 ? `${(v * 100).toFixed(1)}%` : v.toFixed(1);
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above v (v > 0); 0 stays 0. */
function niceCeil(v: number): number {
  if (v <= 0) {
    return 0;
  }
  const step = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map((m) => m * step).find((n) => n >= v) ?? 10 * step;
}
