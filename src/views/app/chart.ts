// A daily line chart in hand-written SVG: one point per day, days Google is
// still collecting drawn hollow on a dashed segment, a second window overlaid
// as a dashed line aligned day by day.
import { svg } from './dom.js';

export interface Point {
  readonly date: string;
  readonly value: number;
  readonly incomplete?: boolean;
}

export interface ChartSeries {
  readonly name: 'current' | 'previous';
  readonly label: string;
  readonly points: readonly Point[];
}

const W = 640;
const H = 220;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

/** Draws the series; x is the day's index within its own window, so day i of the comparison sits over day i of the current one. */
export function lineChart(series: readonly ChartSeries[], metric: string, invert = false): SVGSVGElement {
  const all = series.flatMap((s) => s.points.map((p) => p.value));
  // Counts get a round top (971 → 1 000), so the middle grid line reads 500, not 485.5.
  const max = invert ? Math.max(...all, 0) : niceCeil(Math.max(...all, 0));
  const min = invert ? Math.min(...all, max) : 0;
  const span = max - min || 1;
  const days = Math.max(...series.map((s) => s.points.length), 2);
  const x = (i: number) => PAD.left + (i * (W - PAD.left - PAD.right)) / (days - 1);
  // Position: lower is better, so the axis runs downwards (1 at the top), as in Search Console.
  const y = (v: number) =>
    invert ? PAD.top + ((v - min) / span) * (H - PAD.top - PAD.bottom) : H - PAD.bottom - ((v - min) / span) * (H - PAD.top - PAD.bottom);

  const chart = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart',
    role: 'img',
    'aria-label': `${metric} per day`,
    'data-metric': metric,
  });
  for (const tick of [0, 0.5, 1]) {
    const v = min + span * tick;
    chart.appendChild(svg('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }));
    chart.appendChild(svg('text', { class: 'axis', x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, formatTick(v)));
  }
  const current = series.find((s) => s.name === 'current');
  if (current?.points.length) {
    const first = current.points[0];
    const last = current.points[current.points.length - 1];
    chart.appendChild(svg('text', { class: 'axis', x: x(0), y: H - 8 }, first.date));
    chart.appendChild(svg('text', { class: 'axis', x: x(current.points.length - 1), y: H - 8, 'text-anchor': 'end' }, last.date));
  }
  // The comparison first, so the current window is drawn on top.
  for (const s of [...series.filter((s) => s.name === 'previous'), ...series.filter((s) => s.name === 'current')]) {
    const group = svg('g', { class: `series ${s.name}`, 'data-series': s.name });
    const complete = s.points.filter((p) => !p.incomplete);
    group.appendChild(svg('polyline', { class: 'line', points: path(s.points, complete.length, x, y) }));
    const tail = s.points.slice(Math.max(complete.length - 1, 0));
    if (complete.length < s.points.length) {
      group.appendChild(
        svg('polyline', { class: 'line incomplete', points: path(tail, tail.length, x, y, Math.max(complete.length - 1, 0)) }),
      );
    }
    s.points.forEach((p, i) => {
      group.appendChild(
        svg(
          'circle',
          {
            class: p.incomplete ? 'point incomplete' : 'point',
            cx: x(i),
            cy: y(p.value),
            r: 3,
            'data-date': p.date,
            'data-value': p.value,
          },
          svg(
            'title',
            {},
            `${s.label} ${p.date}: ${formatTick(p.value)}${p.incomplete ? ' (incomplete: Google is still collecting this day)' : ''}`,
          ),
        ),
      );
    });
    chart.appendChild(group);
  }
  return chart;
}

function path(points: readonly Point[], n: number, x: (i: number) => number, y: (v: number) => number, offset = 0): string {
  return points
    .slice(0, n)
    .map((p, i) => `${x(i + offset).toFixed(1)},${y(p.value).toFixed(1)}`)
    .join(' ');
}

function formatTick(v: number): string {
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
