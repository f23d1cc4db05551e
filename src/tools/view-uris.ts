// The ui:// views this server ships (PRODUCT.md §5d), named once: tools link
// them in their declarations, ViewResources serves them.

/** Daily clicks and impressions of query_search_analytics, its comparison and data-truth notes. */
export const PERFORMANCE_VIEW = 'ui://google-search-console-mcp/performance.html';

/** One row per inspected URL (inspect_urls), sitemap errors and warnings (list_sitemaps), the inspection quota left. */
export const INDEX_HEALTH_VIEW = 'ui://google-search-console-mcp/index-health.html';
