import { Reflector } from '@nestjs/core';
import { AnalyticsTools } from '../../src/analytics/analytics.tools.js';
import { IndexingTools } from '../../src/indexing/indexing.tools.js';
import { InspectionTools } from '../../src/inspection/inspection.tools.js';
import { TOOL_METADATA } from '../../src/tools/tool.decorator.js';
import type { ToolSpec } from '../../src/tools/tool-spec.js';
import { SitemapsTools } from '../../src/sitemaps/sitemaps.tools.js';
import { SitesTools } from '../../src/sites/sites.tools.js';
import { VerificationTools } from '../../src/verification/verification.tools.js';

/** The @Tool declarations of the real tool classes, read the way the registry reads them, without booting Nest. */
export function declaredTools(): ToolSpec[] {
  const reflector = new Reflector();
  const specs: ToolSpec[] = [];
  for (const provider of [SitesTools, SitemapsTools, AnalyticsTools, InspectionTools, IndexingTools, VerificationTools]) {
    const prototype = provider.prototype as unknown as Record<string, unknown>;
    for (const method of Object.getOwnPropertyNames(prototype)) {
      const spec =
        typeof prototype[method] === 'function'
          ? reflector.get<ToolSpec | undefined>(TOOL_METADATA, prototype[method] as () => unknown)
          : undefined;
      if (spec) {
        specs.push(spec);
      }
    }
  }
  return specs.sort((a, b) => a.name.localeCompare(b.name));
}
