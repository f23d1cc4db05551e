import { describe, expect, it } from '@jest/globals';
import { csvHeader, csvLine, decodeRow, encodeRow, ndjsonLine, parseExportFile } from './export-format.js';

const row = (keys: string[]) => ({ keys, clicks: 3, impressions: 40, ctr: 0.075, position: 7.123456789012345 });

describe('export rows', () => {
  it('round-trips a row through the store exactly, full precision included', () => {
    const r = row(['2026-11-01', 'caf\u00e9 "quoted", with comma\nand line']);
    expect(decodeRow(encodeRow(r))).toEqual(r);
  });

  it.each([
    ['plain text', 'widget pro', 'widget pro'],
    ['a comma', 'a, b', '"a, b"'],
    ['a quote', 'say "hi"', '"say ""hi"""'],
    ['a line break', 'one\ntwo', '"one\ntwo"'],
    ['a leading space', ' lead', '" lead"'],
    ['an apostrophe that starts a plain query', "'quoted", "'quoted"],
    ['a formula character inside the text', 'a=b+c-d@e', 'a=b+c-d@e'],
  ])('writes CSV fields as RFC 4180 does: %s', (_name, value, field) => {
    expect(csvLine(row([value]))).toBe(`${field},3,40,0.075,7.123456789012345\r\n`);
  });

  it.each([
    ['=', '=HYPERLINK("https://evil.example","x")', `"'=HYPERLINK(""https://evil.example"",""x"")"`],
    ['+', '+1+cmd', `"'+1+cmd"`],
    ['-', '-widget', `"'-widget"`],
    ['@', '@SUM(A1:A2)', `"'@SUM(A1:A2)"`],
    ['a tab', '\t=1+1', `"'\t=1+1"`],
    ['a carriage return', '\r=1+1', `"'\r=1+1"`],
  ])(
    'neutralises a text cell that starts with %s: quoted with a leading apostrophe, so a spreadsheet shows text',
    (_start, value, field) => {
      expect(csvLine(row(['2026-11-01', value]))).toBe(`2026-11-01,${field},3,40,0.075,7.123456789012345\r\n`);
    },
  );

  it('keeps NDJSON exactly as Google sent it, formula-looking text included', () => {
    const value = '=HYPERLINK("https://evil.example","x")';
    expect(JSON.parse(ndjsonLine(['query'], row([value]))).query).toBe(value);
  });

  it('names the columns by dimension, and NDJSON lines by dimension too', () => {
    expect(csvHeader(['date', 'query'])).toBe('date,query,clicks,impressions,ctr,position\r\n');
    expect(JSON.parse(ndjsonLine(['date', 'query'], row(['2026-11-01', 'q'])))).toEqual({
      date: '2026-11-01',
      query: 'q',
      clicks: 3,
      impressions: 40,
      ctr: 0.075,
      position: 7.123456789012345,
    });
  });

  it('accepts only its own file names', () => {
    expect(parseExportFile('0123456789abcdef01234567.csv')).toEqual({ id: '0123456789abcdef01234567', format: 'csv' });
    expect(parseExportFile('0123456789abcdef01234567.ndjson')?.format).toBe('ndjson');
    for (const bad of ['0123456789abcdef01234567.txt', '../x.csv', '0123456789ABCDEF01234567.csv', 'x.csv', '']) {
      expect(parseExportFile(bad)).toBeUndefined();
    }
  });
});
