import { describe, expect, it } from '@jest/globals';
import { FakeGoogle } from '../google/google-service.fake.js';
import type { ReportRequest } from './analytics-request.js';
import { AnalyticsService } from './analytics.service.js';

const PROPERTY = 'sc-domain:example.com';

function request(overrides: Partial<ReportRequest> = {}): ReportRequest {
  return {
    site: PROPERTY,
    range: { start: '2026-11-01', end: '2026-11-28' },
    today: '2026-12-01',
    dimensions: [],
    type: 'web',
    dataState: 'final',
    filters: [],
    rowLimit: 100,
    startRow: 0,
    ...overrides,
  };
}

describe('AnalyticsService.query', () => {
  it('sends the request for the property and reads rows, aggregation and camelCase metadata (the discovery spelling)', async () => {
    const google = new FakeGoogle().on('searchanalytics.query', {
      rows: [{ keys: ['2026-11-01'], clicks: 3, impressions: 40, ctr: 0.075, position: 7.5 }],
      responseAggregationType: 'byProperty',
      metadata: { firstIncompleteDate: '2026-11-29' },
    });
    const result = await new AnalyticsService(google.service).query(
      request({ dimensions: ['date'], dataState: 'all', filters: [{ dimension: 'query', operator: 'contains', expression: 'shoes' }] }),
    );
    expect(result).toEqual({
      rows: [{ keys: ['2026-11-01'], clicks: 3, impressions: 40, ctr: 0.075, position: 7.5 }],
      aggregationType: 'byProperty',
      firstIncompleteDate: '2026-11-29',
    });
    expect(google.calls[0].args).toEqual([
      {
        siteUrl: PROPERTY,
        requestBody: {
          startDate: '2026-11-01',
          endDate: '2026-11-28',
          dimensions: ['date'],
          type: 'web',
          dataState: 'all',
          dimensionFilterGroups: [{ groupType: 'and', filters: [{ dimension: 'query', operator: 'contains', expression: 'shoes' }] }],
          rowLimit: 100,
          startRow: 0,
        },
      },
    ]);
  });

  it('reads the snake_case metadata of the prose reference too, and {} as no rows', async () => {
    const google = new FakeGoogle().on('searchanalytics.query', { metadata: { first_incomplete_hour: '2026-11-29T10:00:00-08:00' } });
    expect(await new AnalyticsService(google.service).query(request())).toEqual({
      rows: [],
      firstIncompleteHour: '2026-11-29T10:00:00-08:00',
    });
  });
});
