import { describe, expect, it } from '@jest/globals';
import { addMonths, isCalendarDate, pacificDate, resolvePeriod } from './pacific-period.js';

describe('pacificDate', () => {
  it('is the Pacific calendar date, not the UTC one', () => {
    expect(pacificDate(new Date('2026-03-08T07:30:00Z'))).toBe('2026-03-07'); // 23:30 PST
    expect(pacificDate(new Date('2026-03-08T08:00:00Z'))).toBe('2026-03-08'); // 00:00 PST
  });

  it('follows daylight saving time in both directions', () => {
    // Spring forward on 2026-03-08: from then on Pacific is UTC-7.
    expect(pacificDate(new Date('2026-03-09T07:30:00Z'))).toBe('2026-03-09'); // 00:30 PDT (PST would say 03-08)
    expect(pacificDate(new Date('2026-03-09T06:30:00Z'))).toBe('2026-03-08'); // 23:30 PDT
    // Fall back on 2026-11-01: Pacific is UTC-8 again.
    expect(pacificDate(new Date('2026-11-02T07:30:00Z'))).toBe('2026-11-01'); // 23:30 PST (PDT would say 11-02)
    expect(pacificDate(new Date('2026-11-01T07:30:00Z'))).toBe('2026-11-01'); // 00:30 PDT
  });
});

describe('resolvePeriod', () => {
  const at = new Date('2026-03-08T07:30:00Z'); // Pacific: Saturday 2026-03-07, 23:30

  it('today and yesterday are single Pacific days', () => {
    expect(resolvePeriod('today', at)).toEqual({ start: '2026-03-07', end: '2026-03-07' });
    expect(resolvePeriod('yesterday', at)).toEqual({ start: '2026-03-06', end: '2026-03-06' });
  });

  it('lastNdays is the N whole days ending yesterday', () => {
    expect(resolvePeriod('last7days', at)).toEqual({ start: '2026-02-28', end: '2026-03-06' });
    expect(resolvePeriod('last28days', at)).toEqual({ start: '2026-02-07', end: '2026-03-06' });
  });

  it('lastNmonths runs from the same day N months back to yesterday', () => {
    expect(resolvePeriod('last3months', at)).toEqual({ start: '2025-12-07', end: '2026-03-06' });
    expect(resolvePeriod('last6months', at)).toEqual({ start: '2025-09-07', end: '2026-03-06' });
    expect(resolvePeriod('last12months', at)).toEqual({ start: '2025-03-07', end: '2026-03-06' });
    expect(resolvePeriod('last16months', at)).toEqual({ start: '2024-11-07', end: '2026-03-06' });
  });

  it('crosses the spring-forward night on the Pacific calendar', () => {
    const justAfterMidnightPdt = new Date('2026-03-09T07:05:00Z');
    expect(resolvePeriod('yesterday', justAfterMidnightPdt)).toEqual({ start: '2026-03-08', end: '2026-03-08' });
    expect(resolvePeriod('last7days', justAfterMidnightPdt)).toEqual({ start: '2026-03-02', end: '2026-03-08' });
  });
});

describe('calendar helpers', () => {
  it('clamps month arithmetic to the last day of the month', () => {
    expect(addMonths('2026-03-31', -1)).toBe('2026-02-28');
    expect(addMonths('2024-03-31', -1)).toBe('2024-02-29');
    expect(addMonths('2026-01-15', -3)).toBe('2025-10-15');
  });

  it('accepts only real YYYY-MM-DD dates', () => {
    expect(isCalendarDate('2026-02-28')).toBe(true);
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-2-28')).toBe(false);
    expect(isCalendarDate('28/02/2026')).toBe(false);
  });
});
