// The Index health view of inspect_urls and list_sitemaps (PRODUCT.md §5d):
// one row per URL (verdict, coverage, last crawl, canonical mismatch, and the
// rich-result issues that inspect_url reports, fetched on request because each
// costs an inspection), the sitemaps with their errors and warnings, and the
// inspection quota left (from the result, or from gsc://quota).
import type * as z from 'zod';
import type { BatchOutput, CondensedOut, InspectionOutput } from '../../inspection/inspection.schemas.js';
import type { QuotaRemainingOut } from '../../quota/quota-report.js';
import type { SitemapListOutput } from '../../sitemaps/sitemap-format.js';
import { count, el, notice, show, textOf } from './dom.js';
import { type ToolResult, ViewBridge } from './view-bridge.js';

// The tools' own output schemas (types only: erased from the bundle), so a view never drifts from what the tool sends.
type Batch = z.output<typeof BatchOutput>;
type Condensed = z.output<typeof CondensedOut>;
type QuotaRemaining = z.output<typeof QuotaRemainingOut>;
type Sitemaps = z.output<typeof SitemapListOutput>;
type Sitemap = Sitemaps['sitemaps'][number];
type RichResults = NonNullable<z.output<typeof InspectionOutput>['rich_results']>;

const app = document.getElementById('app')!;
const bridge = new ViewBridge({ onToolResult: (result) => void render(result) });
show(app, el('p', { class: 'muted' }, 'Waiting for the result…'));
void bridge.connect('google-search-console-mcp index health view');

async function render(result: ToolResult): Promise<void> {
  const data = result.structuredContent;
  if (result.isError || !data) {
    show(app, notice(textOf(result) || 'The tool returned no data.', 'error'));
    return;
  }
  const quotaBox = el('section', { class: 'quota', 'aria-label': 'Inspection quota' });
  if (Array.isArray(data.results)) {
    const batch = data as unknown as Batch;
    show(
      app,
      el('header', {}, el('h1', {}, batch.site_url), el('p', { class: 'muted' }, `${count(batch.results.length)} URL(s) inspected`)),
      urlTable(batch, quotaBox),
      quotaBox,
    );
    if (batch.quota_remaining) {
      showQuota(quotaBox, batch.quota_remaining);
    } else {
      await loadQuota(quotaBox, batch.site_url);
    }
  } else if (Array.isArray(data.sitemaps)) {
    const list = data as unknown as Sitemaps;
    show(
      app,
      el(
        'header',
        {},
        el('h1', {}, list.site_url),
        el('p', { class: 'muted' }, list.sitemap_index ? `Sitemaps in ${list.sitemap_index}` : 'Submitted sitemaps'),
      ),
      sitemapTable(list),
      quotaBox,
    );
    await loadQuota(quotaBox, list.site_url);
  } else {
    show(app, notice('This result has no URLs or sitemaps to show.'));
  }
}

function urlTable(batch: Batch, quotaBox: HTMLElement): HTMLElement {
  const rich = new Map<string, HTMLTableCellElement>();
  const rows = batch.results.map((r) => {
    const cell = el('td', { class: 'rich' }, r.error ? '—' : 'not checked');
    rich.set(r.url, cell);
    return el(
      'tr',
      { 'data-url': r.url },
      el('td', { class: 'url' }, r.url),
      el('td', {}, r.error ? el('span', { class: 'badge fail' }, 'error') : verdictBadge(r.verdict)),
      el('td', {}, r.error ?? r.coverage_state ?? '—'),
      el('td', {}, r.last_crawl_time ? r.last_crawl_time.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—'),
      el('td', { class: 'canonical' }, ...canonicalCell(r)),
      cell,
    );
  });
  const inspected = batch.results.filter((r) => !r.error).map((r) => r.url);
  const check = el(
    'button',
    { type: 'button', class: 'check' },
    `Check rich results (${inspected.length} more inspection${inspected.length === 1 ? '' : 's'})`,
  );
  check.addEventListener('click', () => void checkRichResults(batch.site_url, inspected, rich, check, quotaBox));
  return el(
    'section',
    {},
    el(
      'table',
      { class: 'urls' },
      el(
        'thead',
        {},
        el('tr', {}, ...['URL', 'Verdict', 'Coverage', 'Last crawl', 'Canonical', 'Rich results'].map((h) => el('th', {}, h))),
      ),
      el('tbody', {}, ...rows),
    ),
    batch.not_inspected.length ? notice(`Not inspected (${batch.stop_reason ?? 'stopped'}): ${batch.not_inspected.join(', ')}`) : null,
    inspected.length ? check : null,
  );
}

/**
 * inspect_urls names google_canonical only when Google chose another URL. Without it, an indexed URL (verdict
 * PASS) is its own canonical; any other has none, since Google selects a canonical only for what it indexes
 * (inspect_url then says "Canonical: none reported") — so a 404 is never "same".
 */
function canonicalCell(r: Condensed): (HTMLElement | string)[] {
  if (r.error) {
    return ['—'];
  }
  if (r.google_canonical) {
    return [el('span', { class: 'badge warn' }, 'mismatch'), el('span', { class: 'small' }, ` Google chose ${r.google_canonical}`)];
  }
  return r.verdict === 'PASS'
    ? ['same']
    : [el('span', { class: 'muted', title: 'Google selects a canonical only for URLs it indexes' }, 'none')];
}

/**
 * The URLs a sitemap lists. contents[] has one entry per content type, each counting the sitemap's URLs of that
 * type, so a news sitemap's pages appear under web and again under news: the pages are the web count (else the
 * largest), and the other types are said beside it, never added to it.
 */
function sitemapUrls(s: Sitemap): (HTMLElement | string)[] {
  if (!s.contents.length) {
    return ['—'];
  }
  const web = s.contents.find((c) => c.type === 'web');
  const pages = web?.submitted ?? Math.max(...s.contents.map((c) => c.submitted));
  const others = s.contents.filter((c) => c !== web).map((c) => `${c.type} ${count(c.submitted)}`);
  return [count(pages), others.length && web ? el('span', { class: 'small' }, ` (${others.join(', ')})`) : ''];
}

async function checkRichResults(
  site: string,
  urls: string[],
  cells: Map<string, HTMLTableCellElement>,
  button: HTMLButtonElement,
  quotaBox: HTMLElement,
): Promise<void> {
  button.disabled = true;
  for (const url of urls) {
    const cell = cells.get(url)!;
    show(cell, 'checking…');
    let answer: ToolResult;
    try {
      answer = await bridge.callTool('inspect_url', { site_url: site, url });
    } catch (error) {
      show(cell, el('span', { class: 'error-text' }, error instanceof Error ? error.message : String(error)));
      continue;
    }
    if (answer.isError) {
      show(cell, el('span', { class: 'error-text' }, textOf(answer)));
      // A quota refusal stops the rest: every further call would be refused too.
      if (/quota/i.test(textOf(answer))) {
        break;
      }
      continue;
    }
    const rich = (answer.structuredContent as { rich_results?: RichResults } | undefined)?.rich_results;
    if (!rich) {
      show(cell, 'none detected');
      continue;
    }
    const issues = rich.types.flatMap((t) => t.issues.map((i) => `${t.type}: ${i.message} (${i.severity})`));
    show(
      cell,
      verdictBadge(rich.verdict),
      ...(issues.length
        ? [el('ul', { class: 'issues' }, ...issues.map((i) => el('li', {}, i)))]
        : [` ${rich.types.map((t) => t.type).join(', ')}`]),
    );
  }
  await loadQuota(quotaBox, site);
}

function sitemapTable(list: Sitemaps): HTMLElement {
  if (!list.sitemaps.length) {
    return notice('No sitemaps are submitted for this property.');
  }
  return el(
    'table',
    { class: 'sitemaps' },
    el(
      'thead',
      {},
      el('tr', {}, ...['Sitemap', 'Type', 'Last downloaded', 'Errors', 'Warnings', 'URLs submitted'].map((h) => el('th', {}, h))),
    ),
    el(
      'tbody',
      {},
      ...list.sitemaps.map((s) =>
        el(
          'tr',
          { class: s.errors ? 'has-errors' : s.warnings ? 'has-warnings' : undefined, 'data-path': s.path },
          el('td', { class: 'url' }, s.path, s.is_pending ? el('span', { class: 'tag' }, 'pending') : null),
          el('td', {}, s.is_sitemaps_index ? 'index' : s.type),
          el('td', {}, s.last_downloaded?.slice(0, 10) ?? 'never'),
          el('td', { class: 'num' }, s.errors ? el('span', { class: 'badge fail' }, count(s.errors)) : '0'),
          el('td', { class: 'num' }, s.warnings ? el('span', { class: 'badge warn' }, count(s.warnings)) : '0'),
          el('td', { class: 'num' }, ...sitemapUrls(s)),
        ),
      ),
    ),
  );
}

async function loadQuota(box: HTMLElement, site: string): Promise<void> {
  try {
    const read = await bridge.readResource('gsc://quota');
    const overview = JSON.parse(read.contents[0]?.text ?? '{}') as { inspection?: QuotaRemaining[] };
    const mine = overview.inspection?.find((q) => q.property === site);
    if (mine) {
      showQuota(box, mine);
    } else {
      show(box, el('p', { class: 'muted' }, 'No URL inspections of this property counted by this server today.'));
    }
  } catch (error) {
    show(box, el('p', { class: 'muted' }, `Quota left: unknown (${error instanceof Error ? error.message : String(error)}).`));
  }
}

function showQuota(box: HTMLElement, q: QuotaRemaining): void {
  const minute = q.minute ? `, ${count(q.minute.remaining)} of ${count(q.minute.limit)} this minute` : '';
  show(
    box,
    el('h2', {}, 'Inspection quota left'),
    el(
      'p',
      { class: 'quota-line' },
      `${count(q.day.remaining)} of ${count(q.day.limit)} today${minute}.`,
      q.google_refused_at ? ` Google refused one at ${q.google_refused_at}.` : '',
    ),
    el(
      'p',
      { class: 'small muted' },
      `This server's own count; other clients of the property spend the same quota. Resets ${q.day.resets_at}.`,
    ),
  );
}

function verdictBadge(verdict: string | undefined): HTMLElement {
  const kind =
    verdict === 'PASS' ? 'pass' : verdict === 'FAIL' ? 'fail' : verdict === 'NEUTRAL' || verdict === 'PARTIAL' ? 'warn' : 'muted';
  return el('span', { class: `badge ${kind}` }, verdict ?? '—');
}
