import { describe, expect, it } from '@jest/globals';
import { UserFacingError } from '../common/user-facing-error.js';
import { pairWindows, retentionStart, trimPair, YEAR_OFFSET_DAYS } from './compare-windows.js';

const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();

describe('pairWindows', () => {
  const cases: Array<[string, { start: string; end: string }, Parameters<typeof pairWindows>[1], { start: string; end: string }, number]> =
    [
      [
        'previous_period of 7 days',
        { start: '2026-03-13', end: '2026-03-19' },
        'previous_period',
        { start: '2026-03-06', end: '2026-03-12' },
        7,
      ],
      [
        'previous_period of one day',
        { start: '2026-03-01', end: '2026-03-01' },
        'previous_period',
        { start: '2026-02-28', end: '2026-02-28' },
        1,
      ],
      [
        'previous_period across a year end',
        { start: '2026-01-01', end: '2026-01-31' },
        'previous_period',
        { start: '2025-12-01', end: '2025-12-31' },
        31,
      ],
      [
        'previous_year across spring-forward',
        { start: '2026-03-02', end: '2026-03-15' },
        'previous_year',
        { start: '2025-03-03', end: '2025-03-16' },
        YEAR_OFFSET_DAYS,
      ],
      [
        'previous_year across fall-back',
        { start: '2026-10-26', end: '2026-11-08' },
        'previous_year',
        { start: '2025-10-27', end: '2025-11-09' },
        YEAR_OFFSET_DAYS,
      ],
      [
        'previous_year over 29 February',
        { start: '2028-02-26', end: '2028-03-03' },
        'previous_year',
        { start: '2027-02-27', end: '2027-03-05' },
        YEAR_OFFSET_DAYS,
      ],
      [
        'a later window of its own',
        { start: '2026-01-01', end: '2026-01-07' },
        { start_date: '2026-02-01', end_date: '2026-02-07' },
        { start: '2026-02-01', end: '2026-02-07' },
        -31,
      ],
    ];
  it.each(cases)('%s', (_name, current, compare, previous, offset) => {
    const pair = pairWindows(current, compare);
    expect(pair.previous).toEqual(previous);
    expect(pair.offsetDays).toBe(offset);
    if (compare === 'previous_year') {
      expect(weekday(pair.previous.start)).toBe(weekday(current.start));
      expect(weekday(pair.previous.end)).toBe(weekday(current.end));
    }
  });

  it.each([
    [{ start_date: '2026-01-01', end_date: '2026-01-30' }, /has 30 days and the current window .* has 28/],
    [{ start_date: '2026-02-10', end_date: '2026-03-09' }, /overlaps/],
    [{ end_date: '2026-01-28' }, /needs both/],
    [{ start_date: '2026-01-28', end_date: '2026-01-01' }, /before compare.start_date/],
  ])('refuses %j', (compare, message) => {
    expect(() => pairWindows({ start: '2026-02-01', end: '2026-02-28' }, compare)).toThrow(UserFacingError);
    expect(() => pairWindows({ start: '2026-02-01', end: '2026-02-28' }, compare)).toThrow(message);
  });
});

describe('trimPair', () => {
  it('leaves out the days that cannot be compared from both windows, keeping day i against day i', () => {
    const pair = pairWindows({ start: '2026-03-13', end: '2026-03-19' }, 'previous_period');
    const trimmed = trimPair(pair, '2024-11-20', '2026-03-18')!;
    expect(trimmed.pair.current).toEqual({ start: '2026-03-13', end: '2026-03-17' });
    expect(trimmed.pair.previous).toEqual({ start: '2026-03-06', end: '2026-03-10' });
    expect(trimmed.leftOut).toEqual([
      { window: 'current', start_date: '2026-03-18', end_date: '2026-03-19', reason: 'not_final' },
      // Final days, left out only because their counterparts are not: never "still being collected".
      { window: 'previous', start_date: '2026-03-11', end_date: '2026-03-12', reason: 'not_in_other_window' },
    ]);
  });

  it('cuts the start where the earlier window is older than retention', () => {
    const pair = pairWindows({ start: '2025-01-01', end: '2025-01-10' }, 'previous_year');
    const trimmed = trimPair(pair, '2024-01-05', '2026-01-01')!;
    expect(trimmed.pair.previous.start).toBe('2024-01-05');
    expect(trimmed.pair.current.start).toBe('2025-01-03');
    expect(trimmed.leftOut).toEqual([
      { window: 'current', start_date: '2025-01-01', end_date: '2025-01-02', reason: 'not_in_other_window' },
      { window: 'previous', start_date: '2024-01-03', end_date: '2024-01-04', reason: 'outside_retention' },
    ]);
  });

  it('gives each run its own reason when one window is cut at both ends', () => {
    // A year back from a window that reaches today: the previous window starts before retention, the current one ends unfinished.
    const pair = pairWindows({ start: '2025-01-01', end: '2025-01-10' }, 'previous_year');
    const trimmed = trimPair(pair, '2024-01-05', '2025-01-09')!;
    expect(trimmed.leftOut).toEqual([
      { window: 'current', start_date: '2025-01-01', end_date: '2025-01-02', reason: 'not_in_other_window' },
      { window: 'current', start_date: '2025-01-09', end_date: '2025-01-10', reason: 'not_final' },
      { window: 'previous', start_date: '2024-01-03', end_date: '2024-01-04', reason: 'outside_retention' },
      { window: 'previous', start_date: '2024-01-11', end_date: '2024-01-12', reason: 'not_in_other_window' },
    ]);
  });

  it('answers undefined when no day is left', () => {
    expect(
      trimPair(pairWindows({ start: '2026-03-19', end: '2026-03-19' }, 'previous_period'), '2024-01-01', '2026-03-18'),
    ).toBeUndefined();
  });

  it('takes retention as 16 months before the Pacific today', () => {
    expect(retentionStart('2026-03-20')).toBe('2024-11-20');
  });
});
