import { describe, expect, it } from '@jest/globals';
import { FakeGoogle } from '../google/google-service.fake.js';
import { AnalyticsService } from './analytics.service.js';

const PROPERTY = 'sc-domain:example.com';

describe('AnalyticsService.query', () => {
  it('sends the request for the property and reads rows, aggregation and camelCase metadata (the discovery spelling)', async () => {
    const google = new FakeGoogle().on('searchanalytics.query', {
      rows: [{ keys: ['2026-11-01'], clicks: 3, impressions: 40, ctr: 0.075, position: 7.5 }],
      responseAggregationType: 'byProperty',
      metadata: { firstIncompleteDate: '2026-11-29' },
    });
    const request = { startDate: '2026-11-01', endDate: '2026-11-28', dimensions: ['date'], dataState: 'all' };
    const result = await new AnalyticsService(google.service).query(PROPERTY, request);
    expect(result).toEqual({ rows: [{ keys: ['2026-11-01'], clicks: 3, impressions: 40, ctr: 0.075, position: 7.5 }], aggregationType: 'byProperty', firstIncompleteDate: '2026-11-29' });
    expect(google.calls[0].args).toEqual([{ siteUrl: PROPERTY, requestBody: request }]);
  });

  it('reads the snake_case metadata of the prose reference too, and {} as no rows', async () => {
    const google = new FakeGoogle().on('searchanalytics.query', { metadata: { first_incomplete_hour: '2026-11-29T10:00:00-08:00' } });
    expect(await new AnalyticsService(google.service).query(PROPERTY, {})).toEqual({ rows: [], firstIncompleteHour: '2026-11-29T10:00:00-08:00' });
  });
});
