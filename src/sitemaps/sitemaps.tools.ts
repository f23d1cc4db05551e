import { Injectable } from '@nestjs/common';
import * as z from 'zod';
import { inert } from '../common/inert-text.js';
import { NOTHING_SENT, plural } from '../common/sentences.js';
import { actingPart, type ApprovalPlan } from '../tools/approval-plan.js';
import { SiteUrlArg } from '../tools/tool-args.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { TargetOf } from '../tools/tool-target.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { fitToBudget, outputBytes, RESULT_BUDGET_BYTES, type ToolOutput, toolOutput } from '../tools/tool-output.js';
import {
  ERRORS_WHERE,
  outsideProperty,
  parseSitemapUrl,
  PENDING_MEANING,
  planSubmissions,
  SitemapListOutput,
  SitemapSchema,
  sitemapLine,
  toSitemapOut,
} from './sitemap-format.js';
import { type SubmitResult, SitemapsService } from './sitemaps.service.js';
import { INDEX_HEALTH_VIEW } from '../tools/view-uris.js';

export const MAX_BATCH = 50;

// Not .min(1): minLength is outside Gemini's declaration subset; the refusal is a sentence instead.
const SitemapUrlArg = z
  .string()
  .refine((url) => url.length > 0, 'sitemap_url is empty: give the full sitemap URL, e.g. https://www.example.com/sitemap.xml.')
  .describe('Full sitemap URL, e.g. https://www.example.com/sitemap.xml.');

const ListInput = z.object({ site_url: SiteUrlArg, sitemap_index: z.string().optional() });
const SitemapInput = z.object({ site_url: SiteUrlArg, sitemap_url: SitemapUrlArg });
const BatchInput = z.object({
  site_url: SiteUrlArg,
  sitemap_urls: z
    .array(z.string())
    .min(1, 'sitemap_urls is empty: give 1–50 full sitemap URLs.')
    .max(MAX_BATCH, {
      error: (issue) =>
        `submit_sitemaps takes at most ${MAX_BATCH} sitemaps per call and got ${(issue.input as unknown[]).length}. ${NOTHING_SENT} Split them into calls of ${MAX_BATCH} or fewer.`,
    })
    .describe('1–50 full sitemap URLs.'),
});

const OUTSIDE_NOTE =
  'Google reads a sitemap hosted outside the property only when ownership of its host is verified in Search Console too (cross-site submission); otherwise expect errors on it.';

@ToolProvider()
@Injectable()
export class SitemapsTools {
  constructor(private readonly sitemaps: SitemapsService) {}

  @Tool({
    name: 'list_sitemaps',
    title: 'List sitemaps',
    description: "A property's sitemaps, status and counts; sitemap_index: an index's children.",
    input: ListInput,
    target: ['site'],
    output: SitemapListOutput,
    access: 'read',
    apis: ['searchconsole'],
    essential: true,
    view: INDEX_HEALTH_VIEW,
  })
  async listSitemaps(args: z.infer<typeof ListInput>, call: ToolCall<TargetOf<typeof ListInput>>): Promise<ToolOutput> {
    const { site } = call.target;
    const index = args.sitemap_index?.trim() ? parseSitemapUrl(args.sitemap_index, 'sitemap_index').url : undefined;
    const all = (await this.sitemaps.list(site, index)).map(toSitemapOut);
    if (all.length === 0) {
      const text = index
        ? `Google lists no child sitemaps under the index ${inert(index)} for ${site}. Either it is not a sitemap index submitted to this property (list_sitemaps without sitemap_index shows those), or Google has not downloaded it yet.`
        : `No sitemaps submitted for ${site}. Submit one with submit_sitemap. (Sitemaps Google found only through robots.txt are not listed here.)`;
      return toolOutput({ site_url: site, ...(index ? { sitemap_index: index } : {}), sitemaps: [], untrusted: true }, text);
    }
    return fitToBudget(all, (kept, dropped) => {
      const head = index
        ? `${plural(all.length, 'sitemap')} listed in the index ${inert(index)} (${site}):`
        : `${plural(all.length, 'sitemap')} submitted for ${site}:`;
      const notes = [
        ...kept
          .filter((s) => s.is_sitemaps_index)
          .map(
            (s) =>
              `${inert(s.path)} is a sitemap index: its child sitemaps are not listed here; call list_sitemaps with sitemap_index "${inert(s.path)}" to list them.`,
          ),
        kept.some((s) => s.errors > 0 || s.warnings > 0) ? ERRORS_WHERE : '',
        kept.some((s) => s.is_pending) ? PENDING_MEANING : '',
        dropped
          ? `${dropped} more not shown to stay within the size limit; Google cannot filter this list, so read a specific one with get_sitemap${index ? '' : ' or list one index with sitemap_index'}.`
          : '',
      ].filter(Boolean);
      return toolOutput(
        {
          site_url: site,
          ...(index ? { sitemap_index: index } : {}),
          sitemaps: [...kept],
          ...(dropped ? { omitted: dropped } : {}),
          untrusted: true,
        },
        [head, ...kept.map(sitemapLine), ...notes].join('\n'),
      );
    });
  }

  @Tool({
    name: 'get_sitemap',
    title: 'Get sitemap',
    description:
      'One sitemap: pending, last download, error/warning counts (the errors themselves are only in the Search Console UI), URL counts.',
    input: SitemapInput,
    target: ['site'],
    output: SitemapSchema.extend({ site_url: z.string(), untrusted: z.literal(true) }),
    access: 'read',
    apis: ['searchconsole'],
  })
  async getSitemap(args: z.infer<typeof SitemapInput>, call: ToolCall<TargetOf<typeof SitemapInput>>): Promise<ToolOutput> {
    const { site } = call.target;
    const { url } = parseSitemapUrl(args.sitemap_url);
    const s = toSitemapOut(await this.sitemaps.get(site, url));
    const lines = [
      `${inert(s.path)} in ${site}:`,
      sitemapLine(s),
      s.is_pending ? `It is pending: ${PENDING_MEANING}` : 'It is not pending: Google has processed the latest submission.',
      s.errors > 0 || s.warnings > 0 ? ERRORS_WHERE : 'Google reports no errors or warnings for it.',
      s.is_sitemaps_index ? `It is a sitemap index: list_sitemaps with sitemap_index "${inert(s.path)}" lists its child sitemaps.` : '',
    ].filter(Boolean);
    return toolOutput({ site_url: site, ...s, untrusted: true }, lines.join('\n'));
  }

  @Tool({
    name: 'submit_sitemap',
    title: 'Submit sitemap',
    description:
      'Submit or resubmit a sitemap. Success means Google accepted the submission, not that it fetched it; check later with get_sitemap.',
    input: SitemapInput,
    target: ['site'],
    output: z.object({ site_url: z.string(), sitemap_url: z.string(), submitted: z.boolean(), outside_property: z.boolean() }),
    access: 'write',
    apis: ['searchconsole'],
    idempotent: true,
  })
  async submitSitemap(args: z.infer<typeof SitemapInput>, call: ToolCall<TargetOf<typeof SitemapInput>>): Promise<ToolOutput> {
    const { site } = call.target;
    const { url, parsed } = parseSitemapUrl(args.sitemap_url);
    await this.sitemaps.submit(site, url);
    const outside = outsideProperty(parsed, site);
    const text = [
      `Google accepted the submission of ${inert(url)} for ${site}.`,
      'That is all it means: Google has not necessarily fetched the sitemap yet, and acceptance says nothing about whether it is valid.',
      'Check later with get_sitemap: last_downloaded shows when Google fetched it, errors and warnings count the problems found, and is_pending stays true until it is processed.',
      outside ? `Note: it is outside ${site}. ${OUTSIDE_NOTE}` : '',
    ].filter(Boolean);
    return toolOutput({ site_url: site, sitemap_url: url, submitted: true, outside_property: outside }, text.join(' '));
  }

  @Tool({
    name: 'submit_sitemaps',
    title: 'Submit sitemaps',
    description: 'Submit up to 50 sitemaps, with a result each; one failure does not stop the rest.',
    input: BatchInput,
    target: ['site'],
    output: z.object({
      site_url: z.string(),
      results: z.array(
        z.object({ sitemap_url: z.string(), submitted: z.boolean(), error: z.string().optional(), cancelled: z.literal(true).optional() }),
      ),
      submitted_count: z.number().int(),
      failed_count: z.number().int(),
      cancelled_count: z.number().int().optional().describe('Not sent because the client cancelled the call.'),
      duplicates_skipped: z.number().int().optional(),
    }),
    access: 'write',
    apis: ['searchconsole'],
    idempotent: true,
  })
  async submitSitemaps(args: z.infer<typeof BatchInput>, call: ToolCall<TargetOf<typeof BatchInput>>): Promise<ToolOutput> {
    const { site } = call.target;
    const { unique, duplicates } = planSubmissions(args.sitemap_urls);
    const results = await this.sitemaps.submitMany(
      site,
      unique.map((p) => p.url),
      {
        signal: call.signal,
        onSettled: (result, settled) =>
          void call.progress(settled, unique.length, `${inert(result.sitemap_url, 200)}: ${result.submitted ? 'accepted' : 'failed'}`),
      },
    );
    const outside = unique.filter((p) => outsideProperty(p.parsed, site)).map((p) => inert(p.url));
    // The submissions happened, so the result must get through: long URLs and
    // error sentences are cut to a compact form before any fact is dropped.
    const full = batchReport(site, results, duplicates, outside, false);
    const output = outputBytes(full) <= RESULT_BUDGET_BYTES ? full : batchReport(site, results, duplicates, outside, true);
    return results.some((r) => r.submitted) ? output : { ...output, isError: true };
  }

  @Tool({
    name: 'delete_sitemap',
    title: 'Delete sitemap',
    description: 'Remove a sitemap submission and its history from Search Console (not the file). Asks a person first.',
    input: SitemapInput,
    target: ['site'],
    output: z.object({ site_url: z.string(), sitemap_url: z.string(), deleted: z.boolean() }),
    access: 'destructive',
    apis: ['searchconsole'],
    idempotent: true,
    approval: describeDeleteSitemap,
  })
  async deleteSitemap(args: z.infer<typeof SitemapInput>, call: ToolCall<TargetOf<typeof SitemapInput>>): Promise<ToolOutput> {
    const { site } = call.target;
    const { url } = parseSitemapUrl(args.sitemap_url);
    await this.sitemaps.delete(site, url);
    return toolOutput(
      { site_url: site, sitemap_url: url, deleted: true },
      `Deleted the submission of ${inert(url)} from ${site}: it is gone from the Sitemaps report, with its submission history and error report. The file on the server is untouched and Google may still crawl it; submit_sitemap puts the submission back.`,
    );
  }
}

function describeDeleteSitemap(args: z.infer<typeof SitemapInput>, { site }: TargetOf<typeof SitemapInput>, actor?: string): ApprovalPlan {
  const { url } = parseSitemapUrl(args.sitemap_url);
  const acting = actingPart(actor);
  return {
    target: `${site}\n${url}`,
    ...(acting.effect.length ? { effect: acting.effect.join('\n') } : {}),
    summary: `This will delete a sitemap submission from ${site}.`,
    cost: 'Its submission history and error report are lost — the least severe of the guarded changes: submit_sitemap puts the submission back.',
    // The sitemap it deletes is what the change does: the token path quotes it too.
    supplied: [{ label: 'Sitemap URL', values: [url], effect: true }, ...acting.supplied],
    action: `delete the sitemap submission from ${site}`,
  };
}

/** submit_sitemaps' answer; compact cuts long URLs and error sentences from the text, never a result. */
function batchReport(
  site: string,
  results: readonly SubmitResult[],
  duplicates: number,
  outside: readonly string[],
  compact: boolean,
): ToolOutput {
  const ok = results.filter((r) => r.submitted);
  const cancelled = results.filter((r) => r.cancelled);
  const failed = results.filter((r) => !r.submitted && !r.cancelled);
  const shown = compact ? results.map((r) => (r.error ? { ...r, error: clip(r.error, 200) } : r)) : results;
  const lines = [
    `Submitted ${ok.length} of ${plural(results.length, 'sitemap')} to ${site}${failed.length ? `; ${failed.length} failed` : ''}${cancelled.length ? `; ${cancelled.length} not sent because the request was cancelled` : ''}.${duplicates ? ` ${plural(duplicates, 'duplicate')} skipped.` : ''}`,
    ...(ok.length && !compact ? [`Accepted: ${ok.map((r) => inert(r.sitemap_url)).join(', ')}.`] : []),
    ...(compact ? [] : failed.map((r) => `- Not submitted: ${inert(r.sitemap_url)} — ${r.error}`)),
    compact ? 'Which ones succeeded, and why the others failed, is in the structured results.' : '',
    ok.length
      ? 'Accepted means Google took the submission, not that it fetched or validated the sitemaps; check each later with get_sitemap (last_downloaded, errors).'
      : '',
    failed.length ? 'The failed ones can be sent again; resubmitting an accepted sitemap does no harm.' : '',
    cancelled.length
      ? `Not sent (cancelled)${compact ? '' : `: ${cancelled.map((r) => inert(r.sitemap_url)).join(', ')}`}. Submit them again if they are still wanted.`
      : '',
    outside.length
      ? `${plural(outside.length, 'sitemap')} outside ${site}${compact ? '' : `: ${outside.join(', ')}`}. ${OUTSIDE_NOTE}`
      : '',
  ].filter(Boolean);
  const structured = {
    site_url: site,
    results: shown,
    submitted_count: ok.length,
    failed_count: failed.length,
    ...(cancelled.length ? { cancelled_count: cancelled.length } : {}),
    ...(duplicates ? { duplicates_skipped: duplicates } : {}),
  };
  return toolOutput(structured, lines.join('\n'));
}

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max - 3)}...` : value;
}
