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

  // Google's 404 is no evidence that nothing was sent: it answers so right after a successful publish (PRODUCT §9a).
  it('answers a 404 as a normal result that reports Google’s answer, and never says "never sent"', async () => {
    const result = await legacy.call('get_indexing_status', { url: JOB });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ url: JOB, notified: false, google: { found: false }, sent_by_this_server: [] });
    const said = text(result);
    expect(said.split('\n')[0]).toBe(
      `${JOB}: no Indexing API notification known, neither in Google's history nor in this server's record.`,
    );
    expect(said).toMatch(/Google's own history: 404 "Requested entity was not found\." \(.*a 404 does not mean nothing was sent\)/);
    expect(said).toMatch(/This server's own record has no notification for this URL/);
    expect(said).not.toMatch(/never (been )?(sent|notified)|no (Indexing API )?notification was ever sent/i);
    expect(said).toMatch(/inspect_url/);
    expect(requests('urlNotifications.getMetadata').map((r) => r.status)).toEqual([404]);
  });

  it('says Owner access is needed when Google answers 403', async () => {
    const result = await client.call('get_indexing_status', { url: 'https://www.example.org/jobs/1' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Permission denied\. Failed to verify the URL ownership/);
    expect(text(result)).toMatch(
      /verified Owner of a Search Console property that contains the URL \(a Full or Restricted user is not enough\)/,
    );
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
    // The outcome for the URL first, in one line; the rest is short, and every detail is in structuredContent.
    expect(said.split('\n')[0]).toBe(
      `${JOB}: URL_UPDATED accepted by Google, sent at ${out.notify_time} (Google's answer did not echo it; this server's record keeps it). Do not send it again for the same change.`,
    );
    expect(said).toMatch(
      /only for pages with JobPosting or BroadcastEvent \(in a VideoObject\) structured data \(other pages: a sitemap, submit_sitemap\)/,
    );
    expect(said).toMatch(/left by this server's own count: \d+ of the default 200 today/);
    expect(said.split('\n').length).toBeLessThanOrEqual(3);
    const [publish] = requests('urlNotifications.publish');
    expect(publish.method).toBe('POST');
    expect(publish.body).toEqual({ url: JOB, type: 'URL_UPDATED' });

    const status = await client.call('get_indexing_status', { url: JOB });
    expect(status.structuredContent).toMatchObject({
      notified: true,
      latest_update: { type: 'URL_UPDATED', notify_time: out.notify_time },
    });
  });

  // Google's publish answer leaves both notifications out (the emulator's default, as Google often does), so the
  // earlier URL_UPDATED comes from this server's own record of sending it.
  it('publishes URL_DELETED', async () => {
    expect((await client.call('request_indexing', { url: 'https://www.example.com/jobs/senior-engineer' })).isError).toBeFalsy();
    google.emulator.clearLog();
    const result = await client.call('request_indexing', { url: 'https://www.example.com/jobs/senior-engineer', type: 'URL_DELETED' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      type: 'URL_DELETED',
      latest_remove: { type: 'URL_DELETED' },
      latest_update: { type: 'URL_UPDATED' },
    });
    expect(result.structuredContent!.notify_time).toBe(result.structuredContent!.latest_remove.notify_time);
    expect(requests('urlNotifications.publish')[0].body).toEqual({
      url: 'https://www.example.com/jobs/senior-engineer',
      type: 'URL_DELETED',
    });
  });

  it('after a publish Google forgets (404): get_indexing_status reports Google’s answer beside this server’s own record', async () => {
    const url = 'https://www.example.com/jobs/forgotten';
    const published = await client.call('request_indexing', { url });
    expect(published.structuredContent).toMatchObject({
      notify_time_source: 'this_server',
      recorded: true,
      latest_update: { source: 'this_server' },
    });
    const status = await legacy.call('get_indexing_status', { url });
    expect(requests('urlNotifications.getMetadata').map((r) => r.status)).toEqual([404]);
    expect(status.structuredContent).toEqual({
      url,
      notified: true,
      latest_update: { type: 'URL_UPDATED', notify_time: published.structuredContent!.notify_time, source: 'this_server' },
      google: { found: false },
      sent_by_this_server: [
        { type: 'URL_UPDATED', sent_at: published.structuredContent!.notify_time, principal: 'local', outcome: 'accepted' },
      ],
    });
    const said = text(status);
    expect(said.split('\n')[0]).toBe(
      `${url}: latest URL_UPDATED ${published.structuredContent!.notify_time} (this server's record); latest URL_DELETED none known.`,
    );
    expect(said).toMatch(/Google's own history: 404 .* a 404 does not mean nothing was sent/);
    expect(said).toContain(
      `This server's record: one notification, the newest URL_UPDATED at ${published.structuredContent!.notify_time} by local (each in sent_by_this_server).`,
    );
    expect(said).not.toMatch(/never (sent|notified)|was ever sent/i);
  });

  it('when Google remembers, its history and this server’s record are shown side by side, the newer one as latest', async () => {
    google.emulator.setIndexingBehaviour({ forgetful: false });
    const url = 'https://www.example.com/jobs/closed-role'; // Google has an older URL_UPDATED and URL_DELETED for it
    const published = await client.call('request_indexing', { url });
    expect(published.structuredContent).toMatchObject({
      notify_time_source: 'google',
      latest_update: { source: 'google' },
      latest_remove: { source: 'google' },
    });
    const status = await client.call('get_indexing_status', { url });
    const out = status.structuredContent!;
    expect(out.google.found).toBe(true);
    expect(out.google.latest_update.notify_time).toBe(published.structuredContent!.notify_time);
    expect(out.latest_update).toMatchObject({
      type: 'URL_UPDATED',
      source: 'google',
      notify_time: published.structuredContent!.notify_time,
    });
    expect(out.sent_by_this_server[0]).toMatchObject({
      type: 'URL_UPDATED',
      outcome: 'accepted',
      google_notify_time: published.structuredContent!.notify_time,
    });
  });

  it('carries quota_remaining: this server’s count of the project’s publishes today, a lower bound', async () => {
    const before = (await client.call('request_indexing', { url: `${JOB}-q1` })).structuredContent!.quota_remaining;
    const after = (await client.call('request_indexing', { url: `${JOB}-q2` })).structuredContent!.quota_remaining;
    expect(before).toMatchObject({ project: 'Google Cloud project demo-project', day: { limit: 200 }, lower_bound: true });
    expect(after.day.used).toBe(before.day.used + 1);
    expect(after.day.remaining).toBe(before.day.remaining - 1);
  });

  it('a publish whose answer is lost is recorded as such, so get_indexing_status can say Google may have it', async () => {
    google.emulator.injectFault({ route: 'urlNotifications.publish', status: 503, applied: true });
    const url = 'https://www.example.com/jobs/lost-answer';
    const result = await client.call('request_indexing', { url });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/This server recorded the attempt\. Check with get_indexing_status/);
    const status = await client.call('get_indexing_status', { url });
    expect(status.structuredContent).toMatchObject({ notified: true, sent_by_this_server: [{ type: 'URL_UPDATED', outcome: 'unknown' }] });
    expect(status.structuredContent!.latest_update).toBeUndefined();
    const sentAt = status.structuredContent!.sent_by_this_server[0].sent_at as string;
    expect(text(status).split('\n')[0]).toBe(
      `${url}: no notification Google is known to have; this server sent URL_UPDATED at ${sentAt}, but Google's answer was lost, so it may or may not have it.`,
    );
    expect(text(status)).toMatch(/for 1 of them Google's answer was lost, so it may or may not have them/);
  });

  it('both answers lead with one line for the URL, and every time, type and account they name is in structuredContent', async () => {
    const url = 'https://www.example.com/jobs/facts';
    await client.call('request_indexing', { url });
    const published = await client.call('request_indexing', { url, type: 'URL_DELETED' });
    const status = await client.call('get_indexing_status', { url });
    for (const result of [published, status]) {
      const said = text(result);
      expect(said.split('\n')[0].startsWith(`${url}: `)).toBe(true);
      const structured = JSON.stringify(result.structuredContent);
      for (const fact of said.match(/\d{4}-\d{2}-\d{2}T[\d:.]+Z|URL_(UPDATED|DELETED)|\blocal\b/g) ?? []) {
        expect(structured).toContain(fact);
      }
    }
    expect(text(status)).toContain("This server's record: 2 notifications, the newest URL_DELETED");
    expect(status.structuredContent!.sent_by_this_server).toHaveLength(2);
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
      expect(text(result)).toMatch(
        /200 publish requests \(URL_UPDATED and URL_DELETED together\) per day per Google Cloud project; the count resets at midnight Pacific Time/,
      );
      expect(requests('urlNotifications.publish').map((r) => r.status)).toEqual([200, 429]);
    } finally {
      limits.publishPerDay = saved;
    }
  });

  it('a 500 on publish is not retried, and the text says Google may or may not have recorded it', async () => {
    google.emulator.injectFault({ route: 'urlNotifications.publish', status: 500, times: 1 });
    const result = await client.call('request_indexing', { url: JOB });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /Google failed with HTTP 500 while sending the URL_UPDATED notification for https:\/\/www\.example\.com\/jobs\/staff-engineer, so Google may or may not have recorded it/,
    );
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
