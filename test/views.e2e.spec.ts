// MCP Apps views (PRODUCT.md §5d) end to end: the declarations both protocol
// revisions list, the ui:// resources as served, and each view rendered by
// headless Chromium inside a host page built on ext-apps' AppBridge, fed by real
// tool results from the emulator through real MCP clients. Screenshots go to
// test-artifacts/views/ (git-ignored); their paths are printed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { getToolUiResourceUri, isToolVisibilityAppOnly, isToolVisibilityModelOnly } from '@modelcontextprotocol/ext-apps/app-bridge';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps';
import type { Browser } from 'playwright-core';
import { MARKUP_QUERY } from '../src/emulator/search-analytics-data.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { INDEX_HEALTH_VIEW, PERFORMANCE_VIEW } from '../src/tools/view-uris.js';
import { connectHttp, type TestClient } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { type HostClient, launchChromium, renderView, screenshot } from './support/views-browser.js';

const OWNED = SEED_PROPERTIES.owned;
const BLOG = SEED_PROPERTIES.blog;
const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } };
const SERIES_TOOL = 'performance_daily_series';

let google: TestGoogle;
let server: InProcessServer;
/** The same server, narrowed to one property: a host whose server no longer allows the property a result was about. */
let narrow: InProcessServer;
let browser: Browser;
const closers: Array<() => Promise<unknown>> = [];

/** A v2 (2026-07-28) client that renders views: it declares the MCP Apps extension. */
async function uiClient(url: string): Promise<V2Client> {
  const client = new V2Client(
    { name: 'gsc-view-host', version: '1.0.0' },
    { capabilities: UI, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new V2HttpTransport(new URL(url)));
  closers.push(() => client.close());
  return client;
}

async function plainClient(url: string, revision: '2026-07-28' | '2025-11-25'): Promise<TestClient> {
  const client = await connectHttp(url, { revision });
  closers.push(() => client.close());
  return client;
}

const host = (client: V2Client): HostClient => ({
  callTool: (params) => client.callTool(params),
  readResource: (params) => client.readResource(params),
  listTools: () => client.listTools(),
});

const call = async (client: V2Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as any;

beforeAll(async () => {
  google = await startGoogle();
  server = await startInProcess(google.env);
  narrow = await startInProcess({ ...google.env, GSC_ALLOWED_SITES: OWNED });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) {
    await close().catch(() => undefined);
  }
  await browser?.close();
  await narrow?.close();
  await server?.close();
  await google?.emulator.close();
});

describe('declarations', () => {
  it('links the views on both revisions, keeps write tools model-only, and lists the app-only tool only to clients that render views', async () => {
    for (const revision of ['2026-07-28', '2025-11-25'] as const) {
      const tools = await (await plainClient(server.url, revision)).listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.has(SERIES_TOOL)).toBe(false);
      expect(getToolUiResourceUri(byName.get('query_search_analytics'))).toBe(PERFORMANCE_VIEW);
      expect(getToolUiResourceUri(byName.get('inspect_urls'))).toBe(INDEX_HEALTH_VIEW);
      expect(getToolUiResourceUri(byName.get('list_sitemaps'))).toBe(INDEX_HEALTH_VIEW);
      for (const tool of tools) {
        // ext-apps' own reading of the declarations: every write tool is the model's only; no read tool is hidden from it.
        expect(isToolVisibilityModelOnly(tool)).toBe(!tool.annotations.readOnlyHint);
        expect(isToolVisibilityAppOnly(tool)).toBe(false);
      }
    }
    const v2 = (await (await uiClient(server.url)).listTools()).tools;
    const series = v2.find((t) => t.name === SERIES_TOOL);
    expect(series && isToolVisibilityAppOnly(series)).toBe(true);
    expect(series?.annotations?.readOnlyHint).toBe(true);

    const v1 = new V1Client({ name: 'gsc-view-host-v1', version: '1.0.0' }, { capabilities: UI });
    await v1.connect(new V1HttpTransport(new URL(server.url)));
    closers.push(() => v1.close());
    const legacy = (await v1.listTools()).tools;
    expect(legacy.map((t) => t.name)).toContain(SERIES_TOOL);
    expect(legacy.find((t) => t.name === SERIES_TOOL)?._meta).toEqual({ ui: { visibility: ['app'] } });
  });

  it('registers and allows the app-only tool exactly with the tool whose view calls it', async () => {
    const names = async (env: Record<string, string>) => {
      const scoped = await startInProcess({ ...google.env, ...env });
      closers.push(() => scoped.close());
      return (await (await uiClient(scoped.url)).listTools()).tools.map((t) => t.name);
    };
    expect(await names({ GSC_ALLOW_TOOLS: 'essential' })).toContain(SERIES_TOOL);
    expect(await names({ GSC_ALLOW_TOOLS: 'list_sites,inspect_urls' })).not.toContain(SERIES_TOOL);
    expect(await names({ GSC_DENY_TOOLS: 'query_search_analytics' })).not.toContain(SERIES_TOOL);
    // Filters name the model's tools only: the app-only tool cannot be chosen on its own.
    await expect(startInProcess({ ...google.env, GSC_ALLOW_TOOLS: SERIES_TOOL })).rejects.toThrow(/matches no tool/);
  });

  it('serves each view as one self-contained HTML document of at most 200 KB', async () => {
    const client = await uiClient(server.url);
    for (const uri of [PERFORMANCE_VIEW, INDEX_HEALTH_VIEW]) {
      const { contents } = await client.readResource({ uri });
      expect(contents).toHaveLength(1);
      const [view] = contents as Array<{ uri: string; mimeType: string; text: string; _meta?: any }>;
      expect(view.mimeType).toBe(RESOURCE_MIME_TYPE);
      expect(view._meta?.ui?.prefersBorder).toBe(true);
      expect(view._meta?.ui?.csp).toEqual({ connectDomains: [], resourceDomains: [] });
      const bytes = Buffer.byteLength(view.text);
      process.stdout.write(`view ${uri}: ${bytes} bytes\n`);
      expect(bytes).toBeLessThanOrEqual(200 * 1024);
      expect(view.text).toMatch(/^<!doctype html>/);
      // Nothing loaded from anywhere: no external script, stylesheet, image or font.
      expect(view.text).not.toMatch(/<script[^>]+src=|<link\b|<img\b|url\(\s*['"]?https?:/i);
    }
  });
});

describe('performance view', () => {
  it('draws one point per day, the incomplete days hollow, and calls only its app-only tool', async () => {
    const client = await uiClient(server.url);
    const args = { site_url: OWNED, period: 'last7days' };
    const result = await call(client, 'query_search_analytics', args);
    expect(result.isError).toBeFalsy();
    const { start_date, end_date } = result.structuredContent;
    // Independently: the same window grouped by date with fresh data, as Search Console's own chart would show it.
    const daily = (
      await call(client, 'query_search_analytics', { site_url: OWNED, start_date, end_date, dimensions: ['date'], data_state: 'all' })
    ).structuredContent;
    const firstIncomplete = daily.data_truth.first_incomplete_date as string;
    expect(firstIncomplete).toBeDefined();
    const incomplete = daily.rows.filter((r: any) => r.keys[0] >= firstIncomplete).length;
    expect(incomplete).toBeGreaterThan(0);

    const view = await renderView(browser, {
      html: await viewHtml(client, PERFORMANCE_VIEW),
      client: host(client),
      toolArguments: args,
      toolResult: result,
      ready: 'svg.chart[data-metric="clicks"]',
    });
    const points = view.frame.locator('svg.chart[data-metric="clicks"] .series.current circle.point');
    expect(await points.count()).toBe(daily.rows.length);
    expect(await view.frame.locator('svg.chart[data-metric="clicks"] circle.point.incomplete').count()).toBe(incomplete);
    expect(await points.first().getAttribute('data-date')).toBe(start_date);
    expect(Number(await points.first().getAttribute('data-value'))).toBe(daily.rows[0].clicks);
    expect(await view.frame.locator('svg.chart[data-metric="impressions"]').count()).toBe(1);
    expect(await view.frame.locator('.series.previous').count()).toBe(0);
    expect(await view.frame.locator('.totals').textContent()).toContain(result.structuredContent.totals.clicks.toLocaleString('en-US'));
    expect(await view.frame.locator('.truth').textContent()).toContain(`data_state ${result.structuredContent.data_truth.data_state}`);
    await screenshot(view, 'performance');

    await view.frame.locator('button[data-metrics="quality"]').click();
    await view.frame.waitForSelector('svg.chart[data-metric="position"]');
    expect(await view.frame.locator('svg.chart[data-metric="ctr"] .series.current circle.point').count()).toBe(daily.rows.length);
    await screenshot(view, 'performance-ctr-position');

    // A view asking for a write tool is refused by the host: it is declared for the model only.
    const refused = await view.frame.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const w = globalThis as any;
          w.addEventListener('message', (e: any) => {
            if (e.data?.id === 'write-probe') {
              resolve(JSON.stringify(e.data.error ?? e.data.result));
            }
          });
          w.parent.postMessage(
            {
              jsonrpc: '2.0',
              id: 'write-probe',
              method: 'tools/call',
              params: {
                name: 'submit_sitemap',
                arguments: { site_url: 'https://www.example.com/', sitemap_url: 'https://www.example.com/x.xml' },
              },
            },
            '*',
          );
        }),
    );
    expect(refused).toMatch(/not available to this view/);
    expect(await view.page.evaluate(() => (globalThis as any).viewCalls)).toEqual([
      { name: SERIES_TOOL, forwarded: true },
      { name: 'submit_sitemap', forwarded: false },
    ]);
    expect(view.outsideRequests).toEqual([]);
    expect(view.consoleErrors).toEqual([]);
    await view.page.close();
  });

  it("overlays the comparison window and lists the top movers, in the host's dark theme", async () => {
    const client = await uiClient(server.url);
    const args = { site_url: OWNED, period: 'last28days', compare: 'previous_period', dimensions: ['query'], row_limit: 10 };
    const result = await call(client, 'query_search_analytics', args);
    expect(result.isError).toBeFalsy();
    const { compare } = result.structuredContent;
    const previous = (
      await call(client, 'query_search_analytics', {
        site_url: OWNED,
        start_date: compare.previous.start_date,
        end_date: compare.previous.end_date,
        dimensions: ['date'],
      })
    ).structuredContent;
    const current = (
      await call(client, 'query_search_analytics', {
        site_url: OWNED,
        start_date: compare.current.start_date,
        end_date: compare.current.end_date,
        dimensions: ['date'],
      })
    ).structuredContent;

    const view = await renderView(browser, {
      html: await viewHtml(client, PERFORMANCE_VIEW),
      client: host(client),
      toolArguments: args,
      toolResult: result,
      theme: 'dark',
      ready: 'svg.chart[data-metric="clicks"]',
    });
    expect(await view.frame.locator('svg.chart[data-metric="clicks"] .series.previous circle.point').count()).toBe(previous.rows.length);
    expect(await view.frame.locator('svg.chart[data-metric="clicks"] .series.current circle.point').count()).toBe(current.rows.length);
    expect(
      await view.frame.locator('svg.chart[data-metric="clicks"] .series.previous circle.point').first().getAttribute('data-value'),
    ).toBe(String(previous.rows[0].clicks));
    const movers = view.frame.locator('.movers tbody tr');
    expect(await movers.count()).toBe(Math.min(10, result.structuredContent.rows.length));
    expect(await movers.first().locator('td.key').textContent()).toContain(result.structuredContent.rows[0].keys[0]);
    expect(await view.frame.evaluate(() => (globalThis as any).document.documentElement.dataset.theme)).toBe('dark');
    await screenshot(view, 'performance-compare-dark');
    expect(view.consoleErrors).toEqual([]);
    await view.page.close();
  });

  it('shows a query that carries markup as text and runs nothing of it', async () => {
    const client = await uiClient(server.url);
    const args = { site_url: BLOG, period: 'last28days', dimensions: ['query'] };
    const result = await call(client, 'query_search_analytics', args);
    const markupRow = result.structuredContent.rows.findIndex((r: any) => r.keys[0] === MARKUP_QUERY);
    expect(markupRow).toBeGreaterThanOrEqual(0);
    expect(markupRow).toBeLessThan(10);

    const view = await renderView(browser, {
      html: await viewHtml(client, PERFORMANCE_VIEW),
      client: host(client),
      toolArguments: args,
      toolResult: result,
      ready: '.movers td.key',
    });
    await view.frame.waitForSelector('svg.chart');
    const keys = await view.frame.locator('.movers td.key').allTextContents();
    expect(keys[markupRow]).toBe(MARKUP_QUERY);
    expect(await view.frame.locator('img').count()).toBe(0);
    expect(await view.frame.evaluate(() => (globalThis as any).__gscInjected)).toBeUndefined();
    expect(view.outsideRequests).toEqual([]);
    await screenshot(view, 'performance-markup-query');
    await view.page.close();
  });

  it('asks for its series through the allowlist: a refused property shows the refusal', async () => {
    // The result was produced when the blog property was allowed; the host now talks to a server that allows only OWNED.
    const result = await call(await uiClient(server.url), 'query_search_analytics', { site_url: BLOG, period: 'last7days' });
    const narrowed = await uiClient(narrow.url);
    const { start_date, end_date, type } = result.structuredContent;
    const refusal = await call(narrowed, SERIES_TOOL, { site_url: BLOG, start_date, end_date, type });
    expect(refusal.isError).toBe(true);

    const view = await renderView(browser, {
      html: await viewHtml(narrowed, PERFORMANCE_VIEW),
      client: host(narrowed),
      toolArguments: { site_url: BLOG },
      toolResult: result,
      ready: '.charts .notice.error',
    });
    expect(await view.frame.locator('.charts .notice.error').textContent()).toBe(refusal.content[0].text);
    expect(await view.frame.locator('svg.chart').count()).toBe(0);
    await screenshot(view, 'performance-refused-property');
    await view.page.close();
  });
});

describe('index health view', () => {
  const page = (path: string) => `https://www.example.com/${path}`;

  it('draws one row per inspected URL, fills rich-result issues on request, and shows the quota left', async () => {
    const client = await uiClient(server.url);
    const urls = [page(''), page('blog/seo-basics'), page('products?color=red'), page('tag/misc'), page('old-page')];
    const args = { site_url: OWNED, urls };
    const result = await call(client, 'inspect_urls', args);
    expect(result.isError).toBeFalsy();
    const { results, quota_remaining } = result.structuredContent;

    const view = await renderView(browser, {
      html: await viewHtml(client, INDEX_HEALTH_VIEW),
      client: host(client),
      toolArguments: args,
      toolResult: result,
      ready: 'table.urls tbody tr',
    });
    const rows = view.frame.locator('table.urls tbody tr');
    expect(await rows.count()).toBe(results.length);
    for (let i = 0; i < results.length; i++) {
      const cells = await rows.nth(i).locator('td').allTextContents();
      expect(cells[0]).toBe(results[i].url);
      expect(cells[1]).toBe(results[i].error ? 'error' : results[i].verdict);
      if (!results[i].error) {
        expect(cells[2]).toBe(results[i].coverage_state ?? '—');
      }
      // Google names a canonical only for what it indexes: an unindexed URL has none, never "same" (issue 32 item 6).
      const canonical = results[i].google_canonical ? 'mismatch' : results[i].verdict === 'PASS' ? 'same' : 'none';
      expect([results[i].url, cells[4].split(' ')[0]]).toEqual([results[i].url, canonical]);
    }
    expect(await view.frame.locator('td.canonical .badge').count()).toBe(results.filter((r: any) => r.google_canonical).length);
    // The 404 page: the view and inspect_url tell one story.
    const gone = await call(client, 'inspect_url', { site_url: OWNED, url: page('old-page') });
    expect(gone.structuredContent.google_canonical).toBeUndefined();
    expect(gone.content[0].text).toContain('Canonical: none reported');
    expect(await view.frame.locator(`tr[data-url="${page('old-page')}"] td.canonical`).textContent()).toBe('none');
    expect(await view.frame.locator(`tr[data-url="${page('')}"] td.canonical`).textContent()).toBe('same');
    expect(await view.frame.locator('.quota-line').textContent()).toContain(
      `${quota_remaining.day.remaining.toLocaleString('en-US')} of ${quota_remaining.day.limit.toLocaleString('en-US')} today`,
    );

    const direct = (await call(client, 'inspect_url', { site_url: OWNED, url: page('blog/seo-basics') })).structuredContent;
    const issue = direct.rich_results.types.flatMap((t: any) => t.issues)[0].message as string;
    await view.frame.locator('button.check').click();
    await view.frame.waitForFunction(() =>
      [...(globalThis as any).document.querySelectorAll('td.rich')].every((c: any) => !/checking|not checked/.test(c.textContent ?? '')),
    );
    expect(await view.frame.locator(`tr[data-url="${page('blog/seo-basics')}"] td.rich`).textContent()).toContain(issue);
    await screenshot(view, 'index-health-urls');
    expect(view.outsideRequests).toEqual([]);
    expect(view.consoleErrors).toEqual([]);
    await view.page.close();
  });

  it('lists the sitemaps with their errors and warnings, and reads the quota left from gsc://quota', async () => {
    const client = await uiClient(server.url);
    const args = { site_url: OWNED };
    const result = await call(client, 'list_sitemaps', args);
    expect(result.isError).toBeFalsy();
    const { sitemaps } = result.structuredContent;

    const view = await renderView(browser, {
      html: await viewHtml(client, INDEX_HEALTH_VIEW),
      client: host(client),
      toolArguments: args,
      toolResult: result,
      ready: '.quota h2, .quota p',
    });
    expect(await view.frame.locator('table.sitemaps tbody tr').count()).toBe(sitemaps.length);
    expect(await view.frame.locator('tr.has-errors').count()).toBe(sitemaps.filter((s: any) => s.errors > 0).length);
    expect(await view.frame.locator('tr.has-warnings').count()).toBe(sitemaps.filter((s: any) => !s.errors && s.warnings > 0).length);
    // A news sitemap's 4 pages are reported once per content type (web 4, news 4): 4 URLs, not 8 (issue 32 item 6).
    const news = sitemaps.find((s: any) => s.contents.some((c: any) => c.type === 'news'));
    expect(news.contents).toEqual([
      { type: 'web', submitted: 4 },
      { type: 'news', submitted: 4 },
    ]);
    expect(await view.frame.locator(`tr[data-path="${news.path}"] td.num`).last().textContent()).toBe('4 (news 4)');
    const quota = JSON.parse(((await client.readResource({ uri: 'gsc://quota' })).contents[0] as { text: string }).text);
    const mine = quota.inspection.find((q: any) => q.property === OWNED);
    expect(await view.frame.locator('.quota').textContent()).toContain(
      mine ? `${mine.day.remaining.toLocaleString('en-US')} of` : 'No URL inspections',
    );
    await screenshot(view, 'index-health-sitemaps');
    expect(view.consoleErrors).toEqual([]);
    await view.page.close();
  });
});

async function viewHtml(client: V2Client, uri: string): Promise<string> {
  const { contents } = await client.readResource({ uri });
  return (contents[0] as { text: string }).text;
}
