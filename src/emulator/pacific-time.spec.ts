import { describe, expect, it } from '@jest/globals';
import { addDays, addMonths, isValidDate, pacificDate, pacificHourKey, pacificParts } from './pacific-time.js';

describe('pacific time', () => {
  it('puts a UTC instant on the Pacific calendar', () => {
    expect(pacificDate(new Date('2026-12-01T07:59:59Z'))).toBe('2026-11-30');
    expect(pacificDate(new Date('2026-12-01T08:00:00Z'))).toBe('2026-12-01');
    expect(pacificParts(new Date('2026-07-01T12:00:00Z'))).toEqual({ date: '2026-07-01', hour: 5, minute: 0, offsetMinutes: -420 });
  });

  it('labels hours with the offset in force, across both DST changes', () => {
    expect(pacificHourKey('2026-01-10', 5)).toBe('2026-01-10T05:00:00-08:00');
    expect(pacificHourKey('2026-07-10', 5)).toBe('2026-07-10T05:00:00-07:00');
    expect(pacificHourKey('2026-03-08', 1)).toBe('2026-03-08T01:00:00-08:00');
    expect(pacificHourKey('2026-03-08', 3)).toBe('2026-03-08T03:00:00-07:00');
    expect(pacificHourKey('2026-11-01', 0)).toBe('2026-11-01T00:00:00-07:00');
    expect(pacificHourKey('2026-11-01', 5)).toBe('2026-11-01T05:00:00-08:00');
  });

  it('does calendar arithmetic on date strings', () => {
    expect(isValidDate('2026-02-28')).toBe(true);
    expect(isValidDate('2026-02-29')).toBe(false);
    expect(isValidDate('2026-2-01')).toBe(false);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addMonths('2026-03-31', -1)).toBe('2026-02-28');
    expect(addMonths('2026-11-30', -16)).toBe('2025-07-30');
  });
});
