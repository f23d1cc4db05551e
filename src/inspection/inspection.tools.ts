import { Injectable } from '@nestjs/common';
import * as z from 'zod';
import { PageUrlArg, SiteUrlArg } from '../mcp/tool-args.js';
import type { TargetOf, ToolCall } from '../mcp/tool-call.js';
import { Tool, ToolProvider } from '../mcp/tool.decorator.js';
import { fitToBudget, type ToolOutput, toolOutput } from '../mcp/tool-output.js';
import { condense, condensedLine, describeInspection, INDEXED_STATE, inspectionFacts } from './inspection-report.js';
import { BatchOutput, type CondensedVerdict, InspectionOutput } from './inspection.schemas.js';
import { InspectionService, isDailyQuota } from './inspection.service.js';
import { NOTHING_SENT, plural } from '../common/sentences.js';

export const MAX_BATCH = 20;

const LanguageArg = z.string().optional().describe('BCP-47, e.g. en-US.');
const InspectInput = z.object({ site_url: SiteUrlArg, url: PageUrlArg, language_code: LanguageArg });
const BatchInput = z.object({
  site_url: SiteUrlArg,
  urls: z
    .array(PageUrlArg)
    .min(1, 'urls needs at least one page URL.')
    .max(MAX_BATCH, `inspect_urls takes at most ${MAX_BATCH} URLs per call; split the list into several calls. ${NOTHING_SENT}`),
  language_code: LanguageArg,
});

@ToolProvider()
@Injectable()
export class InspectionTools {
  constructor(private readonly inspection: InspectionService) {}

  @Tool({
    name: 'inspect_url',
    title: 'Inspect URL',
    description:
      "Google's indexed state of a URL as of its last crawl (not a live test): verdict, coverage, crawl, canonicals, rich results.",
    input: InspectInput,
    output: InspectionOutput,
    access: 'read',
    apis: ['searchconsole'],
    essential: true,
  })
  async inspectUrl(args: z.infer<typeof InspectInput>, call: ToolCall<TargetOf<typeof InspectInput>>): Promise<ToolOutput> {
    const { site, page } = call.target;
    const url = page.href;
    const facts = inspectionFacts(site, url, await this.inspection.inspect(site, url, args.language_code));
    return toolOutput({ ...facts }, describeInspection(facts));
  }

  @Tool({
    name: 'inspect_urls',
    title: 'Inspect URLs',
    description: `inspect_url verdicts for up to ${MAX_BATCH} URLs, in parallel; stops at the daily quota and lists what it skipped.`,
    input: BatchInput,
    output: BatchOutput,
    access: 'read',
    apis: ['searchconsole'],
  })
  async inspectUrls(args: z.infer<typeof BatchInput>, call: ToolCall<TargetOf<typeof BatchInput>>): Promise<ToolOutput> {
    const { site, pages } = call.target;
    const urls = [...new Set(pages.map((page) => page.href))];
    const duplicates = pages.length - urls.length;
    const outcomes = await this.inspection.inspectMany(site, urls, args.language_code);

    const results: CondensedVerdict[] = [];
    const notInspected: string[] = [];
    outcomes.forEach((outcome, i) => {
      const url = urls[i];
      if (outcome.state === 'done') results.push(condense(inspectionFacts(site, url, outcome.value)));
      else if (outcome.state === 'skipped') notInspected.push(url);
      else if (isDailyQuota(outcome.error)) notInspected.push(url);
      else results.push({ url, error: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) });
    });

    const failed = results.filter((r) => r.error).length;
    const indexed = results.filter((r) => r.verdict === 'PASS').length;
    const head =
      `Indexed state of ${plural(urls.length, 'URL')} in ${site}: ${indexed} on Google, ${results.length - indexed - failed} not on Google, ` +
      `${failed} failed${notInspected.length ? `, ${notInspected.length} not inspected` : ''}. ${INDEXED_STATE}`;
    const tail: string[] = [];
    if (duplicates) tail.push(`${plural(duplicates, 'duplicate URL')} ${duplicates === 1 ? 'was' : 'were'} inspected once.`);
    if (notInspected.length) {
      tail.push(
        `Not inspected, because the daily URL-inspection quota of ${site} is used up (Google allows 2000 per property per day): ${notInspected.join(', ')}. ` +
          `Google inspected none of them; retry them tomorrow, after midnight Pacific Time, when the quota resets.`,
      );
    }
    if (failed) tail.push('A failed URL does not affect the others; inspect_url on one of them gives the full error and report.');

    return fitToBudget(results, (kept, dropped) =>
      toolOutput(
        { site_url: site, results: [...kept], not_inspected: notInspected, ...(dropped ? { results_not_shown: dropped } : {}), untrusted: true },
        [
          head,
          ...kept.map(condensedLine),
          ...(dropped ? [`${dropped} more results not shown, to stay under 100 kB; inspect fewer URLs per call.`] : []),
          ...tail,
        ].join('\n'),
      ),
    );
  }
}
