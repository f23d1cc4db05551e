// The Performance view's caveats (PRODUCT.md §5e) in headless Chromium, fed by
// real answers of the emulator through a real MCP client, on a fixed clock
// (10:00 PST on 2026-12-05: Google is still collecting the hours from 08:00): hourly series with the hours' time zone, Google's
// known anomaly as shaded bands marked per metric, team notes as markers whose
// text stays text, and the person's selection told to the host with
// ui/update-model-context (by drag, click and keyboard). One screenshot per
// state goes to test-artifacts/views/.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps';
import type { Browser, Locator } from 'playwright-core';
import { Clock } from '../src/common/clock.js';
import { StandingClock } from './support/manual-clock.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { PERFORMANCE_VIEW } from '../src/tools/view-uris.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { launchChromium, type RenderedView, renderView, screenshot } from './support/views-browser.js';

const OWNED = SEED_PROPERTIES.owned;
const NOW = new Date('2026-12-05T18:00:00Z');
/** 28 days straddling the end of Google's impressions logging error (2025-05-13 to about 2026-04-27). */
const ACROSS_FIX = { start_date: '2026-04-13', end_date: '2026-05-10' };
const MARKUP = '<img src=x onerror="globalThis.__gscInjected=1">';

let google: TestGoogle;
let server: InProcessServer;
let client: V2Client;
let browser: Browser;
let html: string;

beforeAll(async () => {
  google = await startGoogle({ now: () => NOW });
  server = await startInProcess(google.env, [[Clock, new StandingClock(() => NOW)]]);
  client = new V2Client(
    { name: 'gsc-view-host', version: '1.0.0' },
    {
      capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    },
  );
  await client.connect(new V2HttpTransport(new URL(server.url)));
  html = ((await client.readResource({ uri: PERFORMANCE_VIEW })).contents[0] as { text: string }).text;
  process.stdout.write(`view ${PERFORMANCE_VIEW}: ${Buffer.byteLength(html)} bytes\n`);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await client?.close();
  await browser?.close();
  await server?.close();
  await google?.emulator.close();
});

const call = async (name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as any;
  expect([name, result.isError ?? false]).toEqual([name, false]);
  return result;
};

async function show(args: Record<string, unknown>, options: { acceptsModelContext?: boolean } = {}) {
  const result = await call('query_search_analytics', args);
  const view = await renderView(browser, {
    html,
    client: {
      callTool: (params) => client.callTool(params),
      readResource: (params) => client.readResource(params),
      listTools: () => client.listTools(),
    },
    toolArguments: args,
    toolResult: result,
    ready: 'svg.chart[data-metric="clicks"] circle.point',
    ...options,
  });
  return { result, out: result.structuredContent, view };
}

/** What the host was told, in order (the test host keeps every ui/update-model-context). */
const told = (view: RenderedView) => view.page.evaluate(() => (globalThis as any).modelContext as any[]);
async function nextContext(view: RenderedView, count: number): Promise<any> {
  await view.page.waitForFunction((n) => (globalThis as any).modelContext.length >= n, count);
  return (await told(view))[count - 1];
}

const point = (view: RenderedView, metric: string, key: string) =>
  view.frame.locator(`svg.chart[data-metric="${metric}"] .series.current circle.point[data-date="${key}"]`);

async function centre(locator: Locator): Promise<{ x: number; y: number }> {
  const box = (await locator.boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

describe('hourly', () => {
  it('draws one point per hour Google keys, the incomplete hours hollow, the hours in their time zone, and tells an hour clicked', async () => {
    const { out, view } = await show({ site_url: OWNED, dimensions: ['hour'] });
    const rows = [...out.rows].sort((a: any, b: any) => Date.parse(a.keys[0]) - Date.parse(b.keys[0]));
    const firstIncomplete = out.data_truth.first_incomplete_hour as string;
    expect(firstIncomplete).toBe('2026-12-05T08:00:00-08:00');
    const clicks = view.frame.locator('svg.chart[data-metric="clicks"]');
    expect(await clicks.getAttribute('data-unit')).toBe('hour');
    expect(await clicks.getAttribute('data-slots')).toBe('48');
    const points = clicks.locator('.series.current circle.point');
    expect(await points.count()).toBe(rows.length);
    expect(await points.evaluateAll((ps) => ps.map((p) => p.getAttribute('data-date')))).toEqual(rows.map((r: any) => r.keys[0]));
    expect(await points.evaluateAll((ps) => ps.map((p) => Number(p.getAttribute('data-value'))))).toEqual(rows.map((r: any) => r.clicks));
    const incomplete = rows.filter((r: any) => Date.parse(r.keys[0]) >= Date.parse(firstIncomplete)).length;
    expect(incomplete).toBeGreaterThan(0);
    expect(await clicks.locator('circle.point.incomplete').count()).toBe(incomplete);
    expect(await clicks.locator('text.axis-note').textContent()).toBe('hour of day, America/Los_Angeles (UTC -08:00 PST)');
    expect(await clicks.locator('text.axis').allTextContents()).toEqual(expect.arrayContaining(['12-04', '06:00', '12-05', '18:00']));
    expect(await view.frame.locator('figcaption').first().textContent()).toBe('Clicks per hour');
    expect(await view.frame.locator('.truth').textContent()).toContain('Google keys them with the UTC offset -08:00 PST');
    await screenshot(view, 'performance-hourly');

    const hour = rows[14];
    const at = await centre(point(view, 'clicks', hour.keys[0]));
    await view.page.mouse.click(at.x, at.y);
    const { structuredContent, content } = await nextContext(view, 1);
    expect(structuredContent.selection).toMatchObject({
      site_url: OWNED,
      granularity: 'hour',
      start: hour.keys[0],
      end: hour.keys[0],
      hours: 1,
      hour_offsets: ['-08:00 PST'],
      metrics: { clicks: hour.clicks, impressions: hour.impressions },
    });
    expect(content[0].text).toContain(`the person selected the hour ${hour.keys[0]}`);
    expect(view.consoleErrors).toEqual([]);
    await view.page.close();
  });
});

describe('known anomalies', () => {
  it('shades the days inside the logging error, marked unreliable where the metric is affected and fine where not', async () => {
    const { out, view } = await show({ site_url: OWNED, ...ACROSS_FIX });
    const [anomaly] = out.data_truth.anomalies;
    expect(anomaly).toMatchObject({ affected: ['impressions', 'ctr', 'position'], not_affected: ['clicks'] });
    expect(anomaly.overlap).toMatchObject({ start_date: '2026-04-13', end_date: '2026-04-27', days: 15 });

    const inBand = async (metric: string) => {
      const chart = view.frame.locator(`svg.chart[data-metric="${metric}"]`);
      const band = chart.locator(`g.band[data-anomaly="${anomaly.id}"]`);
      expect(await band.count()).toBe(1);
      const rect = { x: Number(await band.locator('rect').getAttribute('x')), w: Number(await band.locator('rect').getAttribute('width')) };
      const covered = await chart
        .locator('.series.current circle.point')
        .evaluateAll(
          (ps, r) =>
            ps
              .filter((p) => Number(p.getAttribute('cx')) >= r.x && Number(p.getAttribute('cx')) <= r.x + r.w)
              .map((p) => p.getAttribute('data-date')),
          rect,
        );
      return { band, covered };
    };
    const clicks = await inBand('clicks');
    const days = Array.from({ length: 15 }, (_, i) => `2026-04-${String(13 + i).padStart(2, '0')}`);
    expect(clicks.covered).toEqual(days);
    expect(await clicks.band.getAttribute('data-affected')).toBe('false');
    expect(await clicks.band.locator('text').textContent()).toBe('clicks not affected');
    const impressions = await inBand('impressions');
    expect(impressions.covered).toEqual(days);
    expect(await impressions.band.getAttribute('data-affected')).toBe('true');
    expect(await impressions.band.locator('title').textContent()).toBe(`${anomaly.summary} ${anomaly.sentence}`);
    const legend = view.frame.locator(`.anomalies li[data-anomaly="${anomaly.id}"]`);
    expect(await legend.locator('.summary').textContent()).toBe(anomaly.summary);
    expect(await legend.locator('.sentence').textContent()).toBe(`${anomaly.sentence} Source: ${anomaly.source}`);
    await screenshot(view, 'performance-anomaly-band');

    await view.frame.locator('button[data-metrics="quality"]').click();
    await view.frame.waitForSelector('svg.chart[data-metric="position"]');
    for (const metric of ['ctr', 'position']) {
      expect(await view.frame.locator(`svg.chart[data-metric="${metric}"] g.band`).getAttribute('data-affected')).toBe('true');
    }
    await screenshot(view, 'performance-anomaly-band-ctr-position');
    expect(view.consoleErrors).toEqual([]);
    await view.page.close();
  });
});

describe('team notes', () => {
  it('draws each note as a numbered marker on its day, its text as text: markup in a note creates no element', async () => {
    const plain = await call('add_annotation', {
      site_url: OWNED,
      date: '2026-11-20',
      text: 'Migrated the blog to the new CMS',
      tag: 'release',
    });
    const markup = await call('add_annotation', { site_url: OWNED, date: '2026-11-25', text: MARKUP });
    const { out, view } = await show({ site_url: OWNED, period: 'last28days' });
    const notes = out.annotations as any[];
    expect(notes.map((n) => n.id)).toEqual([plain.structuredContent.annotation.id, markup.structuredContent.annotation.id]);

    const markers = view.frame.locator('svg.chart[data-metric="clicks"] g.marker');
    expect(await markers.count()).toBe(2);
    for (const [i, note] of notes.entries()) {
      const marker = view.frame.locator(`svg.chart[data-metric="clicks"] g.marker[data-annotation="${note.id}"]`);
      expect(await marker.locator('title').textContent()).toBe(`${i + 1}. ${note.date}${note.tag ? ` [${note.tag}]` : ''}: ${note.text}`);
      expect(await marker.locator('line').getAttribute('x1')).toBe(await point(view, 'clicks', note.date).getAttribute('cx'));
    }
    expect(await view.frame.locator('.notes .note-text').allTextContents()).toEqual(['Migrated the blog to the new CMS', MARKUP]);
    expect(await view.frame.locator('.notes .tag').allTextContents()).toEqual(['release']);
    expect(await view.frame.locator('img').count()).toBe(0);
    expect(await view.frame.evaluate(() => (globalThis as any).__gscInjected)).toBeUndefined();
    expect(view.outsideRequests).toEqual([]);
    await screenshot(view, 'performance-annotations');
    expect(view.consoleErrors).toEqual([]);
    await view.page.close();
  });
});

describe('selection', () => {
  it('tells the host a dragged range, a clicked day and a keyboard range, with their figures, anomalies and notes', async () => {
    const note = await call('add_annotation', {
      site_url: OWNED,
      date: '2026-04-20',
      text: 'Launched the spring sale pages',
      tag: 'launch',
    });
    const { out, view } = await show({ site_url: OWNED, ...ACROSS_FIX });
    // Independently: the same days grouped by date with fresh data, as the view's series asks for them.
    const daily = (await call('query_search_analytics', { site_url: OWNED, ...ACROSS_FIX, dimensions: ['date'], data_state: 'all' }))
      .structuredContent.rows as any[];
    const sum = (from: string, to: string) => {
      const days = daily.filter((r) => r.keys[0] >= from && r.keys[0] <= to);
      return { clicks: days.reduce((n, r) => n + r.clicks, 0), impressions: days.reduce((n, r) => n + r.impressions, 0) };
    };

    const from = await centre(point(view, 'impressions', '2026-04-18'));
    const to = await centre(point(view, 'impressions', '2026-04-30'));
    await view.page.mouse.move(from.x, from.y);
    await view.page.mouse.down();
    await view.page.mouse.move((from.x + to.x) / 2, from.y, { steps: 4 });
    await view.page.mouse.move(to.x, to.y, { steps: 4 });
    await view.page.mouse.up();
    const dragged = await nextContext(view, 1);
    expect(dragged.structuredContent.selection).toMatchObject({
      site_url: OWNED,
      type: 'web',
      granularity: 'day',
      start_date: '2026-04-18',
      end_date: '2026-04-30',
      days: 13,
      metrics: sum('2026-04-18', '2026-04-30'),
      anomalies: [{ id: out.data_truth.anomalies[0].id, affected: ['impressions', 'ctr', 'position'], selected_days: 10 }],
      annotations: [{ date: '2026-04-20', text: note.structuredContent.annotation.text, tag: 'launch' }],
    });
    expect(dragged.structuredContent.selection.series.map((d: any) => d.key)).toEqual(
      daily.map((r) => r.keys[0]).filter((d) => d >= '2026-04-18' && d <= '2026-04-30'),
    );
    const text = dragged.content[0].text as string;
    expect(text).toContain(`the person selected 2026-04-18 to 2026-04-30 (13 days, Pacific dates)`);
    expect(text).toContain('overlaps 10 selected days: impressions, CTR, position unreliable there; clicks fine.');
    expect(text).toContain('"Launched the spring sale pages" [launch]');
    // Every chart shows the one selection.
    expect(await view.frame.locator('rect.selection[data-from="2026-04-18"][data-to="2026-04-30"]').count()).toBe(2);
    expect(await view.frame.locator('.selection-panel .selected').textContent()).toMatch(
      /^Selected 2026-04-18 to 2026-04-30 \(13 days, Pacific dates\): /,
    );
    await screenshot(view, 'performance-selection-range');

    const day = await centre(point(view, 'clicks', '2026-05-05'));
    await view.page.mouse.click(day.x, day.y);
    const clicked = (await nextContext(view, 2)).structuredContent.selection;
    expect(clicked).toMatchObject({ start_date: '2026-05-05', end_date: '2026-05-05', days: 1, metrics: sum('2026-05-05', '2026-05-05') });
    expect([clicked.anomalies, clicked.annotations]).toEqual([[], []]);

    // Keyboard: Home, then Shift+→ twice selects the window's first three days; Escape clears.
    const chart = view.frame.locator('svg.chart[data-metric="clicks"]');
    await chart.focus();
    await view.page.keyboard.press('Home');
    await view.page.keyboard.press('Shift+ArrowRight');
    await view.page.keyboard.press('Shift+ArrowRight');
    // The view tells the host 300 ms after the last key: a slow browser may tell an intermediate range first, so wait for the last.
    let keyed: any;
    for (let tries = 0; tries < 100 && keyed?.end_date !== '2026-04-15'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const all = await told(view);
      keyed = all.length >= 3 ? all[all.length - 1].structuredContent?.selection : undefined;
    }
    expect(keyed).toMatchObject({ start_date: '2026-04-13', end_date: '2026-04-15', days: 3, metrics: sum('2026-04-13', '2026-04-15') });
    await screenshot(view, 'performance-selection-keyboard');
    const before = (await told(view)).length;
    await view.page.keyboard.press('Escape');
    const cleared = await nextContext(view, before + 1);
    expect(cleared.structuredContent).toEqual({ selection: null, site_url: OWNED });
    expect(cleared.content[0].text).toContain('nothing is selected');
    expect(await told(view)).toHaveLength(before + 1);
    expect(view.consoleErrors).toEqual([]);
    await view.page.close();
  }, 60_000);

  it('sends nothing to a host that takes no model context, and says so', async () => {
    const { view } = await show({ site_url: OWNED, period: 'last7days' }, { acceptsModelContext: false });
    const days = view.frame.locator('svg.chart[data-metric="clicks"] .series.current circle.point');
    const at = await centre(days.nth(2));
    await view.page.mouse.click(at.x, at.y);
    await view.frame.waitForSelector('.selection-panel p.muted:text-matches("does not take context")');
    expect(await view.frame.locator('.selection-panel .selected').textContent()).toContain(
      `Selected the day ${await days.nth(2).getAttribute('data-date')}`,
    );
    expect(await told(view)).toEqual([]);
    await view.page.close();
  });
});
