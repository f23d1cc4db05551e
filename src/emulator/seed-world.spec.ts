import { describe, expect, it } from '@jest/globals';
import { useEmulatorKit } from '../../test/support/emulator-kit.js';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { SeedWorld, trafficPages } from './seed-world.js';

const NOW = new Date('2026-11-30T20:30:00Z');
let now = NOW;
const kit = useEmulatorKit({ now: () => now });
const OWNED = SEED_PROPERTIES.owned;

const inspect = async (inspectionUrl: string, siteUrl: string = OWNED) =>
  (await kit.sc.urlInspection.index.inspect({ requestBody: { inspectionUrl, siteUrl } })).data.inspectionResult!.indexStatusResult!;

async function clicksByPage(siteUrl: string, startDate: string, endDate: string, type = 'web'): Promise<Map<string, number>> {
  const { data } = await kit.sc.searchanalytics.query({
    siteUrl,
    requestBody: { startDate, endDate, dimensions: ['page'], type, dataState: 'all', rowLimit: 25000 },
  });
  return new Map((data.rows ?? []).map((r) => [r.keys![0], r.clicks!]));
}

describe('the seed world', () => {
  it('gives every page with clicks an indexed inspection, for every small property and search type', async () => {
    for (const property of [OWNED, SEED_PROPERTIES.domain, SEED_PROPERTIES.fullUser, SEED_PROPERTIES.blog]) {
      for (const type of ['web', 'discover']) {
        const clicks = await clicksByPage(property, '2026-11-20', '2026-11-29', type);
        expect(clicks.size).toBeGreaterThan(0);
        for (const [page, n] of clicks) {
          if (n === 0) {
            continue;
          }
          const result = await inspect(page, property);
          expect({ page, verdict: result.verdict, coverageState: result.coverageState }).toEqual({
            page,
            verdict: 'PASS',
            coverageState: expect.stringMatching(/^(Submitted and indexed|Indexed, not submitted in sitemap)$/),
          });
        }
      }
    }
  });

  it('has the page that left the index: traffic before its last crawl, none from that Pacific day on, 404 since', async () => {
    const url = 'https://www.example.com/products/widget-max';
    const result = await inspect(url);
    expect(result).toMatchObject({ verdict: 'FAIL', coverageState: 'Not found (404)', pageFetchState: 'NOT_FOUND' });
    expect(result.sitemap).toBeUndefined(); // taken out of the sitemaps
    const crawlDay = new Date(Date.parse(result.lastCrawlTime!) - 8 * 3_600_000).toISOString().slice(0, 10); // Pacific, roughly
    const before = await clicksByPage(OWNED, '2026-10-01', '2026-11-10');
    expect(before.get(url)).toBeGreaterThan(0);
    const world = new SeedWorld(NOW);
    const from = world.droppedFrom(url)!;
    expect([crawlDay, new Date(Date.parse(`${crawlDay}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)]).toContain(from);
    const after = await clicksByPage(OWNED, from, '2026-11-29');
    expect(after.has(url)).toBe(false);
    const dayBefore = new Date(Date.parse(`${from}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(dayBefore <= result.lastCrawlTime!.slice(0, 10)).toBe(true);
  });

  it('keeps the cases worth seeing on pages without traffic', async () => {
    const clicks = await clicksByPage(OWNED, '2026-09-01', '2026-11-29');
    const cases = {
      'https://www.example.com/private/report': 'Blocked by robots.txt',
      'https://www.example.com/brand-new-page': 'URL is unknown to Google',
      'https://www.example.com/products?color=red': 'Duplicate, Google chose different canonical than user',
      'https://www.example.com/tag/misc': 'Crawled - currently not indexed',
    };
    for (const [url, coverageState] of Object.entries(cases)) {
      expect((await inspect(url)).coverageState).toBe(coverageState);
      expect(clicks.has(url)).toBe(false);
    }
    expect((await inspect('https://www.example.com/products?color=red')).googleCanonical).toBe('https://www.example.com/products/');
    expect(trafficPages(OWNED)).toContain('https://www.example.com/products/');
  });

  it('states crawl times as facts: the same instant on every call, whatever the clock says meanwhile', async () => {
    const urls = ['https://www.example.com/pricing', 'https://www.example.com/tag/misc', 'https://www.example.com/not-modelled-page'];
    const first = await Promise.all(urls.map(async (u) => (await inspect(u)).lastCrawlTime));
    now = new Date(NOW.getTime() + 5 * 3_600_000);
    try {
      const second = await Promise.all(urls.map(async (u) => (await inspect(u)).lastCrawlTime));
      expect(second).toEqual(first);
      for (const t of first) {
        if (t) {
          expect(Date.parse(t)).toBeLessThan(NOW.getTime());
        }
      }
    } finally {
      now = NOW;
    }
  });

  it('counts sitemap contents from the pages they list, and names those sitemaps in inspections', async () => {
    const { data } = await kit.sc.sitemaps.list({ siteUrl: OWNED, sitemapIndex: 'https://www.example.com/sitemap_index.xml' });
    const counts = Object.fromEntries(data.sitemap!.map((s) => [s.path, Number(s.contents![0].submitted)]));
    const blog = trafficPages(OWNED).filter((u) => u.startsWith('https://www.example.com/blog/'));
    expect(counts['https://www.example.com/post-sitemap.xml']).toBe(blog.length);
    // Every traffic page but the withdrawn one, outside /blog/.
    expect(counts['https://www.example.com/page-sitemap.xml']).toBe(trafficPages(OWNED).length - blog.length - 1);
    expect((await inspect('https://www.example.com/blog/core-web-vitals')).sitemap).toEqual([
      'https://www.example.com/post-sitemap.xml',
      'https://www.example.com/news-sitemap.xml',
    ]);
    expect((await inspect('https://www.example.com/pricing')).sitemap).toEqual(['https://www.example.com/page-sitemap.xml']);
  });

  it('lists only the caller’s verified resources, and the registered credential owns the seeded ones', async () => {
    const { data } = await kit.sv.list();
    expect(data.items!.map((r) => r.id).sort()).toEqual(
      [
        'dns%3A%2F%2Fexample.com',
        'https%3A%2F%2Fblog.example.net%2F',
        'https%3A%2F%2Fdocs.example.com%2F',
        'https%3A%2F%2Fwww.example.com%2F',
      ].sort(),
    );
    for (const r of data.items!) {
      expect(r.owners).toContain(kit.key.client_email);
    }
    kit.emulator.state.resources.set('dns://example.io', {
      id: 'dns%3A%2F%2Fexample.io',
      site: { type: 'INET_DOMAIN', identifier: 'example.io' },
      owners: ['someone@example.io'],
    });
    expect((await kit.sv.list()).data.items!.map((r) => r.id)).not.toContain('dns%3A%2F%2Fexample.io');
  });

  it('answers insert with the resource for a site the caller already owns, with no token placed', async () => {
    const { data } = await kit.sv.insert({ verificationMethod: 'META', requestBody: { site: { type: 'SITE', identifier: OWNED } } });
    expect(data.owners).toContain(kit.key.client_email);
    const e = await kit.sv
      .insert({ verificationMethod: 'META', requestBody: { site: { type: 'SITE', identifier: 'https://www.example.io/' } } })
      .catch((err: unknown) => err);
    expect((e as { status?: number }).status).toBe(400);
  });
});
