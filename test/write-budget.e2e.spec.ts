import { describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { text } from './support/clients.js';
import { useStack } from './support/stack.js';

// A write that happened is reported as done, however long its answer (issue 8,
// item 4): following a "nothing was changed, call again" would send the change
// twice — against a 200-a-day quota for the Indexing API.

const { google, client, legacy } = useStack();
const bytes = (result: { content: { text?: string }[]; structuredContent?: unknown }) =>
  Buffer.byteLength(JSON.stringify(result.structuredContent ?? {})) + Buffer.byteLength(text(result as never));

describe.each([
  ['2026-07-28', () => client],
  ['2025-11-25', () => legacy],
] as const)('over %s', (_revision, who) => {
  it('request_indexing with a very long URL: notified once, answered as done within 100 kB', async () => {
    const url = `https://www.example.com/jobs/${'a'.repeat(60_000)}`;
    const result = await who().call('request_indexing', { url });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ type: 'URL_UPDATED' });
    expect(bytes(result)).toBeLessThanOrEqual(100_000);
    expect(text(result)).toMatch(/the change was made/);
    expect(google.emulator.apiRequests().filter((r) => r.route === 'urlNotifications.publish')).toHaveLength(1);
  });

  it('submit_sitemaps with 40 long URLs: every submission reported, within 100 kB', async () => {
    const urls = Array.from({ length: 40 }, (_, i) => `https://www.example.com/sitemaps/${i}-${'s'.repeat(2_400)}.xml`);
    const result = await who().call('submit_sitemaps', { site_url: SEED_PROPERTIES.owned, sitemap_urls: urls });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ submitted_count: 40, failed_count: 0 });
    expect((result.structuredContent!.results as unknown[]).length).toBe(40);
    expect(bytes(result)).toBeLessThanOrEqual(100_000);
    // Google may answer a burst with 429 and a retry; what counts is 40 accepted submissions, one each.
    const accepted = google.emulator.apiRequests().filter((r) => r.route === 'sitemaps.submit' && r.status === 200);
    expect(accepted).toHaveLength(40);
    expect(new Set(accepted.map((r) => r.params.feedpath)).size).toBe(40);
  });
});
