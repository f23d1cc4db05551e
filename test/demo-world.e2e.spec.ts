import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectHttp, type TestClient, text } from './support/clients.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';

// PRODUCT §5c: the answers of the read tools over the demo world (the very
// binary and emulator seed `npm run demo` runs) tell one story.

const DEMO = resolve(import.meta.dirname, '../dist/demo.js');
/** The credential demo.ts registers with the emulator. */
const DEMO_CREDENTIAL = 'gsc-demo@demo-project.iam.gserviceaccount.com';
const OWNED = 'https://www.example.com/';
const READ_TOOLS = [
  'list_sites',
  'get_site',
  'setup_site',
  'list_sitemaps',
  'get_sitemap',
  'query_search_analytics',
  'inspect_url',
  'inspect_urls',
  'get_indexing_status',
  'get_verification_token',
  'list_verified_sites',
  'get_verified_site',
  'list_annotations',
];

let demo: HttpBinary;
let client: TestClient;
const used = new Set<string>();

async function call(name: string, args: Record<string, unknown> = {}) {
  used.add(name);
  return client.call(name, args);
}

async function ok(name: string, args: Record<string, unknown> = {}) {
  const result = await call(name, args);
  if (result.isError) {
    throw new Error(`${name} ${JSON.stringify(args)} failed: ${text(result)}`);
  }
  return result.structuredContent!;
}

/** Pages with clicks in the last 3 months, by property and search type. */
async function pagesWithClicks(site: string, type: string): Promise<string[]> {
  const out = await ok('query_search_analytics', { site_url: site, period: 'last3months', dimensions: ['page'], type, row_limit: 1000 });
  return out.rows.filter((r: any) => r.clicks > 0).map((r: any) => r.keys[0]);
}

beforeAll(async () => {
  demo = await spawnHttpBinary({}, [DEMO]);
  for (let i = 0; i < 200 && !demo.stderr().includes('Press Ctrl+C'); i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  client = await connectHttp(demo.url, { revision: '2026-07-28' });
});
afterAll(async () => {
  await client?.close();
  await demo?.stop();
});

describe('the demo world agrees with itself', () => {
  it('a page with clicks is on Google (indexed, or left the index after its traffic), never unknown or blocked', async () => {
    for (const site of [OWNED, 'sc-domain:example.com', 'https://blog.example.net/']) {
      for (const type of ['web', 'discover']) {
        const pages = await pagesWithClicks(site, type);
        expect(pages.length).toBeGreaterThan(5);
        for (let i = 0; i < pages.length; i += 20) {
          const out = await ok('inspect_urls', { site_url: site, urls: pages.slice(i, i + 20) });
          for (const r of out.results) {
            expect(r.coverage_state).not.toMatch(/unknown to Google|Blocked by robots\.txt|noindex/i);
            if (r.verdict !== 'PASS') {
              // Only a page that left the index: its last crawl is after its last day with clicks.
              expect(r.coverage_state).toBe('Not found (404)');
              const daily = await ok('query_search_analytics', {
                site_url: site,
                period: 'last3months',
                dimensions: ['date'],
                type,
                filters: [{ dimension: 'page', operator: 'equals', expression: r.url }],
              });
              const lastDay = daily.rows
                .filter((d: any) => d.clicks > 0)
                .map((d: any) => d.keys[0])
                .sort()
                .at(-1);
              expect(lastDay < r.last_crawl_time.slice(0, 10)).toBe(true);
            }
          }
        }
      }
    }
  });

  it('pages blocked by robots.txt or unknown to Google have no clicks', async () => {
    const pages = new Set(await pagesWithClicks(OWNED, 'web'));
    for (const url of ['https://www.example.com/private/report', 'https://www.example.com/brand-new-page']) {
      const out = await ok('inspect_url', { site_url: OWNED, url });
      expect(out.coverage_state).toMatch(/Blocked by robots\.txt|unknown to Google/);
      expect(pages.has(url)).toBe(false);
    }
  });

  it('states a crawl time as a fact: two calls, the same instant', async () => {
    const urls = ['https://www.example.com/pricing', 'https://www.example.com/docs/api', 'https://www.example.com/tag/misc'];
    const first = [];
    for (const url of urls) {
      first.push(await ok('inspect_url', { site_url: OWNED, url }));
    }
    // Past the next whole second (a time of the form the answer uses), once for all three.
    await new Promise((r) => setTimeout(r, 1100));
    for (const [i, url] of urls.entries()) {
      const second = await ok('inspect_url', { site_url: OWNED, url });
      expect(first[i].last_crawl_time).toEqual(expect.any(String));
      expect(second.last_crawl_time).toBe(first[i].last_crawl_time);
    }
  });

  it('setup_site, get_verification_token, verify_site and list_verified_sites agree about every property', async () => {
    const sites = (await ok('list_sites')).sites.map((s: any) => s.site_url as string);
    const resources = (await ok('list_verified_sites')).resources as { id: string; site_url: string; owners: string[] }[];
    for (const r of resources) {
      expect(r.owners).toContain(DEMO_CREDENTIAL);
    }
    for (const site of sites) {
      await ok('get_site', { site_url: site });
      const setup = await ok('setup_site', { site_url: site });
      const verify = setup.steps.find((s: any) => s.step === 'verify_ownership');
      const through = /verified owner through (\S+) \(resource id ([^)]+)\)/.exec(verify.detail);
      const token = await ok('get_verification_token', { site_url: site });
      const attempt = await call('verify_site', { site_url: site, method: token.method });
      if (through) {
        expect(setup.next_step).toMatch(/^Nothing to do/);
        expect(token.verified_through).toBe(through[1]);
        expect(attempt.isError).toBeFalsy();
        expect(attempt.structuredContent!.owners).toContain(DEMO_CREDENTIAL);
        const named = resources.find((r) => r.id === through[2]);
        expect(named?.owners).toContain(DEMO_CREDENTIAL);
        const got = await ok('get_verified_site', { id: through[2] });
        expect(got.owners).toContain(DEMO_CREDENTIAL);
        // A property with a verification of its own is verified through it, not through a domain above it.
        if (resources.some((r) => r.site_url === site)) {
          expect(through[1]).toBe(site);
        }
      } else {
        expect(token.verified_through).toBeUndefined();
        expect(attempt.isError).toBe(true);
        const said = text(attempt);
        expect(said).toContain(`with ${token.method}`);
        if (!token.method.startsWith('DNS')) {
          expect(said).not.toMatch(/DNS|propagat/);
        } else {
          expect(said).toMatch(/record/);
        }
      }
    }
  });

  it('shows the seeded Indexing history through the server’s own record, beside Google’s answer', async () => {
    const live = await ok('get_indexing_status', { url: 'https://www.example.com/jobs/senior-engineer' });
    expect(live.notified).toBe(true);
    expect(live.sent_by_this_server.map((s: any) => s.type)).toEqual(['URL_UPDATED']);
    const closed = await ok('get_indexing_status', { url: 'https://www.example.com/jobs/closed-role' });
    expect(closed.sent_by_this_server.map((s: any) => s.type)).toEqual(['URL_DELETED', 'URL_UPDATED']);
    // The world agrees: the deleted job ad was crawled after the notification and is gone.
    const gone = await ok('inspect_url', { site_url: OWNED, url: 'https://www.example.com/jobs/closed-role' });
    expect(gone.coverage_state).toBe('Not found (404)');
    expect(Date.parse(gone.last_crawl_time)).toBeGreaterThan(Date.parse(closed.sent_by_this_server[0].sent_at));
  });

  it('lists in sitemaps only pages the site has, and inspections name sitemaps that exist', async () => {
    const top = (await ok('list_sitemaps', { site_url: OWNED })).sitemaps as any[];
    const children = (await ok('list_sitemaps', { site_url: OWNED, sitemap_index: 'https://www.example.com/sitemap_index.xml' }))
      .sitemaps as any[];
    const all = [...top, ...children];
    for (const s of top) {
      await ok('get_sitemap', { site_url: OWNED, sitemap_url: s.path });
    }
    expect(top.some((s) => s.is_pending)).toBe(true);
    const pages = await pagesWithClicks(OWNED, 'web');
    const naming = new Map<string, number>();
    for (let i = 0; i < pages.length; i += 20) {
      for (const url of pages.slice(i, i + 20)) {
        const out = await ok('inspect_url', { site_url: OWNED, url });
        for (const s of out.sitemaps) {
          naming.set(s, (naming.get(s) ?? 0) + 1);
        }
      }
    }
    for (const s of naming.keys()) {
      expect(all.map((x) => x.path)).toContain(s);
    }
    const submitted = (path: string) => all.find((s) => s.path === path).contents.find((c: any) => c.type === 'web').submitted as number;
    // The index's children list traffic pages only: exactly the pages that name them.
    for (const child of children) {
      expect(submitted(child.path)).toBe(naming.get(child.path) ?? 0);
    }
    // No sitemap lists more pages than the site has.
    const index = top.find((s) => s.is_sitemaps_index);
    expect(submitted(index.path)).toBeLessThanOrEqual(pages.length);
  });

  it('a team note is the same in list_annotations and in the analytics answer whose window holds it, and on no other property', async () => {
    const window = await ok('query_search_analytics', { site_url: OWNED, period: 'last7days' });
    const added = await ok('add_annotation', { site_url: OWNED, date: window.end_date, text: 'Demo: redesigned the home page' });
    const listed = (await ok('list_annotations', { site_url: OWNED, start_date: window.start_date, end_date: window.end_date }))
      .annotations;
    expect(listed).toEqual([added.annotation]);
    expect((await ok('query_search_analytics', { site_url: OWNED, period: 'last7days' })).annotations).toEqual(listed);
    // A window without that day knows nothing of it; nor does another property.
    const before = await ok('query_search_analytics', { site_url: OWNED, start_date: window.start_date, end_date: window.start_date });
    expect(before.annotations).toBeUndefined();
    expect((await ok('list_annotations', { site_url: 'https://blog.example.net/' })).annotations).toEqual([]);
  });

  it('drove every read tool the server lists', async () => {
    const tools = await client.listTools();
    const reads = tools
      .filter((t) => t.annotations?.readOnlyHint === true)
      .map((t) => t.name)
      .sort();
    expect(reads).toEqual([...READ_TOOLS].sort());
    for (const name of READ_TOOLS) {
      expect(used).toContain(name);
    }
  });
});
