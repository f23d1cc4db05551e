import { describe, expect, it } from '@jest/globals';
import { text } from './support/clients.js';
import { useStack } from './support/stack.js';

const JOB = 'https://www.example.com/jobs/staff-engineer';

const { google, client, legacy } = useStack();

const requests = (route: string) => google.emulator.apiRequests().filter((r) => r.route === route);

describe('get_indexing_status', () => {
  it('returns the notification history when Google has it, and says it is not index status', async () => {
    // Google's getMetadata usually forgets (the emulator's default); this is the case where it remembers.
    google.emulator.setIndexingBehaviour({ forgetful: false });
    const result = await client.call('get_indexing_status', { url: 'https://www.example.com/jobs/closed-role' });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out).toMatchObject({
      url: 'https://www.example.com/jobs/closed-role',
      notified: true,
      latest_update: { type: 'URL_UPDATED' },
      latest_remove: { type: 'URL_DELETED' },
    });
    expect(Date.parse(out.latest_remove.notify_time)).toBeGreaterThan(Date.parse(out.latest_update.notify_time));
    expect(text(result)).toMatch(/not index status: inspect_url shows whether Google indexed the page/);
    expect(requests('urlNotifications.getMetadata')[0].query.url).toBe('https://www.example.com/jobs/closed-role');
  });

  it('answers a 404 as a normal result: never notified', async () => {
    const result = await legacy.call('get_indexing_status', { url: JOB });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ url: JOB, notified: false });
    expect(text(result)).toMatch(/^No Indexing API notification was ever sent for https:\/\/www\.example\.com\/jobs\/staff-engineer/);
    expect(text(result)).toMatch(/inspect_url/);
    expect(requests('urlNotifications.getMetadata').map((r) => r.status)).toEqual([404]);
  });

  it('says Owner access is needed when Google answers 403', async () => {
    const result = await client.call('get_indexing_status', { url: 'https://www.example.org/jobs/1' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Permission denied\. Failed to verify the URL ownership/);
    expect(text(result)).toMatch(/verified Owner of a Search Console property that contains the URL \(a Full or Restricted user is not enough\)/);
  });
});

describe('request_indexing', () => {
  it('publishes URL_UPDATED by default; get_indexing_status then shows it', async () => {
    const result = await client.call('request_indexing', { url: JOB });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out).toMatchObject({ url: JOB, type: 'URL_UPDATED', latest_update: { type: 'URL_UPDATED' } });
    expect(out.notify_time).toBe(out.latest_update.notify_time);
    const said = text(result);
    expect(said).toMatch(/only for pages with JobPosting or BroadcastEvent \(in a VideoObject\) structured data/);
    expect(said).toMatch(/use a sitemap \(submit_sitemap\)/);
    expect(said).toMatch(/Owner access/);
    expect(said).toMatch(/200-per-day publish quota/);
    const [publish] = requests('urlNotifications.publish');
    expect(publish.method).toBe('POST');
    expect(publish.body).toEqual({ url: JOB, type: 'URL_UPDATED' });

    const status = await client.call('get_indexing_status', { url: JOB });
    expect(status.structuredContent).toMatchObject({ notified: true, latest_update: { type: 'URL_UPDATED', notify_time: out.notify_time } });
  });

  it('publishes URL_DELETED', async () => {
    const result = await client.call('request_indexing', { url: 'https://www.example.com/jobs/senior-engineer', type: 'URL_DELETED' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ type: 'URL_DELETED', latest_remove: { type: 'URL_DELETED' }, latest_update: { type: 'URL_UPDATED' } });
    expect(result.structuredContent!.notify_time).toBe(result.structuredContent!.latest_remove.notify_time);
    expect(requests('urlNotifications.publish')[0].body).toEqual({ url: 'https://www.example.com/jobs/senior-engineer', type: 'URL_DELETED' });
  });

  it('declares itself not idempotent', async () => {
    const tool = (await client.listTools()).find((t) => t.name === 'request_indexing');
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
  });

  it('a Restricted user (not Owner) gets a 403 sentence saying Owner access is needed', async () => {
    const result = await client.call('request_indexing', { url: 'https://www.example.org/jobs/1' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Nothing was changed/);
    expect(text(result)).toMatch(/verified Owner of a Search Console property that contains the URL/);
  });

  it('the daily quota (429) is told as the 200-per-day publish quota, resetting at midnight Pacific Time', async () => {
    const limits = google.emulator.quotaLimits;
    const saved = limits.publishPerDay;
    limits.publishPerDay = 1;
    try {
      expect((await client.call('request_indexing', { url: JOB })).isError).toBeFalsy();
      const result = await client.call('request_indexing', { url: `${JOB}-2` });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/daily quota is exhausted/);
      expect(text(result)).toMatch(/200 publish requests \(URL_UPDATED and URL_DELETED together\) per day per Google Cloud project; the count resets at midnight Pacific Time/);
      expect(requests('urlNotifications.publish').map((r) => r.status)).toEqual([200, 429]);
    } finally {
      limits.publishPerDay = saved;
    }
  });

  it('a 500 on publish is not retried, and the text says Google may or may not have recorded it', async () => {
    google.emulator.injectFault({ route: 'urlNotifications.publish', status: 500, times: 1 });
    const result = await client.call('request_indexing', { url: JOB });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Google failed with HTTP 500 while sending the URL_UPDATED notification for https:\/\/www\.example\.com\/jobs\/staff-engineer, so Google may or may not have recorded it/);
    expect(text(result)).toMatch(/Check with get_indexing_status .* before sending it again/);
    expect(requests('urlNotifications.publish')).toHaveLength(1);
  });

  it('a 429 with Retry-After on publish is not retried either', async () => {
    google.emulator.injectFault({ route: 'urlNotifications.publish', status: 429, retryAfter: 1, times: 1 });
    const result = await client.call('request_indexing', { url: JOB });
    expect(result.isError).toBe(true);
    expect(requests('urlNotifications.publish')).toHaveLength(1);
  });

  it.each([
    ['a non-http URL', 'ftp://www.example.com/jobs/1'],
    ['a URL with user info', 'https://user@www.example.com/jobs/1'],
    ['a relative URL', '/jobs/1'],
  ])('refuses %s with nothing sent', async (_what, url) => {
    for (const tool of ['request_indexing', 'get_indexing_status']) {
      const result = await client.call(tool, { url });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/Nothing was sent to Google/);
    }
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });
});
