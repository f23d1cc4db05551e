import { Injectable } from '@nestjs/common';
import * as z from 'zod';
import { PageUrlArg, SiteUrlArg } from '../tools/tool-args.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { TargetOf } from '../tools/tool-target.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { fitToBudget, type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { condense, condensedLine, describeInspection, INDEXED_STATE, indexVerdict, inspectionFacts } from './inspection-report.js';
import { BatchOutput, type CondensedVerdict, InspectionOutput } from './inspection.schemas.js';
import { type BatchItem, type BatchResult, InspectionService } from './inspection.service.js';
import { inert } from '../common/inert-text.js';
import type { QuotaVerdict } from '../quota/quota-types.js';
import { figure, quotaRemaining, quotaRemainingLine, refusalExplanation } from '../quota/quota-report.js';
import { NOTHING_SENT, plural } from '../common/sentences.js';
import { INDEX_HEALTH_VIEW } from '../tools/view-uris.js';

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
    description: "Google's indexed state of a URL as of its last crawl (not a live test).",
    input: InspectInput,
    target: ['site', 'page'],
    output: InspectionOutput,
    access: 'read',
    apis: ['searchconsole'],
    essential: true,
  })
  async inspectUrl(args: z.infer<typeof InspectInput>, call: ToolCall<TargetOf<typeof InspectInput>>): Promise<ToolOutput> {
    const { site, page } = call.target;
    const url = page.href;
    const { result, counted } = await this.inspection.inspect(site, url, args.language_code);
    const facts = inspectionFacts(site, url, result);
    // Like inspect_urls: an inspection the ledger could not count is said, so quota figures are read as a lower bound.
    return toolOutput({ ...facts }, counted ? describeInspection(facts) : `${describeInspection(facts)}\n${quotaRemainingLine(undefined)}`);
  }

  @Tool({
    name: 'inspect_urls',
    title: 'Inspect URLs',
    description: `inspect_url verdicts for up to ${MAX_BATCH} URLs within the quota left; lists any not inspected.`,
    input: BatchInput,
    target: ['site', 'pages'],
    output: BatchOutput,
    access: 'read',
    apis: ['searchconsole'],
    view: INDEX_HEALTH_VIEW,
  })
  async inspectUrls(args: z.infer<typeof BatchInput>, call: ToolCall<TargetOf<typeof BatchInput>>): Promise<ToolOutput> {
    const { site, pages } = call.target;
    const urls = [...new Set(pages.map((page) => page.href))];
    const duplicates = pages.length - urls.length;
    const batch = await this.inspection.inspectMany(site, urls, {
      languageCode: args.language_code,
      signal: call.signal,
      onSettled: (url, item, settled) => void call.progress(settled, urls.length, progressNote(url, item)),
    });

    const results: CondensedVerdict[] = [];
    const notInspected: string[] = [];
    batch.items.forEach((item, i) => {
      const url = urls[i];
      if (item.state === 'done') {
        results.push(condense(inspectionFacts(site, url, item.value)));
      } else if (item.state === 'failed') {
        results.push({ url, error: item.error instanceof Error ? item.error.message : String(item.error) });
      } else {
        notInspected.push(url);
      }
    });

    const failed = results.filter((r) => r.error).length;
    const indexed = results.filter((r) => r.verdict === 'PASS').length;
    const head =
      `Indexed state of ${plural(urls.length, 'URL')} in ${site}: ${indexed} on Google, ${results.length - indexed - failed} not on Google, ` +
      `${failed} failed${notInspected.length ? `, ${notInspected.length} not inspected` : ''}. ${INDEXED_STATE}`;
    const tail: string[] = [];
    if (duplicates) {
      tail.push(`${plural(duplicates, 'duplicate URL')} ${duplicates === 1 ? 'was' : 'were'} inspected once.`);
    }
    if (notInspected.length) {
      tail.push(notInspectedSentence(site, notInspected, batch));
    }
    if (failed) {
      tail.push('A failed URL does not affect the others; inspect_url on one of them gives the full error and report.');
    }
    tail.push(quotaRemainingLine(batch.quota));

    const structured = {
      site_url: site,
      not_inspected: notInspected,
      ...(batch.stop && notInspected.length ? { stop_reason: batch.stop } : {}),
      ...(batch.verdict ? { quota: verdictFacts(batch.verdict, batch.waitedMs) } : {}),
      ...(batch.quota ? { quota_remaining: quotaRemaining(batch.quota) } : {}),
      untrusted: true as const,
    };
    return fitToBudget(results, (kept, dropped) =>
      toolOutput(
        { ...structured, results: [...kept], ...(dropped ? { results_not_shown: dropped } : {}) },
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

/** A few words per URL for notifications/progress: the verdict, or that it failed. */
function progressNote(url: string, item: BatchItem): string {
  if (item.state === 'done') {
    const verdict = indexVerdict(item.value);
    return `${inert(url, 200)}: ${verdict}${VERDICT_WORDS[verdict] ? ` (${VERDICT_WORDS[verdict]})` : ''}`;
  }
  return `${inert(url, 200)}: failed`;
}

const VERDICT_WORDS: Record<string, string> = { PASS: 'on Google', NEUTRAL: 'excluded', FAIL: 'error' };

function notInspectedSentence(site: string, urls: readonly string[], batch: BatchResult): string {
  const list = urls.map((u) => inert(u)).join(', ');
  switch (batch.stop) {
    case 'cancelled':
      return `Not inspected, because the request was cancelled: ${list}. Nothing was sent to Google for them; the inspections already sent finished and are listed above.`;
    case 'daily_budget':
      return (
        `Not inspected, because the daily URL-inspection quota of ${site} is used up by this server's own count (${quotaUse(batch)}; Google allows 2 000 per property per day): ${list}. ` +
        'Nothing was sent to Google for them; retry them tomorrow, after midnight Pacific Time, when the quota resets.'
      );
    default: {
      const verdict = batch.verdict;
      const waited = batch.waitedMs
        ? ` Google refused again after this batch waited ${seconds(batch.waitedMs)} once.`
        : ' Google had refused this property earlier today, and refused again.';
      const explained = verdict
        ? ` ${refusalExplanation(verdict)}`
        : " Google's answer does not say which limit was hit, and this server's own count cannot be read (its state store is unreachable): the per-minute limit (600) clears within a minute; the daily limit (2 000) resets at midnight Pacific Time.";
      if (verdict?.likely === 'minute') {
        return `Not inspected, because the per-minute URL-inspection quota of ${site} is used up (most likely: Google's refusal does not say which limit): ${list}. Google inspected none of them; retry them in a minute.${waited}${explained}`;
      }
      return (
        `Not inspected, because the daily URL-inspection quota of ${site} is used up (most likely: Google's refusal does not say which limit): ${list}. ` +
        `Google inspected none of them; retry them tomorrow, after midnight Pacific Time, when the quota resets.${waited}${explained}`
      );
    }
  }
}

function quotaUse(batch: BatchResult): string {
  return batch.quota ? `${figure(batch.quota.day.used)} inspections today` : 'its daily count is full';
}

function verdictFacts(verdict: QuotaVerdict, waitedMs: number) {
  const { snapshot } = verdict;
  return {
    likely_limit: verdict.likely,
    basis: verdict.basis,
    ...(snapshot.minute ? { minute_resets_at: snapshot.minute.resetsAt.toISOString() } : {}),
    day_resets_at: snapshot.day.resetsAt.toISOString(),
    waited_seconds: waitedMs / 1000,
  };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
