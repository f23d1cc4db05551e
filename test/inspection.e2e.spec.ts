import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, type TestClient, text } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { useStack } from './support/stack.js';

const OWNED = SEED_PROPERTIES.owned; // https://www.example.com/
const page = (path: string) => `https://www.example.com/${path}`;

const { google, client, legacy } = useStack();

const inspections = (emulator = google.emulator) => emulator.apiRequests().filter((r) => r.route === 'urlInspection.index.inspect');
const inspect = (url: string, extra: Record<string, unknown> = {}) => client.call('inspect_url', { site_url: OWNED, url, ...extra });

describe('inspect_url', () => {
  it('reports an indexed page: verdict, coverage, crawl, states, canonicals, link — as the indexed state, not a live test', async () => {
    const result = await inspect(page(''));
    expect(result.isError).toBeFalsy();
    expect(inspections().map((r) => r.body)).toEqual([{ inspectionUrl: page(''), siteUrl: OWNED }]);
    const out = result.structuredContent!;
    expect(out).toMatchObject({
      site_url: OWNED,
      url: page(''),
      verdict: 'PASS',
      coverage_state: 'Submitted and indexed',
      robots_txt_state: 'ALLOWED',
      indexing_state: 'INDEXING_ALLOWED',
      page_fetch_state: 'SUCCESSFUL',
      google_canonical: page(''),
      user_canonical: page(''),
      canonical_differs: false,
      untrusted: true,
    });
    expect(out.last_crawl_time).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(['MOBILE', 'DESKTOP']).toContain(out.crawled_as);
    expect(out.sitemaps.length).toBeGreaterThan(0);
    expect(out.inspection_result_link).toMatch(/^https:\/\/search\.google\.com\/search-console\/inspect\?/);
    expect(out.rich_results).toBeUndefined();
    const said = text(result);
    expect(said).toContain("Google's indexed state from its last crawl, not a live test");
    expect(said).toContain('Verdict: PASS — URL is on Google (valid); coverage: "Submitted and indexed".');
    expect(said).toMatch(/Last crawl: \S+ as Googlebot (smartphone|desktop)\./);
    expect(said).toContain('Page fetch: successful; robots.txt: allowed; indexing: allowed.');
    expect(said).toContain(`Full report in Search Console: ${out.inspection_result_link}`);
  });

  it('reports a page excluded by noindex', async () => {
    const result = await inspect(page('blog/draft-post'));
    expect(result.structuredContent).toMatchObject({ verdict: 'NEUTRAL', indexing_state: 'BLOCKED_BY_META_TAG', canonical_differs: false });
    expect(text(result)).toContain(`Verdict: NEUTRAL — URL is not on Google (excluded); coverage: "Excluded by 'noindex' tag".`);
    expect(text(result)).toContain("indexing: blocked by a 'noindex' robots meta tag.");
  });

  it('reports a crawled but not indexed page', async () => {
    const result = await inspect(page('tag/misc'));
    expect(result.structuredContent).toMatchObject({ verdict: 'NEUTRAL', coverage_state: 'Crawled - currently not indexed' });
    expect(result.structuredContent!.google_canonical).toBeUndefined();
    expect(text(result)).toContain('Canonical: Google-selected none (not indexed); user-declared https://www.example.com/tag/misc.');
  });

  it('reports a page blocked by robots.txt', async () => {
    const result = await inspect(page('private/report'));
    expect(result.structuredContent).toMatchObject({
      robots_txt_state: 'DISALLOWED',
      page_fetch_state: 'BLOCKED_ROBOTS_TXT',
      coverage_state: 'Blocked by robots.txt',
    });
    expect(text(result)).toContain('Last crawl: none — robots.txt blocks Googlebot from fetching it.');
    expect(text(result)).toContain('Page fetch: blocked by robots.txt; robots.txt: disallowed (robots.txt blocks Googlebot)');
  });

  it('reports a URL unknown to Google as never crawled', async () => {
    const result = await inspect(page('brand-new-page'));
    const out = result.structuredContent!;
    expect(out).toMatchObject({
      verdict: 'NEUTRAL',
      coverage_state: 'URL is unknown to Google',
      sitemaps: [],
      referring_urls: [],
      referring_urls_total: 0,
    });
    expect(out.last_crawl_time).toBeUndefined();
    const said = text(result);
    expect(said).toContain('Last crawl: none recorded');
    expect(said).toContain('Page fetch: unknown; robots.txt: unknown; indexing: unknown.');
    expect(said).toContain('Referring URLs: none.');
  });

  it('says when the Google-selected canonical differs from the declared one', async () => {
    const result = await inspect(page('products?color=red'));
    const out = result.structuredContent!;
    expect(out).toMatchObject({
      google_canonical: page('products/'), // the category page the site has
      user_canonical: page('products?color=red'),
      canonical_differs: true,
      coverage_state: 'Duplicate, Google chose different canonical than user',
    });
    expect(text(result)).toContain(
      `Canonical: Google-selected ${page('products/')}; user-declared ${page('products?color=red')}. They differ`,
    );
  });

  it('lists rich result types with their issues', async () => {
    const result = await inspect(page('blog/seo-basics'));
    const rich = result.structuredContent!.rich_results;
    expect(rich.verdict).toBe('FAIL');
    expect(rich.types).toEqual([
      { type: 'Breadcrumbs', items: 1, issues: [], issues_total: 0 },
      {
        type: 'FAQ',
        items: 1,
        issues: [{ message: 'Missing field "acceptedAnswer"', severity: 'ERROR', item: 'Unnamed item' }],
        issues_total: 1,
      },
      {
        type: 'Review snippets',
        items: 1,
        issues: [{ message: 'Missing field "author"', severity: 'WARNING', item: 'Widget Pro' }],
        issues_total: 1,
      },
    ]);
    expect(text(result)).toContain(
      'Rich results: FAIL. "Breadcrumbs": 1 item, no issues. "FAQ": 1 item — ERROR "Missing field "acceptedAnswer"" ("Unnamed item")',
    );
  });

  it('reports AMP when present, and caps referring URLs', async () => {
    const result = await inspect(page('amp/launch-news'));
    expect(result.structuredContent!.amp).toMatchObject({
      verdict: 'PASS',
      indexing_state: 'AMP_INDEXING_ALLOWED',
      issues: [{ severity: 'WARNING' }],
    });
    expect(result.structuredContent!.referring_urls.length).toBeLessThanOrEqual(10);
    expect(text(result)).toMatch(
      /AMP: PASS for https:\/\/www\.example\.com\/amp\/launch-news; indexing allowed; fetch successful\. Issues: WARNING/,
    );
  });

  it('reports a 404 page with an error verdict', async () => {
    const result = await inspect(page('old-page'));
    expect(result.structuredContent).toMatchObject({ verdict: 'FAIL', page_fetch_state: 'NOT_FOUND' });
    expect(text(result)).toContain('URL is not on Google (error)');
  });

  it('passes language_code through', async () => {
    await inspect(page(''), { language_code: 'de-DE' });
    expect(inspections()[0].body).toEqual({ inspectionUrl: page(''), siteUrl: OWNED, languageCode: 'de-DE' });
  });

  it('inspects a page of a domain property', async () => {
    const result = await client.call('inspect_url', { site_url: 'sc-domain:example.com', url: 'https://shop.example.com/checkout/error' });
    expect(result.isError).toBeFalsy();
    expect(inspections()[0].body).toMatchObject({ siteUrl: 'sc-domain:example.com' });
    expect(result.structuredContent).toMatchObject({ verdict: 'FAIL', page_fetch_state: 'SERVER_ERROR' });
  });

  it('refuses a URL outside the property, sending nothing', async () => {
    const result = await inspect('https://shop.example.com/checkout');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/is not part of the property https:\/\/www\.example\.com\/.*Nothing was sent to Google/);
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });

  it('retries a 429 that says when (Retry-After) and a 500, then answers', async () => {
    google.emulator.injectFault({ route: 'urlInspection.index.inspect', status: 429, retryAfter: 1 });
    google.emulator.injectFault({ route: 'urlInspection.index.inspect', status: 500 });
    const result = await inspect(page(''));
    expect(result.isError).toBeFalsy();
    expect(inspections().map((r) => r.status)).toEqual([429, 500, 200]);
  });

  // Google's words do not say which limit a 429 is about; only structured facts
  // (an ErrorInfo quota_limit) can, and without them both limits are named.
  it('does not retry a 429 whose ErrorInfo names a daily limit, and says when it resets', async () => {
    google.emulator.injectFault({
      route: 'urlInspection.index.inspect',
      status: 429,
      times: 5,
      body: {
        error: {
          code: 429,
          message: 'Quota exceeded for https://www.example.com/.',
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'RATE_LIMIT_EXCEEDED',
              domain: 'googleapis.com',
              metadata: {
                service: 'searchconsole.googleapis.com',
                quota_limit: 'UrlInspectionRequestsPerDayPerSite',
                quota_limit_value: '2000',
              },
            },
          ],
        },
      },
    });
    const result = await inspect(page(''));
    expect(result.isError).toBe(true);
    expect(inspections()).toHaveLength(1);
    expect(text(result)).toMatch(
      /daily quota is exhausted, so it refused to inspect https:\/\/www\.example\.com\/ in https:\/\/www\.example\.com\/.*midnight Pacific Time/,
    );
  });

  it("Google's real 429 (the same for every limit) names both limits and when each resets", async () => {
    google.emulator.injectFault({
      route: 'urlInspection.index.inspect',
      status: 429,
      times: 5,
      body: { error: { code: 429, message: 'Quota exceeded for https://www.example.com/.', status: 'RESOURCE_EXHAUSTED' } },
    });
    const result = await inspect(page(''));
    expect(result.isError).toBe(true);
    // Sent once: a backoff of seconds clears neither window, and a retry would spend quota.
    expect(inspections()).toHaveLength(1);
    expect(text(result)).toMatch(
      /^Google's daily quota is most likely exhausted, so it refused to inspect https:\/\/www\.example\.com\/ in https:\/\/www\.example\.com\/: "Quota exceeded for https:\/\/www\.example\.com\/\."\. Nothing was changed\. Google's answer does not say which limit was hit\./,
    );
    expect(text(result)).toMatch(
      /If it was the per-minute limit \(600\), it clears by \S+, within a minute; the daily limit resets at midnight Pacific Time/,
    );
    expect(text(result)).not.toMatch(/daily quota is exhausted|per-minute quota is exhausted/);
  });

  it('answers the legacy 2025-11-25 client too', async () => {
    const result = await legacy.call('inspect_url', { site_url: OWNED, url: page('') });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.verdict).toBe('PASS');
  });
});

describe('inspect_urls', () => {
  const twenty = Array.from({ length: 20 }, (_, i) => page(`articles/post-${i + 1}`));

  it('inspects 20 URLs at 100 ms emulator latency and answers every one, in the order given', async () => {
    google.emulator.setLatency('urlInspection.index.inspect', 100);
    const result = await client.call('inspect_urls', { site_url: OWNED, urls: twenty });
    expect(result.isError).toBeFalsy();
    expect(
      inspections()
        .map((r) => (r.body as any).inspectionUrl)
        .sort(),
    ).toEqual([...twenty].sort());
    expect(inspections().every((r) => r.status === 200)).toBe(true);
    const out = result.structuredContent!;
    expect(out.results.map((r: any) => r.url)).toEqual(twenty);
    expect(out.not_inspected).toEqual([]);
    expect(out.untrusted).toBe(true);
    for (const r of out.results) {
      expect(['PASS', 'NEUTRAL', 'FAIL']).toContain(r.verdict);
    }
    expect(text(result)).toMatch(
      /^Indexed state of 20 URLs in https:\/\/www\.example\.com\/: \d+ on Google, \d+ not on Google, 0 failed\./,
    );
  });

  it('condenses each verdict, with the Google canonical only when it differs', async () => {
    const urls = [page(''), page('products?color=red'), page('brand-new-page')];
    const result = await client.call('inspect_urls', { site_url: OWNED, urls });
    const [home, product, fresh] = result.structuredContent!.results;
    expect(home).toMatchObject({ url: page(''), verdict: 'PASS', coverage_state: 'Submitted and indexed' });
    expect(home.google_canonical).toBeUndefined();
    expect(product).toMatchObject({ verdict: 'NEUTRAL', google_canonical: page('products/') });
    expect(fresh).toEqual({ url: page('brand-new-page'), verdict: 'NEUTRAL', coverage_state: 'URL is unknown to Google' });
    const said = text(result);
    expect(said).toContain(
      `- ${page('products?color=red')} — NEUTRAL, not on Google (excluded); "Duplicate, Google chose different canonical than user"; last crawl `,
    );
    expect(said).toContain(`Google-selected canonical: ${page('products')}`);
    expect(said).toContain(
      `- ${page('brand-new-page')} — NEUTRAL, not on Google (excluded); "URL is unknown to Google"; no crawl recorded`,
    );
  });

  it('reports a per-URL failure against that URL and carries on with the rest', async () => {
    google.emulator.injectFault({ route: 'urlInspection.index.inspect', status: 400, message: 'Request contains an invalid argument.' });
    const urls = [page(''), page('tag/misc'), page('old-page')];
    const result = await client.call('inspect_urls', { site_url: OWNED, urls });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(inspections()).toHaveLength(3);
    const failed = out.results.filter((r: any) => r.error);
    expect(failed).toHaveLength(1);
    expect(failed[0].error).toMatch(/Google refused to inspect .* \(HTTP 400\)/);
    expect(out.results.filter((r: any) => r.verdict)).toHaveLength(2);
    expect(out.not_inspected).toEqual([]);
    expect(text(result)).toContain('1 failed');
  });

  it('inspects a repeated URL once', async () => {
    const result = await client.call('inspect_urls', { site_url: OWNED, urls: [page(''), page('tag/misc'), page('')] });
    expect(inspections()).toHaveLength(2);
    expect(result.structuredContent!.results.map((r: any) => r.url)).toEqual([page(''), page('tag/misc')]);
    expect(text(result)).toContain('1 duplicate URL was inspected once.');
  });

  it('refuses more than 20 URLs with a sentence, sending nothing', async () => {
    const result = await client.call('inspect_urls', { site_url: OWNED, urls: [...twenty, page('one-too-many')] });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      'inspect_urls takes at most 20 URLs per call; split the list into several calls. Nothing was sent to Google.',
    );
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });

  it('refuses the whole batch when one URL is outside the property, sending nothing', async () => {
    const result = await client.call('inspect_urls', { site_url: OWNED, urls: [page(''), 'https://blog.example.net/'] });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /https:\/\/blog\.example\.net\/ is not part of the property https:\/\/www\.example\.com\/.*Nothing was sent/,
    );
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });

  it('is a read tool with a bounded urls list', async () => {
    const tool = (await client.listTools()).find((t) => t.name === 'inspect_urls');
    expect(tool.annotations).toMatchObject({ readOnlyHint: true });
    expect(tool.inputSchema.properties.urls).toMatchObject({ minItems: 1, maxItems: 20 });
  });
});

// Issue 21 item 6: Google's real daily limit (the emulator's counter, not an
// injected fault) answered once, told as the daily limit, over both revisions.
describe("inspect_url when Google has spent the property's daily quota", () => {
  let limited: TestGoogle;
  let limitedServer: InProcessServer;
  let modern: TestClient;
  let old: TestClient;

  beforeAll(async () => {
    limited = await startGoogle({ quotas: { inspectionPerDayPerProperty: 2 } });
    limitedServer = await startInProcess(limited.env);
    modern = await connectHttp(limitedServer.url, { revision: '2026-07-28' });
    old = await connectHttp(limitedServer.url, { revision: '2025-11-25' });
  });

  afterAll(async () => {
    await modern?.close();
    await old?.close();
    await limitedServer?.close();
    await limited?.emulator.close();
  });

  it('sends the refused inspection once and says it is most likely the daily limit, resetting at midnight Pacific Time', async () => {
    for (const path of ['a', 'b']) {
      expect((await modern.call('inspect_url', { site_url: OWNED, url: page(path) })).isError).toBeFalsy();
    }
    for (const [i, c] of [modern, old].entries()) {
      const before = inspections(limited.emulator).length;
      const result = await c.call('inspect_url', { site_url: OWNED, url: page(`c${i}`) });
      expect(result.isError).toBe(true);
      expect(
        inspections(limited.emulator)
          .slice(before)
          .map((r) => r.status),
      ).toEqual([429]);
      expect(text(result)).toMatch(
        /^Google's daily quota is most likely exhausted, so it refused to inspect https:\/\/www\.example\.com\/c\d in https:\/\/www\.example\.com\//,
      );
      expect(text(result)).toMatch(
        /This server counted \d+ inspections of https:\/\/www\.example\.com\/ in the current minute and 2 today/,
      );
      expect(text(result)).toMatch(/the daily limit resets at midnight Pacific Time \(\S+, in about \d+ (hours?|minutes?)\)\.$/);
    }
  });
});

describe('inspect_urls when the daily quota runs out mid-batch', () => {
  let limited: TestGoogle;
  let limitedServer: InProcessServer;
  let limitedClient: TestClient;

  beforeAll(async () => {
    limited = await startGoogle({ quotas: { inspectionPerDayPerProperty: 5 } });
    limitedServer = await startInProcess(limited.env);
    limitedClient = await connectHttp(limitedServer.url, { revision: '2026-07-28' });
  });

  afterAll(async () => {
    await limitedClient?.close();
    await limitedServer?.close();
    await limited?.emulator.close();
  });

  it('stops launching inspections, keeps the answers it got, and lists every URL not inspected', async () => {
    const urls = Array.from({ length: 20 }, (_, i) => page(`guides/part-${i + 1}`));
    const result = await limitedClient.call('inspect_urls', { site_url: OWNED, urls });
    expect(result.isError).toBeFalsy();
    const sent = inspections(limited.emulator);
    const answered = sent.filter((r) => r.status === 200).map((r) => (r.body as any).inspectionUrl);
    expect(answered).toHaveLength(5);
    expect(sent.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThan(20); // stopped launching: the rest were never sent
    const out = result.structuredContent!;
    expect(out.results.map((r: any) => r.url).sort()).toEqual([...answered].sort());
    expect(out.results.every((r: any) => r.verdict && !r.error)).toBe(true);
    expect(out.not_inspected).toEqual(urls.filter((u) => !answered.includes(u)));
    const said = text(result);
    expect(said).toContain('15 not inspected');
    expect(said).toContain(`Not inspected, because the daily URL-inspection quota of ${OWNED} is used up`);
    expect(said).toContain(out.not_inspected.join(', '));
    expect(said).toMatch(/retry them tomorrow, after midnight Pacific Time/);
  });
});
