import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../common/product.js';
import { VIEW_MIME_TYPE } from '../tools/app-visibility.js';
import type { ResourceContext } from '../tools/resource.decorator.js';
import { INDEX_HEALTH_VIEW, PERFORMANCE_VIEW } from '../tools/view-uris.js';
import { ViewResources } from './views.resources.js';

// The ui:// views as resources, read from dist/views/ (npm run build makes them; the e2e specs drive
// them in Chromium). Here: what a host gets from resources/read, and that it needs no origin.

const context = {} as ResourceContext;
const views = new ViewResources();
const reads = [
  ['performance', PERFORMANCE_VIEW, () => views.performance(new URL(PERFORMANCE_VIEW), {}, context)],
  ['index health', INDEX_HEALTH_VIEW, () => views.indexHealth(new URL(INDEX_HEALTH_VIEW), {}, context)],
] as const;

describe('ViewResources', () => {
  it('reads from the built package', () => {
    expect(existsSync(join(packageRoot(), 'dist', 'views', 'performance.html'))).toBe(true);
  });

  it.each(reads)('serves the %s view as one MCP Apps HTML document asking the host for no origin', async (_name, uri, read) => {
    const { contents } = await read();
    expect(contents).toHaveLength(1);
    const [content] = contents as [{ uri: string; mimeType: string; text: string; _meta: { ui: unknown } }];
    expect(content.uri).toBe(uri);
    expect(content.mimeType).toBe(VIEW_MIME_TYPE);
    expect(content._meta.ui).toEqual({ csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true });
    expect(content.text).toMatch(/^<!doctype html>/i);
    // Everything inlined: the CSP above lists no domain, so a script, style or image from anywhere would not load.
    expect(content.text).not.toMatch(/<script[^>]+\bsrc=/i);
    expect(content.text).not.toMatch(/<link[^>]+\bhref=/i);
    expect(content.text).not.toMatch(/\b(src|href)=["']?https?:/i);
  });
});
