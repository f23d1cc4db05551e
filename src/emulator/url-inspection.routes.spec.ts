import { describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { rejection, startEmulatorKit } from '../../test/support/emulator-kit.js';
import { useEmulatorKit } from '../../test/support/emulator-kit.js';
import { urlInProperty } from './property-scope.js';

const NOW = new Date('2026-11-30T20:30:00Z');
const kit = useEmulatorKit({ now: () => NOW });

const inspect = (inspectionUrl: string, siteUrl: string) =>
  kit.sc.urlInspection.index.inspect({ requestBody: { inspectionUrl, siteUrl, languageCode: 'en-US' } });

describe('urlInspection.index.inspect', () => {
  it('posts to /v1/urlInspection/index:inspect and returns SCREAMING_SNAKE enums', async () => {
    const { data } = await inspect('https://www.example.com/', SEED_PROPERTIES.owned);
    expect(kit.emulator.apiRequests().at(-1)).toMatchObject({
      method: 'POST',
      rawPath: '/v1/urlInspection/index:inspect',
      route: 'urlInspection.index.inspect',
      body: { inspectionUrl: 'https://www.example.com/', siteUrl: SEED_PROPERTIES.owned, languageCode: 'en-US' },
    });
    const r = data.inspectionResult!;
    expect(r.inspectionResultLink).toMatch(
      /^https:\/\/search\.google\.com\/search-console\/inspect\?resource_id=https%3A%2F%2Fwww\.example\.com%2F&/,
    );
    expect(r.indexStatusResult).toMatchObject({
      verdict: 'PASS',
      robotsTxtState: 'ALLOWED',
      indexingState: 'INDEXING_ALLOWED',
      pageFetchState: 'SUCCESSFUL',
      googleCanonical: 'https://www.example.com/',
    });
    expect(r.indexStatusResult!.lastCrawlTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('gives seeded URLs their fixed outcomes', async () => {
    const state = async (url: string) => (await inspect(url, SEED_PROPERTIES.owned)).data.inspectionResult!;
    const unknown = await state('https://www.example.com/brand-new-page');
    expect(unknown.indexStatusResult).toEqual({
      verdict: 'NEUTRAL',
      coverageState: 'URL is unknown to Google',
      robotsTxtState: 'ROBOTS_TXT_STATE_UNSPECIFIED',
      indexingState: 'INDEXING_STATE_UNSPECIFIED',
      pageFetchState: 'PAGE_FETCH_STATE_UNSPECIFIED',
    });
    expect((await state('https://www.example.com/tag/misc')).indexStatusResult).toMatchObject({
      verdict: 'NEUTRAL',
      coverageState: 'Crawled - currently not indexed',
    });
    expect((await state('https://www.example.com/blog/draft-post')).indexStatusResult).toMatchObject({
      coverageState: "Excluded by 'noindex' tag",
      indexingState: 'BLOCKED_BY_META_TAG',
    });
    expect((await state('https://www.example.com/private/report')).indexStatusResult).toMatchObject({
      robotsTxtState: 'DISALLOWED',
      pageFetchState: 'BLOCKED_ROBOTS_TXT',
    });
    const dup = (await state('https://www.example.com/products?color=red')).indexStatusResult!;
    expect(dup.googleCanonical).toBe('https://www.example.com/products/'); // the category page the site has (and that ranks)
    expect(dup.userCanonical).toBe('https://www.example.com/products?color=red');
    const rich = await state('https://www.example.com/blog/seo-basics');
    expect(rich.richResultsResult!.verdict).toBe('FAIL');
    expect(rich.richResultsResult!.detectedItems!.flatMap((d) => d.items!.flatMap((i) => i.issues ?? [])).map((i) => i.severity)).toEqual([
      'ERROR',
      'WARNING',
    ]);
    expect((await state('https://www.example.com/amp/launch-news')).ampResult).toMatchObject({ indexingState: 'AMP_INDEXING_ALLOWED' });
    expect((await state('https://www.example.com/')).ampResult).toBeUndefined();
  });

  it('is deterministic for URLs without fixtures', async () => {
    const a = await inspect('https://www.example.com/some/random/page', SEED_PROPERTIES.owned);
    const b = await inspect('https://www.example.com/some/random/page', SEED_PROPERTIES.owned);
    expect(a.data).toEqual(b.data);
  });

  it('covers every subdomain and scheme from a domain property', async () => {
    await expect(inspect('http://shop.example.com/x', SEED_PROPERTIES.domain)).resolves.toMatchObject({ status: 200 });
  });

  it.each([
    ['a URL on another host', 'https://shop.example.com/x', SEED_PROPERTIES.owned],
    ['another scheme', 'http://www.example.com/', SEED_PROPERTIES.owned],
    ['a path outside the sub-path property', 'https://www.example.com/shopping', SEED_PROPERTIES.subPath],
    ['an unlisted property', 'https://example.com/', 'https://example.com/'],
    ['the property without its slash', 'https://www.example.com/x', 'https://www.example.com'],
    ['an unverified property', 'http://legacy.example.net/', SEED_PROPERTIES.unverified],
  ])('refuses %s with PERMISSION_DENIED and no errors[]', async (_name, url, site) => {
    const e = await rejection(inspect(url, site));
    expect(e).toEqual({
      status: 403,
      data: {
        error: {
          code: 403,
          message: 'You do not own this site, or the inspected URL is not part of this property.',
          status: 'PERMISSION_DENIED',
        },
      },
    });
  });

  it('lets a restricted user inspect', async () => {
    await expect(inspect('https://www.example.org/', SEED_PROPERTIES.restricted)).resolves.toMatchObject({ status: 200 });
  });

  it('scopes a sub-path property by path prefix', () => {
    expect(urlInProperty('https://www.example.com/shop/item', SEED_PROPERTIES.subPath)).toBe(true);
    expect(urlInProperty('https://www.example.com/shopping', SEED_PROPERTIES.subPath)).toBe(false);
    expect(urlInProperty('https://WWW.EXAMPLE.COM/shop/x', SEED_PROPERTIES.subPath)).toBe(true);
    expect(urlInProperty('https://www.example.com:8443/shop/x', SEED_PROPERTIES.subPath)).toBe(false);
    expect(urlInProperty('https://evil-example.com/', SEED_PROPERTIES.domain)).toBe(false);
  });
});

describe('inspection quotas', () => {
  // Google: "The 'quota exceeded' error is the same for all quota exceeded events".
  const quotaBody = (site: string) => ({ error: { code: 429, message: `Quota exceeded for ${site}.`, status: 'RESOURCE_EXHAUSTED' } });

  it('answers the per-minute and the per-day limit of a property with one identical body that names only the property', async () => {
    let clock = new Date('2026-11-30T20:30:00Z');
    const small = await startEmulatorKit({
      now: () => clock,
      quotas: { inspectionPerMinutePerProperty: 2, inspectionPerDayPerProperty: 3 },
    });
    try {
      const go = (site: string = SEED_PROPERTIES.owned, url = 'https://www.example.com/') =>
        small.sc.urlInspection.index.inspect({ requestBody: { inspectionUrl: url, siteUrl: site } });
      await go();
      await go();
      await go(SEED_PROPERTIES.blog, 'https://blog.example.net/'); // separate property
      const minute = await rejection(go());
      expect(minute).toEqual({ status: 429, data: quotaBody(SEED_PROPERTIES.owned) });

      clock = new Date(clock.getTime() + 61000);
      await go();
      const day = await rejection(go());
      expect(day).toEqual(minute);
      clock = new Date(clock.getTime() + 3600000); // an hour later the day is still used up
      expect(await rejection(go())).toEqual(minute);

      // Pacific midnight (08:00 UTC in winter) starts a new day.
      clock = new Date('2026-12-01T08:00:30Z');
      await expect(go()).resolves.toMatchObject({ status: 200 });
      expect(small.emulator.apiRequests().map((r) => r.status)).toEqual([200, 200, 200, 429, 200, 429, 429, 200]);
    } finally {
      await small.emulator.close();
    }
  });

  it('answers the per-project limits with the same body, naming the property asked about', async () => {
    const clock = new Date('2026-11-30T20:30:00Z');
    const small = await startEmulatorKit({ now: () => clock, quotas: { inspectionPerMinutePerProject: 2 } });
    try {
      await small.sc.urlInspection.index.inspect({
        requestBody: { inspectionUrl: 'https://www.example.com/', siteUrl: SEED_PROPERTIES.owned },
      });
      await small.sc.urlInspection.index.inspect({
        requestBody: { inspectionUrl: 'https://blog.example.net/', siteUrl: SEED_PROPERTIES.blog },
      });
      const e = await rejection(
        small.sc.urlInspection.index.inspect({
          requestBody: { inspectionUrl: 'https://www.example.com/shop/x', siteUrl: SEED_PROPERTIES.subPath },
        }),
      );
      expect(e).toEqual({ status: 429, data: quotaBody(SEED_PROPERTIES.subPath) });
    } finally {
      await small.emulator.close();
    }
  });

  it('gives an injected 429 the same body', async () => {
    kit.emulator.injectFault({ route: 'urlInspection.index.inspect', status: 429 });
    expect(await rejection(inspect('https://www.example.com/', SEED_PROPERTIES.owned))).toEqual({
      status: 429,
      data: quotaBody(SEED_PROPERTIES.owned),
    });
  });
});
