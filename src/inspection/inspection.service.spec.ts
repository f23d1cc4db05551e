import { describe, expect, it } from '@jest/globals';
import { FakeGoogle, googleError } from '../google/google-service.fake.js';
import { InspectionService, isDailyQuota } from './inspection.service.js';

const PROPERTY = 'https://www.example.com/';
const page = (i: number) => `${PROPERTY}p${i}`;

describe('InspectionService', () => {
  it('inspect sends the URL, the property and the language, and returns the inspectionResult', async () => {
    const google = new FakeGoogle().on('urlInspection.index.inspect', { inspectionResult: { indexStatusResult: { verdict: 'PASS' } } });
    expect(await new InspectionService(google.service).inspect(PROPERTY, page(1), 'fr')).toEqual({ indexStatusResult: { verdict: 'PASS' } });
    expect(google.calls[0].args).toEqual([{ requestBody: { inspectionUrl: page(1), siteUrl: PROPERTY, languageCode: 'fr' } }]);
  });

  it('inspectMany stops launching after a quota error Google says is daily', async () => {
    const google = new FakeGoogle().on('urlInspection.index.inspect', ({ requestBody }: { requestBody: { inspectionUrl: string } }) => {
      if (requestBody.inspectionUrl === page(1)) throw googleError('quota', { status: 429, quota: { window: 'day' } });
      return { inspectionResult: {} };
    });
    const outcomes = await new InspectionService(google.service).inspectMany(PROPERTY, [0, 1, 2, 3].map(page), undefined, 1);
    expect(outcomes.map((o) => o.state)).toEqual(['done', 'failed', 'skipped', 'skipped']);
  });

  it.each([
    ['a daily quota', googleError('quota', { status: 429, quota: { window: 'day' } }), true],
    ['a quota of an unsaid window (Google’s real 429)', googleError('quota', { status: 429, quota: {} }), false],
    ['a per-minute quota', googleError('quota', { status: 429, quota: { window: 'minute' } }), false],
    ['a 500', googleError('unavailable', { status: 500 }), false],
  ])('isDailyQuota: %s → %s', (_name, error, daily) => {
    expect(isDailyQuota(error)).toBe(daily);
  });
});
