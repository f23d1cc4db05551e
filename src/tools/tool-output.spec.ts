import { describe, expect, it } from '@jest/globals';
import { fitToBudget, fitWrite, outputBytes, toolOutput } from './tool-output.js';

const long = (n: number, ch = 'x') => ch.repeat(n);

describe('fitWrite: a write that happened is reported as done', () => {
  it.each([
    ['a long text', toolOutput({ url: 'https://e.com/a', executed: true }, long(150_000))],
    [
      'a long structured value',
      toolOutput({ url: `https://e.com/${long(120_000)}`, executed: true }, `Notified https://e.com/${long(120_000)}.`),
    ],
    [
      'many long values',
      toolOutput(
        {
          results: Array.from({ length: 40 }, (_, i) => ({ sitemap_url: `https://e.com/${i}/${long(3_000)}`, submitted: i % 2 === 0 })),
          submitted_count: 20,
        },
        long(50_000),
      ),
    ],
    ['multi-byte text', toolOutput({ ok: true }, long(80_000, 'ü') + long(10, '😀'))],
  ])('%s: fits the budget, keeps every field and says it was cut', (_name, output) => {
    const fitted = fitWrite(output, 100_000);
    expect(outputBytes(fitted)).toBeLessThanOrEqual(100_000);
    expect(Object.keys(fitted.structured)).toEqual(Object.keys(output.structured));
    expect(fitted.text).toMatch(/cut to stay within the 100 kB result budget; the change was made/);
    expect(fitted.isError).toBeUndefined();
    // Booleans and numbers are facts: never cut.
    expect(JSON.stringify(fitted.structured).match(/true|false|\d+/g)?.length).toBeGreaterThan(0);
  });

  it('keeps the facts of each entry of a batch', () => {
    const results = Array.from({ length: 40 }, (_, i) => ({ sitemap_url: `https://e.com/${long(3_000)}/${i}`, submitted: i % 3 !== 0 }));
    const fitted = fitWrite(toolOutput({ results, submitted_count: 26 }, long(60_000)), 100_000);
    const kept = (fitted.structured as { results: { submitted: boolean }[] }).results;
    expect(kept.map((r) => r.submitted)).toEqual(results.map((r) => r.submitted));
    expect((fitted.structured as { submitted_count: number }).submitted_count).toBe(26);
  });

  it('never splits a surrogate pair', () => {
    const fitted = fitWrite(toolOutput({ ok: true }, long(60_000, '😀')), 100_000);
    expect(fitted.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('leaves an answer within the budget untouched', () => {
    const output = toolOutput({ ok: true }, 'short');
    expect(fitWrite(output, 100_000)).toBe(output);
  });
});

describe('fitToBudget (reads): drops whole entries, never cuts JSON', () => {
  it('keeps as many entries as fit and says how many were dropped', () => {
    const items = Array.from({ length: 100 }, (_, i) => `${i}:${long(2_000)}`);
    const out = fitToBudget(items, (kept, dropped) => toolOutput({ items: [...kept], dropped }, `${kept.length} shown`), 50_000);
    expect(outputBytes(out)).toBeLessThanOrEqual(50_000);
    const { items: kept, dropped } = out.structured as { items: string[]; dropped: number };
    expect(kept.length + dropped).toBe(100);
    expect(kept).toEqual(items.slice(0, kept.length));
  });
});
