import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '../../test/support/seeded-random.js';
import { type KnownAnomaly, parseAnomalies } from '../config/anomalies-file.js';
import { anomalyFacts, builtInAnomalies } from './known-anomalies.js';
import { addDays } from './pacific-period.js';

const LOGGING = builtInAnomalies().anomalies[0];

describe('the built-in list', () => {
  it('passes the strict check and starts with the impressions logging error', () => {
    const catalog = builtInAnomalies();
    expect(catalog.version).toBeGreaterThanOrEqual(1);
    expect(LOGGING).toMatchObject({
      id: 'impressions-logging-error-2025',
      start_date: '2025-05-13',
      end_date: '2026-04-27',
      end_approximate: true,
      affected: ['impressions', 'ctr', 'position'],
      not_affected: ['clicks'],
      backfilled: false,
    });
    expect(LOGGING.source).toMatch(/^https:\/\/support\.google\.com\//);
  });
});

describe('anomalyFacts', () => {
  it('names the affected metrics and the days of the window inside the anomaly', () => {
    const { structured, lines } = anomalyFacts([LOGGING], { range: { start: '2026-03-28', end: '2026-05-22' }, type: 'web' });
    expect(structured).toHaveLength(1);
    expect(structured[0].overlap).toEqual({ start_date: '2026-03-28', end_date: '2026-04-27', days: 31, window_days: 56 });
    expect(structured[0].summary).toBe(
      'impressions, CTR and position are unreliable for 31 of 56 days (2026-03-28 to 2026-04-27); clicks are fine.',
    );
    expect(lines).toEqual([
      `- Known anomaly (impressions-logging-error-2025, 2025-05-13 to about 2026-04-27): ${structured[0].summary} ${LOGGING.sentence} Source: ${LOGGING.source}`,
    ]);
  });

  it('says which side of a comparison straddling the fix is affected', () => {
    const { structured } = anomalyFacts([LOGGING], {
      range: { start: '2026-05-01', end: '2026-05-28' },
      previous: { start: '2026-04-03', end: '2026-04-30' },
      type: 'web',
    });
    expect(structured[0].overlap).toBeUndefined();
    expect(structured[0].previous_overlap).toEqual({ start_date: '2026-04-03', end_date: '2026-04-27', days: 25, window_days: 28 });
    expect(structured[0].summary).toBe(
      'impressions, CTR and position are unreliable for 25 of 28 days of the previous window (2026-04-03 to 2026-04-27). ' +
        "The current window is not affected. The windows are affected unequally, so a change in impressions, CTR and position between them may come from the anomaly or Google's fix, not from the site. " +
        'Clicks are fine.',
    );
  });

  it('keeps to the search types an anomaly names, and an open anomaly runs to the window end', () => {
    const images: KnownAnomaly = { ...LOGGING, id: 'image-clicks', end_date: undefined, end_approximate: false, search_types: ['image'] };
    const range = { start: '2026-11-01', end: '2026-11-28' };
    expect(anomalyFacts([images], { range, type: 'web' }).structured).toEqual([]);
    const [fact] = anomalyFacts([images], { range, type: 'image' }).structured;
    expect(fact.overlap).toEqual({ start_date: '2026-11-01', end_date: '2026-11-28', days: 28, window_days: 28 });
    expect(fact.end_date).toBeUndefined();
    expect(anomalyFacts([images], { range, type: 'image' }).lines[0]).toContain('from 2025-05-13, no fix announced yet');
  });
});

/** Day by day, with no interval arithmetic: the days of a window inside [start, end]. */
function daysInside(window: { start: string; end: string }, anomaly: { start_date: string; end_date?: string }): number {
  let n = 0;
  for (let d = window.start; d <= window.end; d = addDays(d, 1)) {
    if (d >= anomaly.start_date && (anomaly.end_date === undefined || d <= anomaly.end_date)) {
      n++;
    }
  }
  return n;
}

describe('property: every answer whose window overlaps an anomaly carries it, and no other does', () => {
  it('holds over random windows and comparisons (seeded; ANOMALY_SEED repeats a run)', () => {
    const { seed, random } = seededRandom('ANOMALY_SEED', 'known-anomalies property test');
    const pick = (n: number) => Math.floor(random() * n);
    const catalog = parseAnomalies(
      {
        version: 1,
        updated: '2026-12-05',
        anomalies: [
          { ...LOGGING },
          {
            id: 'short-one',
            start_date: '2026-08-10',
            end_date: '2026-08-12',
            affected: ['clicks'],
            source: 'https://example.com/a',
            sentence: 'Two days of clicks were dropped.',
          },
        ],
      },
      'test list',
    );
    let overlapping = 0;
    let clear = 0;
    for (let i = 0; i < 3000; i++) {
      const start = addDays('2024-12-01', pick(1000));
      const range = { start, end: addDays(start, pick(i % 3 === 0 ? 400 : 60)) };
      const length = Math.round((Date.parse(range.end) - Date.parse(range.start)) / 86_400_000) + 1;
      const previous = i % 2 ? { start: addDays(range.start, -length - pick(400)), end: '' } : undefined;
      if (previous) {
        previous.end = addDays(previous.start, length - 1);
      }
      const { structured, lines } = anomalyFacts(catalog.anomalies, { range, previous, type: 'web' });
      for (const anomaly of catalog.anomalies) {
        const here = daysInside(range, anomaly);
        const there = previous ? daysInside(previous, anomaly) : 0;
        const fact = structured.find((f) => f.id === anomaly.id);
        const context = `seed ${seed}, window ${range.start}..${range.end}${previous ? ` vs ${previous.start}..${previous.end}` : ''}, ${anomaly.id}`;
        if (here + there > 0) {
          overlapping++;
          expect({ context, carried: !!fact }).toEqual({ context, carried: true });
          expect({ context, days: fact!.overlap?.days ?? 0, previous: fact!.previous_overlap?.days ?? 0 }).toEqual({
            context,
            days: here,
            previous: there,
          });
          expect(lines.some((l) => l.includes(`(${anomaly.id},`) && l.includes(fact!.summary))).toBe(true);
        } else {
          clear++;
          expect({ context, carried: !!fact }).toEqual({ context, carried: false });
        }
      }
      expect(lines).toHaveLength(structured.length);
    }
    // Both kinds were drawn, many times.
    expect(overlapping).toBeGreaterThan(500);
    expect(clear).toBeGreaterThan(500);
  });
});
