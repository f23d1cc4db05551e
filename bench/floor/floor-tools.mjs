// The floor of PRODUCT §10: what a bare MCP SDK v2 server with our 21 tools
// costs, nothing else. Same tool names, input and output fields of the same
// kinds and roughly the same description lengths as ours (tools/list answers
// ~30 KB either way), zod schemas built the ordinary way at module load and
// registered with McpServer.registerTool on every server the SDK asks for.
// The five tools of the HTTP load mix make the same Google requests as ours
// (the same client libraries, pointed at the emulator; query_search_analytics
// three, as ours does for its data-truth block); the rest answer a line.
import * as z from 'zod';

const SITE = z.string().describe('Property: "sc-domain:example.com" or "https://www.example.com/".');
const PAGE = z.string().describe('Full page URL, e.g. https://www.example.com/page.');
const CONFIRM = z
  .string()
  .optional()
  .describe('Only when a previous call returned confirm_token: pass it back, with otherwise identical arguments.');
const TEXT = 'A short description of what this tool does, what it needs and what comes back, of about the length ours have.';

const s = () => z.string().optional();
const b = () => z.boolean().optional();
const n = () => z.number().int().optional();
const list = (item) => z.array(item).optional();
const obj = () => z.object({ state: s(), time: s(), detail: s() }).optional();
const GUARDED = { executed: b(), outcome: s(), confirm_token: s(), expires_at: s() };

const tool = (name, input, output, access = 'read') => ({ name, input: z.object(input), output: z.object(output), access });

export const FLOOR_TOOLS = [
  tool('add_site', { site_url: SITE }, { site_url: s(), permission_level: s(), added: b() }, 'write'),
  tool('delete_site', { site_url: SITE, confirm_token: CONFIRM }, { site_url: s(), deleted: b(), ...GUARDED }, 'destructive'),
  tool(
    'delete_sitemap',
    { site_url: SITE, sitemap_url: PAGE, confirm_token: CONFIRM },
    { site_url: s(), sitemap_url: s(), deleted: b(), ...GUARDED },
    'destructive',
  ),
  tool('get_indexing_status', { url: PAGE }, { url: s(), notified: b(), latest_update: obj(), latest_remove: obj() }),
  tool('get_site', { site_url: SITE }, { site_url: s(), permission_level: s() }),
  tool(
    'get_sitemap',
    { site_url: SITE, sitemap_url: PAGE },
    {
      path: s(),
      type: s(),
      is_pending: b(),
      is_sitemaps_index: b(),
      last_submitted: s(),
      last_downloaded: s(),
      warnings: n(),
      errors: n(),
      contents: list(z.object({ type: s(), submitted: n(), indexed: n() })),
      site_url: s(),
      untrusted: b(),
    },
  ),
  tool(
    'get_verification_token',
    { site_url: SITE, method: z.enum(['DNS_TXT', 'DNS_CNAME', 'FILE', 'META', 'ANALYTICS', 'TAG_MANAGER']).optional() },
    { site_url: s(), method: s(), token: s(), record: obj(), next_step: s() },
  ),
  tool(
    'get_verified_site',
    { id: z.string().describe('Verified resource id, e.g. dns://example.com.') },
    { id: s(), site_url: s(), owners: list(z.string()), untrusted: b() },
  ),
  tool(
    'inspect_url',
    { site_url: SITE, url: PAGE, language_code: z.string().optional().describe('BCP-47 language for messages.') },
    {
      site_url: s(),
      url: s(),
      verdict: s(),
      coverage_state: s(),
      last_crawl_time: s(),
      crawled_as: s(),
      robots_txt_state: s(),
      indexing_state: s(),
      page_fetch_state: s(),
      google_canonical: s(),
      user_canonical: s(),
      canonical_differs: b(),
      sitemaps: list(z.string()),
      referring_urls: list(z.string()),
      referring_urls_total: n(),
      rich_results: obj(),
      amp: obj(),
      mobile_usability: obj(),
      inspection_result_link: s(),
      untrusted: b(),
    },
  ),
  tool(
    'inspect_urls',
    { site_url: SITE, urls: z.array(PAGE).min(1).max(20), language_code: z.string().optional() },
    {
      site_url: s(),
      results: list(z.object({ url: s(), verdict: s(), coverage_state: s() })),
      not_inspected: list(z.string()),
      results_not_shown: n(),
      untrusted: b(),
    },
  ),
  tool(
    'list_sitemaps',
    { site_url: SITE, sitemap_index: z.string().optional().describe('Only the sitemaps listed in this index.') },
    {
      site_url: s(),
      sitemap_index: s(),
      sitemaps: list(z.object({ path: s(), type: s(), is_pending: b(), warnings: n(), errors: n() })),
      omitted: n(),
      untrusted: b(),
    },
  ),
  tool('list_sites', {}, { sites: list(z.object({ site_url: s(), permission_level: s() })), withheld: n() }),
  tool('list_verified_sites', {}, { resources: list(z.object({ id: s(), site_url: s() })), withheld: n(), untrusted: b() }),
  tool(
    'query_search_analytics',
    {
      site_url: SITE,
      period: z.enum(['last7days', 'last28days', 'last3months']).optional(),
      start_date: z.string().optional().describe('YYYY-MM-DD, Pacific Time.'),
      end_date: z.string().optional().describe('YYYY-MM-DD, Pacific Time.'),
      dimensions: z.array(z.enum(['date', 'query', 'page', 'country', 'device', 'searchAppearance'])).optional(),
      type: z.enum(['web', 'image', 'video', 'news', 'discover', 'googleNews']).optional(),
      data_state: z.enum(['final', 'all', 'hourly_all']).optional(),
      aggregation_type: z.enum(['auto', 'byPage', 'byProperty']).optional(),
      filters: z.array(z.object({ dimension: z.string(), operator: z.string().optional(), expression: z.string() })).optional(),
      filter_type: z.enum(['and']).optional(),
      row_limit: z.number().int().min(1).max(25000).optional(),
      start_row: z.number().int().min(0).optional(),
    },
    {
      site_url: s(),
      start_date: s(),
      end_date: s(),
      dimensions: list(z.string()),
      aggregation_type: s(),
      rows: list(z.object({ keys: list(z.string()), clicks: z.number(), impressions: z.number(), ctr: z.number(), position: z.number() })),
      totals: obj(),
      row_count: n(),
      start_row: n(),
      next_start_row: n(),
      rows_not_shown: n(),
      first_incomplete_date: s(),
      first_incomplete_hour: s(),
      untrusted: b(),
    },
  ),
  tool(
    'request_indexing',
    { url: PAGE, type: z.enum(['URL_UPDATED', 'URL_DELETED']).optional() },
    { url: s(), type: s(), notify_time: s(), latest_update: obj(), latest_remove: obj() },
    'write',
  ),
  tool(
    'setup_site',
    { site_url: SITE },
    { site_url: s(), steps: list(z.object({ step: s(), done: b(), detail: s() })), next_step: s(), method: s(), record: obj() },
  ),
  tool(
    'submit_sitemap',
    { site_url: SITE, sitemap_url: PAGE },
    { site_url: s(), sitemap_url: s(), submitted: b(), outside_property: b() },
    'write',
  ),
  tool(
    'submit_sitemaps',
    { site_url: SITE, sitemap_urls: z.array(PAGE).min(1).max(50) },
    {
      site_url: s(),
      results: list(z.object({ sitemap_url: s(), submitted: b(), error: s() })),
      submitted_count: n(),
      failed_count: n(),
      duplicates_skipped: n(),
    },
    'write',
  ),
  tool('unverify_site', { id: z.string(), confirm_token: CONFIRM }, { id: s(), site_url: s(), unverified: b(), ...GUARDED }, 'destructive'),
  tool(
    'update_site_owners',
    { id: z.string(), owners: z.array(z.string()).min(1), method: z.string().optional(), confirm_token: CONFIRM },
    {
      id: s(),
      site_url: s(),
      owners: list(z.string()),
      untrusted: b(),
      ...GUARDED,
    },
    'destructive',
  ),
  tool(
    'verify_site',
    { site_url: SITE, method: z.string().optional() },
    { id: s(), site_url: s(), owners: list(z.string()), method: s(), verified: b(), next_step: s(), untrusted: b() },
    'write',
  ),
];

const annotations = (access) => ({
  readOnlyHint: access === 'read',
  destructiveHint: access === 'destructive',
  idempotentHint: access === 'read',
  openWorldHint: true,
});
const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** The calls the HTTP load mix makes, done the plain way: one client-library request, the answer mapped to the output fields. */
function googleHandlers(sc) {
  return {
    list_sites: async () => {
      const { data } = await sc.sites.list({});
      return { sites: (data.siteEntry ?? []).map((e) => ({ site_url: e.siteUrl, permission_level: e.permissionLevel })) };
    },
    get_site: async ({ site_url }) => {
      const { data } = await sc.sites.get({ siteUrl: site_url });
      return { site_url: data.siteUrl, permission_level: data.permissionLevel };
    },
    list_sitemaps: async ({ site_url }) => {
      const { data } = await sc.sitemaps.list({ siteUrl: site_url });
      return {
        site_url,
        sitemaps: (data.sitemap ?? []).map((m) => ({
          path: m.path,
          type: m.type,
          is_pending: m.isPending,
          warnings: Number(m.warnings ?? 0),
          errors: Number(m.errors ?? 0),
        })),
      };
    },
    query_search_analytics: async ({ site_url, dimensions, row_limit }) => {
      const requestBody = {
        startDate: day(-7),
        endDate: day(-1),
        dimensions,
        type: 'web',
        dataState: 'final',
        rowLimit: row_limit,
        startRow: 0,
      };
      const { data } = await sc.searchanalytics.query({ siteUrl: site_url, requestBody });
      const rows = data.rows ?? [];
      // The same Google requests as ours (PRODUCT §5b, §10): after the rows, which days are final
      // and the whole-property totals, together; the floor only sends them.
      const [startDate, endDate] = [requestBody.startDate, requestBody.endDate];
      await Promise.all([
        sc.searchanalytics.query({
          siteUrl: site_url,
          requestBody: { startDate, endDate, dimensions: ['date'], type: 'web', dataState: 'all', rowLimit: 7 },
        }),
        sc.searchanalytics.query({
          siteUrl: site_url,
          requestBody: { startDate, endDate, type: 'web', dataState: 'final', dimensions: [], rowLimit: 1, startRow: 0 },
        }),
      ]);
      return { site_url, start_date: requestBody.startDate, end_date: requestBody.endDate, dimensions, rows, row_count: rows.length };
    },
    inspect_url: async ({ site_url, url }) => {
      const { data } = await sc.urlInspection.index.inspect({ requestBody: { inspectionUrl: url, siteUrl: site_url } });
      const r = data.inspectionResult?.indexStatusResult ?? {};
      return {
        site_url,
        url,
        verdict: r.verdict,
        coverage_state: r.coverageState,
        last_crawl_time: r.lastCrawlTime,
        google_canonical: r.googleCanonical,
      };
    },
  };
}

/** Registers the 21 tools on one McpServer; `sc` is a searchconsole client (HTTP floor) or undefined (stdio floor). */
export function registerFloorTools(server, sc) {
  const google = sc ? googleHandlers(sc) : {};
  for (const t of FLOOR_TOOLS) {
    const run = google[t.name];
    server.registerTool(
      t.name,
      {
        title: t.name.replace(/_/g, ' '),
        description: TEXT,
        inputSchema: t.input,
        outputSchema: t.output,
        annotations: annotations(t.access),
      },
      async (args) => {
        if (!run) {
          return { content: [{ type: 'text', text: `${t.name} is not part of the floor's load mix.` }], isError: true };
        }
        const structuredContent = await run(args);
        return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
      },
    );
  }
  return server;
}
