import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { type ReadResourceResult, ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { McpUiResourceMeta } from '@modelcontextprotocol/ext-apps';
import { packageRoot } from '../common/product.js';
import { VIEW_MIME_TYPE } from '../tools/app-visibility.js';
import { McpResource, type ResourceContext, ResourceProvider } from '../tools/resource.decorator.js';
import { INDEX_HEALTH_VIEW, PERFORMANCE_VIEW } from '../tools/view-uris.js';

/**
 * Everything a view needs is inlined in its one HTML file, so it asks the host
 * for no origin at all: the CSP lists none, and the default MCP Apps CSP is
 * enough. A border, because a chart and a table read better framed.
 */
const UI_META: McpUiResourceMeta = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };

/**
 * The ui:// views (PRODUCT.md §5d) as MCP resources. Each is one HTML file
 * built by scripts/build-views.mjs into dist/views/; it is read from disk on
 * the first resources/read that asks for it, never at start-up.
 */
@ResourceProvider()
@Injectable()
export class ViewResources {
  private readonly html = new Map<string, Promise<string>>();

  @McpResource({
    name: 'performance-view',
    uri: PERFORMANCE_VIEW,
    title: 'Performance view',
    description:
      'MCP Apps view of query_search_analytics: daily clicks and impressions, the comparison window, top movers, data-truth notes.',
    mimeType: VIEW_MIME_TYPE,
  })
  async performance(uri: URL, _variables: Record<string, string>, _context: ResourceContext): Promise<ReadResourceResult> {
    return this.serve(uri, 'performance.html');
  }

  @McpResource({
    name: 'index-health-view',
    uri: INDEX_HEALTH_VIEW,
    title: 'Index health view',
    description:
      'MCP Apps view of inspect_urls and list_sitemaps: one row per URL, sitemap errors and warnings, the inspection quota left.',
    mimeType: VIEW_MIME_TYPE,
  })
  async indexHealth(uri: URL, _variables: Record<string, string>, _context: ResourceContext): Promise<ReadResourceResult> {
    return this.serve(uri, 'index-health.html');
  }

  private async serve(uri: URL, file: string): Promise<ReadResourceResult> {
    let text = this.html.get(file);
    if (!text) {
      text = readFile(join(packageRoot(), 'dist', 'views', file), 'utf8');
      this.html.set(file, text);
      // A failed read is not remembered: the next request tries again.
      text.catch(() => this.html.delete(file));
    }
    try {
      return { contents: [{ uri: uri.href, mimeType: VIEW_MIME_TYPE, text: await text, _meta: { ui: UI_META } }] };
    } catch {
      // Only when the package was built without its views (npm run build makes them).
      throw new ResourceNotFoundError(uri.href);
    }
  }
}
