import { describe, expect, it } from '@jest/globals';
import { byImportance, joinRows } from './analytics-compare.js';

const row = (keys: string[], clicks: number) => ({ keys, clicks, impressions: clicks * 10, ctr: 0.1, position: 3 });

describe('joinRows', () => {
  it('joins on keys, shifts dates by the offset, and never invents a zero', () => {
    const current = [row(['2026-03-13', 'a'], 10), row(['2026-03-13', 'b'], 5)];
    const previous = [row(['2026-03-06', 'a'], 4), row(['2026-03-06', 'c'], 7)];
    const joined = joinRows(['date', 'query'], current, previous, 7, { current: true, previous: true });
    expect(joined).toEqual([
      {
        keys: ['2026-03-13', 'a'],
        current: expect.objectContaining({ clicks: 10 }),
        previous: expect.objectContaining({ keys: ['2026-03-06', 'a'], clicks: 4 }),
        movement: 6,
      },
      { keys: ['2026-03-13', 'b'], current: expect.objectContaining({ clicks: 5 }), onlyIn: 'current', movement: 5 },
      {
        keys: ['2026-03-13', 'c'],
        previous: expect.objectContaining({ keys: ['2026-03-06', 'c'], clicks: 7 }),
        onlyIn: 'previous',
        movement: -7,
      },
    ]);
  });

  it('says "not listed" rather than "only in" when the other window\'s list was cut', () => {
    const joined = joinRows(['query'], [row(['a'], 1)], [row(['b'], 2)], 28, { current: false, previous: false });
    expect(joined.map((r) => [r.keys[0], r.onlyIn, r.notListedIn])).toEqual([
      ['a', undefined, 'previous'],
      ['b', undefined, 'current'],
    ]);
  });
});

describe('byImportance', () => {
  it('alternates the biggest gains and losses, then the keys that did not move', () => {
    const rows = [3, -10, 0, 8, -1, 5].map((m, i) => ({ keys: [`k${i}`], movement: m, current: row([`k${i}`], 1) }));
    expect(byImportance(rows).map((r) => r.movement)).toEqual([8, -10, 5, -1, 3, 0]);
  });
});
