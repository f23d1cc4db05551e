import { describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, text } from './support/clients.js';
import { useStack } from './support/stack.js';

const OWNED = SEED_PROPERTIES.owned; // https://www.example.com/
const INDEX = 'https://www.example.com/sitemap_index.xml';
const NEWS = 'https://www.example.com/news-sitemap.xml';

const { google, server, client, legacy } = useStack();

const requests = (route: string) => google.emulator.apiRequests().filter((r) => r.route === route);
const sitemapRequests = () => google.emulator.apiRequests().filter((r) => r.route.startsWith('sitemaps.'));

describe('list_sitemaps', () => {
  it('lists submitted sitemaps with int64 counts as numbers and says how to list an index', async () => {
    const result = await client.call('list_sitemaps', { site_url: OWNED });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out.untrusted).toBe(true);
    expect(out.sitemaps.map((s: any) => s.path).sort()).toEqual(['https://www.example.com/feed.xml', NEWS, INDEX].sort());
    const news = out.sitemaps.find((s: any) => s.path === NEWS);
    expect(news).toMatchObject({ errors: 2, warnings: 4, is_pending: false, is_sitemaps_index: false, type: 'sitemap' });
    // Counted from the pages of the seed world it lists: the AMP launch story and the three blog posts. The emulator
    // sends Google's deprecated indexed as "0"; it is no figure, so the answer leaves it out (issue 32 item 6).
    expect(news.contents).toEqual([
      { type: 'web', submitted: 4 },
      { type: 'news', submitted: 4 },
    ]);
    expect(typeof news.last_downloaded).toBe('string');
    const index = out.sitemaps.find((s: any) => s.path === INDEX);
    expect(index.is_sitemaps_index).toBe(true);
    const feed = out.sitemaps.find((s: any) => s.path.endsWith('feed.xml'));
    expect(feed).toMatchObject({ is_pending: true, type: 'rssFeed', errors: 0, warnings: 0, contents: [] });
    expect(feed.last_downloaded).toBeUndefined();
    const said = text(result);
    expect(said).toContain(
      `${INDEX} is a sitemap index: its child sitemaps are not listed here; call list_sitemaps with sitemap_index "${INDEX}"`,
    );
    expect(said).toMatch(/2 errors, 4 warnings/);
    expect(said).toMatch(/individual errors are listed in the Search Console web interface/);
    expect(said).toMatch(/is_pending: true means/);
    expect(requests('sitemaps.list')).toHaveLength(1);
    expect(requests('sitemaps.list')[0].query.sitemapIndex).toBeUndefined();
  });

  it('lists the children of a sitemap index', async () => {
    const result = await client.call('list_sitemaps', { site_url: OWNED, sitemap_index: INDEX });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.sitemap_index).toBe(INDEX);
    expect(result.structuredContent!.sitemaps.map((s: any) => s.path)).toEqual([
      'https://www.example.com/post-sitemap.xml',
      'https://www.example.com/page-sitemap.xml',
    ]);
    expect(result.structuredContent!.sitemaps[0].last_submitted).toBeUndefined();
    expect(text(result)).toContain(`2 sitemaps listed in the index ${INDEX}`);
    expect(requests('sitemaps.list')[0].query.sitemapIndex).toBe(INDEX);
  });

  it('answers Google’s {} with a clear "no sitemaps submitted"', async () => {
    const result = await client.call('list_sitemaps', { site_url: SEED_PROPERTIES.subPath });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ site_url: SEED_PROPERTIES.subPath, sitemaps: [], untrusted: true });
    expect(text(result)).toMatch(/^No sitemaps submitted for https:\/\/www\.example\.com\/shop\/\. Submit one with submit_sitemap/);
  });

  it('refuses a sitemap_index that is not an http(s) URL without calling Google', async () => {
    const result = await client.call('list_sitemaps', { site_url: OWNED, sitemap_index: 'sitemap_index.xml' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/sitemap_index must be the sitemap's full http\(s\) URL.*Nothing was sent to Google/);
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });

  it('stays within the 100 kB budget by dropping whole entries and saying so', async () => {
    const list = google.emulator.state.sitemapsOf(OWNED, true);
    for (let i = 0; i < 800; i++) {
      list.push({
        sitemap: {
          path: `https://www.example.com/sitemaps/products-${String(i).padStart(4, '0')}-${'x'.repeat(60)}.xml`,
          lastSubmitted: '2026-01-01T00:00:00.000Z',
          lastDownloaded: '2026-01-02T00:00:00.000Z',
          isPending: false,
          isSitemapsIndex: false,
          type: 'sitemap',
          warnings: '1',
          errors: '0',
          contents: [{ type: 'web', submitted: '50000', indexed: '0' }],
        },
      });
    }
    const result = await client.call('list_sitemaps', { site_url: OWNED });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    const bytes = Buffer.byteLength(JSON.stringify(out)) + Buffer.byteLength(text(result));
    expect(bytes).toBeLessThanOrEqual(100_000);
    expect(out.omitted).toBeGreaterThan(0);
    expect(out.sitemaps.length + out.omitted).toBe(803);
    expect(text(result)).toContain(`${out.omitted} more not shown to stay within the size limit`);
    expect(text(result)).toContain('803 sitemaps submitted');
  });
});

describe('get_sitemap', () => {
  it('reads one sitemap and says where its errors are and what pending means', async () => {
    const result = await client.call('get_sitemap', { site_url: OWNED, sitemap_url: NEWS });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      site_url: OWNED,
      path: NEWS,
      errors: 2,
      warnings: 4,
      is_pending: false,
      untrusted: true,
    });
    const said = text(result);
    expect(said).toMatch(
      /only the error and warning counts; the individual errors are listed in the Search Console web interface, Indexing → Sitemaps/,
    );
    expect(said).toMatch(/It is not pending: Google has processed the latest submission/);
    const [req] = requests('sitemaps.get');
    expect(req.params).toEqual({ siteUrl: OWNED, feedpath: NEWS });
  });

  it('explains is_pending for a sitemap Google has not processed', async () => {
    const result = await legacy.call('get_sitemap', { site_url: OWNED, sitemap_url: 'https://www.example.com/feed.xml' });
    expect(result.structuredContent).toMatchObject({ is_pending: true, type: 'rssFeed' });
    expect(text(result)).toMatch(/It is pending: is_pending: true means Google has not processed the sitemap/);
    expect(text(result)).toMatch(/never downloaded/);
  });

  it('points at the index listing for a sitemap index', async () => {
    const result = await client.call('get_sitemap', { site_url: OWNED, sitemap_url: INDEX });
    expect(result.structuredContent).toMatchObject({ is_sitemaps_index: true });
    expect(text(result)).toContain(`list_sitemaps with sitemap_index "${INDEX}" lists its child sitemaps`);
  });

  it('answers a 404 with a sentence naming the exact URL and the way to look it up', async () => {
    const result = await client.call('get_sitemap', { site_url: OWNED, sitemap_url: 'https://www.example.com/missing.xml' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /https:\/\/www\.example\.com\/ has no sitemap known to Search Console as https:\/\/www\.example\.com\/missing\.xml\. Nothing was changed\..*list_sitemaps/,
    );
  });

  it('answers a 403 with the permission sentence', async () => {
    const result = await client.call('get_sitemap', {
      site_url: 'https://unknown.example/',
      sitemap_url: 'https://unknown.example/sitemap.xml',
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /Google refused to read the sitemap https:\/\/unknown\.example\/sitemap\.xml of https:\/\/unknown\.example\/: "User does not have sufficient permission/,
    );
    expect(text(result)).toMatch(/Nothing was changed/);
  });

  it('answers a 429 with Retry-After by quoting the wait, without retrying past it', async () => {
    google.emulator.injectFault({ route: 'sitemaps.get', status: 429, retryAfter: 120, times: 5 });
    const result = await client.call('get_sitemap', { site_url: OWNED, sitemap_url: NEWS });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/per-minute quota is exhausted.*Retry in 120 seconds/);
    expect(requests('sitemaps.get')).toHaveLength(1);
  });

  it('retries a 429 without Retry-After and succeeds', async () => {
    google.emulator.injectFault({ route: 'sitemaps.get', status: 429, times: 1 });
    const result = await client.call('get_sitemap', { site_url: OWNED, sitemap_url: NEWS });
    expect(result.isError).toBeFalsy();
    expect(requests('sitemaps.get').map((r) => r.status)).toEqual([429, 200]);
  });

  it('answers a persistent 500 with a temporary-failure sentence', async () => {
    google.emulator.injectFault({ route: 'sitemaps.get', status: 500, times: Infinity });
    const result = await client.call('get_sitemap', { site_url: OWNED, sitemap_url: NEWS });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /Google failed with HTTP 500 while trying to read the sitemap .* after 4 attempts\. Nothing was changed\./,
    );
  });

  it('refuses a relative or non-http sitemap_url with nothing sent', async () => {
    for (const bad of ['/sitemap.xml', 'ftp://www.example.com/sitemap.xml', 'https://user:pw@www.example.com/sitemap.xml']) {
      const result = await client.call('get_sitemap', { site_url: OWNED, sitemap_url: bad });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/sitemap_url must be the sitemap's full http\(s\) URL.*Nothing was sent to Google/);
    }
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });
});

describe('submit_sitemap', () => {
  it('submits, says acceptance is not validation, and get_sitemap then shows it pending', async () => {
    const url = 'https://www.example.com/new-sitemap.xml';
    const result = await client.call('submit_sitemap', { site_url: OWNED, sitemap_url: `  ${url} ` });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ site_url: OWNED, sitemap_url: url, submitted: true, outside_property: false });
    const said = text(result);
    expect(said).toMatch(
      /Google accepted the submission of https:\/\/www\.example\.com\/new-sitemap\.xml for https:\/\/www\.example\.com\//,
    );
    expect(said).toMatch(/not necessarily fetched.*says nothing about whether it is valid/);
    expect(said).toMatch(/get_sitemap: last_downloaded/);
    const [put] = requests('sitemaps.submit');
    expect(put.method).toBe('PUT');
    expect(put.params).toEqual({ siteUrl: OWNED, feedpath: url });

    const check = await client.call('get_sitemap', { site_url: OWNED, sitemap_url: url });
    expect(check.structuredContent).toMatchObject({ path: url, is_pending: true });
  });

  it('mentions cross-site verification when the sitemap is outside the property, but still submits', async () => {
    const url = 'https://cdn.example.net/sitemaps/www.xml';
    const result = await client.call('submit_sitemap', { site_url: OWNED, sitemap_url: url });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.outside_property).toBe(true);
    expect(text(result)).toMatch(/outside https:\/\/www\.example\.com\/.*cross-site submission/);
    expect(requests('sitemaps.submit')).toHaveLength(1);
  });

  it('refuses with a permission sentence for a restricted user (403)', async () => {
    const result = await client.call('submit_sitemap', {
      site_url: SEED_PROPERTIES.restricted,
      sitemap_url: 'https://www.example.org/s.xml',
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Google refused to submit the sitemap .* lacks the permission needed on sc-domain:example\.org/);
  });

  it('tells of an unknown outcome on a persistent 500 (a write)', async () => {
    google.emulator.injectFault({ route: 'sitemaps.submit', status: 500, times: Infinity });
    const result = await client.call('submit_sitemap', { site_url: OWNED, sitemap_url: 'https://www.example.com/s.xml' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/HTTP 500.*It is not known whether Google applied the change/);
  });
});

describe('submit_sitemaps', () => {
  const urls = Array.from({ length: 6 }, (_, i) => `https://www.example.com/batch-${i}.xml`);

  it('submits every sitemap and reports each', async () => {
    const result = await client.call('submit_sitemaps', { site_url: OWNED, sitemap_urls: [...urls, urls[0]] });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out).toMatchObject({ site_url: OWNED, submitted_count: 6, failed_count: 0, duplicates_skipped: 1 });
    expect(out.results.map((r: any) => r.sitemap_url)).toEqual(urls);
    expect(out.results.every((r: any) => r.submitted === true && r.error === undefined)).toBe(true);
    expect(
      requests('sitemaps.submit')
        .map((r) => r.params.feedpath)
        .sort(),
    ).toEqual([...urls].sort());
    expect(text(result)).toMatch(/^Submitted 6 of 6 sitemaps to https:\/\/www\.example\.com\/\. 1 duplicate skipped\./);
    expect(text(result)).toMatch(/not that it fetched or validated/);
  });

  it('goes on after one failure and reports it', async () => {
    google.emulator.injectFault({ route: 'sitemaps.submit', status: 400, times: 1, message: 'Sitemap URL rejected.' });
    const result = await client.call('submit_sitemaps', { site_url: OWNED, sitemap_urls: urls });
    const out = result.structuredContent!;
    expect(result.isError).toBeFalsy();
    expect(out.submitted_count).toBe(5);
    expect(out.failed_count).toBe(1);
    const failed = out.results.filter((r: any) => !r.submitted);
    expect(failed).toHaveLength(1);
    expect(failed[0].error).toMatch(/Sitemap URL rejected/);
    const log = requests('sitemaps.submit');
    expect(log).toHaveLength(6);
    const rejected = log.filter((r) => r.status === 400);
    expect(rejected).toHaveLength(1);
    expect(rejected[0].params.feedpath).toBe(failed[0].sitemap_url);
    expect(
      log
        .filter((r) => r.status === 200)
        .map((r) => r.params.feedpath)
        .sort(),
    ).toEqual(urls.filter((u) => u !== failed[0].sitemap_url).sort());
    expect(text(result)).toContain(`- Not submitted: ${failed[0].sitemap_url}`);
  });

  it('is an error result when nothing was accepted, and stops sending after a 403 on the property', async () => {
    const many = Array.from({ length: 12 }, (_, i) => `https://www.example.org/s-${i}.xml`);
    const result = await client.call('submit_sitemaps', { site_url: SEED_PROPERTIES.restricted, sitemap_urls: many });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ submitted_count: 0, failed_count: 12 });
    const sent = requests('sitemaps.submit');
    expect(sent.length).toBeLessThanOrEqual(4); // only those already in flight
    expect(sent.every((r) => r.status === 403)).toBe(true);
    const notSent = result.structuredContent!.results.filter((r: any) => /^Not sent: Google refused an earlier submission/.test(r.error));
    expect(notSent).toHaveLength(12 - sent.length);
  });

  it('keeps the result within 100 kB even for 50 very long URLs, still reporting every entry', async () => {
    const long = Array.from({ length: 50 }, (_, i) => `https://www.example.com/${'p'.repeat(1850)}/${i}.xml`);
    const result = await client.call('submit_sitemaps', { site_url: OWNED, sitemap_urls: long });
    expect(result.isError).toBeFalsy();
    const bytes = Buffer.byteLength(JSON.stringify(result.structuredContent)) + Buffer.byteLength(text(result));
    expect(bytes).toBeLessThanOrEqual(100_000);
    expect(result.structuredContent!.results.map((r: any) => r.sitemap_url)).toEqual(long);
    expect(result.structuredContent!.submitted_count).toBe(50);
    expect(text(result)).toMatch(/^Submitted 50 of 50 sitemaps/);
    expect(text(result)).toMatch(/in the structured results/);
  });

  it('refuses more than 50 with a sentence and sends nothing', async () => {
    const many = Array.from({ length: 51 }, (_, i) => `https://www.example.com/s-${i}.xml`);
    const result = await client.call('submit_sitemaps', { site_url: OWNED, sitemap_urls: many });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/at most 50 sitemaps per call and got 51\. Nothing was sent to Google\./);
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });

  it('refuses the batch when an entry is not an http(s) URL, sending nothing', async () => {
    const result = await client.call('submit_sitemaps', { site_url: OWNED, sitemap_urls: [urls[0], 'sitemap.xml'] });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/these are not: "sitemap\.xml"\. Nothing was sent to Google/);
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });
});

describe('delete_sitemap', () => {
  it('without elicitation: the first call issues a token and sends nothing; the second deletes exactly once', async () => {
    const first = await client.call('delete_sitemap', { site_url: OWNED, sitemap_url: NEWS });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ executed: false, outcome: 'token_issued' });
    const token = first.structuredContent!.confirm_token;
    expect(typeof token).toBe('string');
    expect(text(first)).toContain(`This will delete a sitemap submission from ${OWNED}.`);
    expect(text(first)).toMatch(/submit_sitemap puts the submission back/);
    // No dialog shows the quoted data, so the token's text quotes the sitemap it deletes and the account that acts.
    expect(text(first)).toContain(`Sitemap URL: "${NEWS}".`);
    expect(text(first)).toMatch(/Google account making the change: "[^"]+@[^"]+"\./);
    expect(requests('sitemaps.delete')).toHaveLength(0);

    const second = await client.call('delete_sitemap', { site_url: OWNED, sitemap_url: NEWS, confirm_token: token });
    expect(second.isError).toBeFalsy();
    expect(second.structuredContent).toMatchObject({
      executed: true,
      outcome: 'executed',
      deleted: true,
      sitemap_url: NEWS,
      site_url: OWNED,
    });
    expect(text(second)).toMatch(/Deleted the submission of https:\/\/www\.example\.com\/news-sitemap\.xml/);
    const deletes = requests('sitemaps.delete');
    expect(deletes).toHaveLength(1);
    expect(deletes[0].params).toEqual({ siteUrl: OWNED, feedpath: NEWS });

    const list = await client.call('list_sitemaps', { site_url: OWNED });
    expect(list.structuredContent!.sitemaps.map((s: any) => s.path)).not.toContain(NEWS);
  });

  it('a token for one sitemap does not delete another', async () => {
    const first = await client.call('delete_sitemap', { site_url: OWNED, sitemap_url: NEWS });
    const other = await client.call('delete_sitemap', {
      site_url: OWNED,
      sitemap_url: INDEX,
      confirm_token: first.structuredContent!.confirm_token,
    });
    expect(other.isError).toBe(true);
    expect(other.structuredContent).toMatchObject({ executed: false, outcome: 'token_rejected' });
    expect(requests('sitemaps.delete')).toHaveLength(0);
  });

  it('with a dialog: the person sees the server’s sentences and the sitemap URL quoted as data', async () => {
    const person = await connectHttp(server.url, {
      revision: '2025-11-25',
      elicit: () => ({ action: 'accept', content: { confirm: true } }),
    });
    try {
      const result = await person.call('delete_sitemap', { site_url: OWNED, sitemap_url: NEWS });
      expect(result.structuredContent).toMatchObject({ executed: true, outcome: 'executed', deleted: true });
      expect(person.dialogs).toHaveLength(1);
      const [summary, , heading, quoted] = person.dialogs[0].split('\n');
      expect(summary).toBe(
        `This will delete a sitemap submission from ${OWNED}. Its submission history and error report are lost — the least severe of the guarded changes: submit_sitemap puts the submission back.`,
      );
      expect(heading).toMatch(/Supplied by the caller or by Google/);
      expect(quoted).toBe(`- Sitemap URL: "${NEWS}"`);
      expect(requests('sitemaps.delete')).toHaveLength(1);
    } finally {
      await person.close();
    }
  });

  it('refuses a sitemap_url that is not a URL before any token is issued', async () => {
    const result = await client.call('delete_sitemap', { site_url: OWNED, sitemap_url: 'news-sitemap.xml' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent?.confirm_token).toBeUndefined();
    expect(text(result)).toMatch(/Nothing was sent to Google/);
    expect(sitemapRequests()).toHaveLength(0);
  });

  it('a child of an index cannot be deleted on its own: the 404 says so', async () => {
    const child = 'https://www.example.com/post-sitemap.xml';
    const first = await client.call('delete_sitemap', { site_url: OWNED, sitemap_url: child });
    const second = await client.call('delete_sitemap', {
      site_url: OWNED,
      sitemap_url: child,
      confirm_token: first.structuredContent!.confirm_token,
    });
    expect(second.isError).toBe(true);
    expect(text(second)).toMatch(
      /has no sitemap known to Search Console as https:\/\/www\.example\.com\/post-sitemap\.xml\. Nothing was deleted\..*children of a sitemap index go with their index/,
    );
  });
});
