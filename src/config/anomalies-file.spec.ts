import { describe, expect, it } from '@jest/globals';
import { parseAnomalies } from './anomalies-file.js';
import { ConfigError } from './config-error.js';

const entry = {
  id: 'image-clicks-2026',
  start_date: '2026-11-14',
  end_date: '2026-11-19',
  affected: ['clicks', 'ctr'],
  not_affected: ['position'],
  search_types: ['image'],
  source: 'https://support.google.com/webmasters/answer/6211453',
  sentence: 'Some image click data was dropped.',
};
const list = (anomalies: unknown[], extra: Record<string, unknown> = {}) => ({ version: 2, updated: '2026-12-05', anomalies, ...extra });

function refusal(document: unknown): string {
  try {
    parseAnomalies(document, 'GSC_ANOMALIES_FILE');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('\n');
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('parseAnomalies', () => {
  it('accepts a well-formed list, in its metrics order, with defaults', () => {
    const catalog = parseAnomalies(JSON.stringify(list([{ ...entry, affected: ['ctr', 'clicks'] }])), 'GSC_ANOMALIES_FILE');
    expect(catalog).toEqual({
      source: 'GSC_ANOMALIES_FILE',
      version: 2,
      updated: '2026-12-05',
      anomalies: [{ ...entry, affected: ['clicks', 'ctr'], end_approximate: false }],
    });
    expect(Object.isFrozen(catalog.anomalies[0])).toBe(true);
    expect(parseAnomalies(list([]), 'x').anomalies).toEqual([]);
  });

  it.each([
    ['not JSON', '{"version": 1,', /is not valid JSON/],
    ['a list', [entry], /must be a JSON object such as/],
    ['an unknown top-level key', list([entry], { anomaly: [] }), /unknown key "anomaly"; the keys are version, updated, anomalies/],
    ['no version', { updated: '2026-12-05', anomalies: [] }, /"version" must be a whole number from 1/],
    ['a bad updated date', list([], { updated: '2026-02-30' }), /"updated" must be the date/],
    ['an entry with an unknown key', list([{ ...entry, metrics: [] }]), /anomaly 1 \(image-clicks-2026\): unknown key "metrics"/],
    ['an id with capitals', list([{ ...entry, id: 'Image' }]), /anomaly 1: "id" must be lower-case letters/],
    ['the end before the start', list([{ ...entry, end_date: '2026-11-01' }]), /"end_date" 2026-11-01 is before "start_date" 2026-11-14/],
    [
      'an unknown metric',
      list([{ ...entry, affected: ['sessions'] }]),
      /"affected" must be a non-empty list of clicks, impressions, ctr, position/,
    ],
    ['no affected metric', list([{ ...entry, affected: [] }]), /"affected" must be a non-empty list/],
    ['a metric on both sides', list([{ ...entry, not_affected: ['ctr'] }]), /ctr is both affected and not affected/],
    ['an unknown search type', list([{ ...entry, search_types: ['shopping'] }]), /"search_types" must be a non-empty list of web, image/],
    ['an http source', list([{ ...entry, source: 'http://example.com/' }]), /"source" must be an https:\/\/ link/],
    ['a sentence with a line break', list([{ ...entry, sentence: 'a\nb' }]), /"sentence" must be one line of plain text/],
    [
      'an approximate end without an end',
      list([{ ...entry, end_date: undefined, end_approximate: true }]),
      /"end_approximate" needs an "end_date"/,
    ],
    ['one id twice', list([entry, { ...entry }]), /names the anomaly "image-clicks-2026" twice/],
  ])('refuses %s with one line naming what is wrong', (_name, document, says) => {
    expect(refusal(document)).toMatch(says);
  });
});
