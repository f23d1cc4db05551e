// Selecting on the Performance view's charts: a click picks one day (or hour),
// a drag picks a range, and the keyboard does both (arrows move, Shift+arrows
// extend, Enter or Space picks, Escape clears). Every chart shows the same
// selection; the view is told once per finished gesture (a keyboard range
// after a short pause), and tells the host (selection-context.ts).
import { PLOT, slotAt, slotEdges, W, xOf } from './chart.js';
import { svg } from './dom.js';

export interface Range {
  readonly from: number;
  readonly to: number;
}

interface Axis {
  readonly count: number;
  /** Slots a PageUp/PageDown moves (a week of days, a day of hours). */
  readonly page: number;
  label(slot: number): string;
}

const KEY_PAUSE_MS = 300;

export class ChartSelection {
  private range?: Range;
  private anchor?: number;
  private cursor = 0;
  private dragging = false;
  private timer?: ReturnType<typeof setTimeout>;
  private charts: SVGSVGElement[] = [];

  constructor(
    private readonly axis: Axis,
    private readonly onSelect: (range: Range | undefined) => void,
  ) {}

  get selected(): Range | undefined {
    return this.range;
  }

  /** Forgets the charts drawn so far (before the charts are drawn anew). */
  detachAll(): void {
    this.charts = [];
  }

  /** Makes a chart selectable (pointer and keyboard) and draws the selection on it. */
  attach(chart: SVGSVGElement, name: string): void {
    this.charts.push(chart);
    const what = this.axis.page === 24 ? 'hour' : 'day';
    chart.setAttribute('tabindex', '0');
    chart.setAttribute('role', 'application');
    chart.setAttribute('aria-roledescription', 'chart');
    chart.setAttribute(
      'aria-label',
      `${name}. Click a ${what} or drag across ${what}s to tell the assistant what you selected; keyboard: arrows move, Shift+arrows select a range, Enter selects the ${what}, Escape clears.`,
    );
    chart.append(
      svg('rect', { class: 'selection', y: PLOT.top, height: PLOT.height, x: 0, width: 0 }),
      svg('line', { class: 'cursor', y1: PLOT.top, y2: PLOT.top + PLOT.height, x1: 0, x2: 0 }),
    );
    chart.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) {
        return;
      }
      // The press itself focuses the chart (tabindex), so the keyboard carries on from the slot pressed.
      chart.setPointerCapture(event.pointerId);
      this.dragging = true;
      this.anchor = this.cursor = this.slotOf(chart, event.clientX);
      this.set({ from: this.anchor, to: this.anchor });
    });
    chart.addEventListener('pointermove', (event) => {
      if (this.dragging && this.anchor !== undefined) {
        this.cursor = this.slotOf(chart, event.clientX);
        this.set(ordered(this.anchor, this.cursor));
      }
    });
    const finish = () => {
      if (this.dragging) {
        this.dragging = false;
        this.commit();
      }
    };
    chart.addEventListener('pointerup', finish);
    chart.addEventListener('pointercancel', finish);
    chart.addEventListener('keydown', (event) => this.key(event));
    this.paint();
  }

  private key(event: KeyboardEvent): void {
    const last = this.axis.count - 1;
    const moves: Record<string, number> = {
      ArrowLeft: this.cursor - 1,
      ArrowRight: this.cursor + 1,
      PageUp: this.cursor - this.axis.page,
      PageDown: this.cursor + this.axis.page,
      Home: 0,
      End: last,
    };
    if (event.key in moves) {
      event.preventDefault();
      const next = Math.max(0, Math.min(last, moves[event.key]));
      if (event.shiftKey) {
        this.anchor ??= this.cursor;
        this.cursor = next;
        this.set(ordered(this.anchor, this.cursor));
        this.commitSoon();
      } else {
        this.anchor = undefined;
        this.cursor = next;
        this.paint();
      }
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      this.anchor = this.cursor;
      this.set({ from: this.cursor, to: this.cursor });
      this.commit();
    } else if (event.key === 'Escape' && this.range) {
      event.preventDefault();
      this.anchor = undefined;
      this.set(undefined);
      this.commit();
    }
  }

  private slotOf(chart: SVGSVGElement, clientX: number): number {
    const box = chart.getBoundingClientRect();
    return slotAt(((clientX - box.left) * W) / (box.width || W), this.axis.count);
  }

  private set(range: Range | undefined): void {
    this.range = range;
    this.paint();
  }

  private commitSoon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.commit(), KEY_PAUSE_MS);
  }

  private commit(): void {
    clearTimeout(this.timer);
    this.onSelect(this.range);
  }

  private paint(): void {
    for (const chart of this.charts) {
      const rect = chart.querySelector('rect.selection');
      const cursor = chart.querySelector('line.cursor');
      if (this.range) {
        const { x, width } = slotEdges(this.range.from, this.range.to, this.axis.count);
        rect?.setAttribute('x', String(x));
        rect?.setAttribute('width', String(width));
        rect?.setAttribute('data-from', this.axis.label(this.range.from));
        rect?.setAttribute('data-to', this.axis.label(this.range.to));
      } else {
        rect?.setAttribute('width', '0');
        rect?.removeAttribute('data-from');
        rect?.removeAttribute('data-to');
      }
      const cx = String(xOf(this.cursor, this.axis.count));
      cursor?.setAttribute('x1', cx);
      cursor?.setAttribute('x2', cx);
    }
  }
}

const ordered = (a: number, b: number): Range => ({ from: Math.min(a, b), to: Math.max(a, b) });
