import { Injectable } from '@nestjs/common';
import * as z from 'zod';
import { Clock } from '../common/clock.js';
import { plural } from '../common/sentences.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { TargetOf } from '../tools/tool-target.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { SiteUrlArg } from '../tools/tool-args.js';
import { type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { AnalyticsInput, SeriesOutput } from './analytics.schemas.js';
import { AnalyticsService } from './analytics.service.js';
import { reportRequest } from './analytics.tools.js';
import { round } from './analytics-format.js';
import { checkExpressions } from './brand-split.js';

// The daily series behind the Performance view (PRODUCT.md §5d): the view of
// query_search_analytics asks for it with the window(s) the tool answered
// for. App-only: never in the model's tools/list, yet it runs through the same
// guard (allowlist, per-principal policy), Google account and quota as every tool.
// hourly (PRODUCT.md §5e): the same series per hour (dimension hour, data_state
// hourly_all), keys exactly as Google gives them, for an answer grouped by hour.

const SeriesInput = z.object({
  site_url: SiteUrlArg,
  start_date: z.string(),
  end_date: z.string(),
  type: AnalyticsInput.shape.type,
  filters: AnalyticsInput.shape.filters,
  previous: z
    .object({ start_date: z.string(), end_date: z.string() })
    .optional()
    .describe('The comparison window, drawn over the current one.'),
  hourly: z.boolean().optional().describe('Per hour (Google keeps about 10 days of hourly data); date then holds the hour key.'),
});

type Args = z.infer<typeof SeriesInput>;

@ToolProvider()
@Injectable()
export class PerformanceSeriesTools {
  constructor(
    private readonly analytics: AnalyticsService,
    private readonly clock: Clock,
  ) {}

  @Tool({
    name: 'performance_daily_series',
    title: 'Daily performance series',
    description:
      'For the Performance view: clicks, impressions, CTR and position per day (data_state all) or per hour (hourly_all); what Google is still collecting is marked.',
    input: SeriesInput,
    output: SeriesOutput,
    access: 'read',
    target: ['site'],
    apis: ['searchconsole'],
    appOnlyFor: 'query_search_analytics',
  })
  async dailySeries(args: Args, call: ToolCall<TargetOf<typeof SeriesInput>>): Promise<ToolOutput> {
    const site = call.target.site;
    const now = this.clock.now();
    const windows = [{ start_date: args.start_date, end_date: args.end_date }, ...(args.previous ? [args.previous] : [])];
    const hourly = args.hourly === true;
    // Grouped by date with data_state all (by hour: hourly_all): Google's answer itself says from when data is incomplete.
    const requests = windows.map((w) =>
      reportRequest(
        {
          site_url: site,
          ...w,
          type: args.type,
          filters: args.filters,
          dimensions: [hourly ? 'hour' : 'date'],
          data_state: hourly ? 'hourly_all' : 'all',
          row_limit: 25_000,
        },
        site,
        now,
      ),
    );
    await checkExpressions(requests[0].filters);
    const results = await Promise.all(requests.map((request) => this.analytics.query(request)));
    const firstIncomplete = results.map((r) => r.firstIncompleteDate).find((d) => d !== undefined);
    const firstIncompleteHour = results.map((r) => r.firstIncompleteHour).find((h) => h !== undefined && !Number.isNaN(Date.parse(h)));
    // Hour keys carry their offset, so they compare as instants; dates compare as strings.
    const incomplete = hourly
      ? (key: string) => firstIncompleteHour !== undefined && Date.parse(key) >= Date.parse(firstIncompleteHour)
      : (key: string) => firstIncomplete !== undefined && key >= firstIncomplete;
    const order = hourly ? (a: string, b: string) => Date.parse(a) - Date.parse(b) : (a: string, b: string) => (a < b ? -1 : 1);
    const series = (i: number) => ({
      start_date: requests[i].range.start,
      end_date: requests[i].range.end,
      days: results[i].rows
        .map((row) => ({
          date: row.keys[0],
          clicks: row.clicks,
          impressions: row.impressions,
          ctr: round(row.ctr, 4),
          position: round(row.position, 1),
          ...(incomplete(row.keys[0]) ? { incomplete: true as const } : {}),
        }))
        .sort((a, b) => order(a.date, b.date)),
    });
    const current = series(0);
    const previous = args.previous ? series(1) : undefined;
    const unit = hourly ? 'hour' : 'day';
    const incompleteCount = current.days.filter((d) => d.incomplete).length;
    const from = hourly ? firstIncompleteHour : firstIncomplete;
    const text =
      `${hourly ? 'Hourly' : 'Daily'} series of ${site}, ${current.start_date} to ${current.end_date}${hourly ? ' (hours in America/Los_Angeles, keyed with their UTC offset)' : ''}: ${plural(current.days.length, unit)} with data` +
      (previous ? `; comparison window ${previous.start_date} to ${previous.end_date}: ${plural(previous.days.length, unit)}` : '') +
      (incompleteCount ? `; ${plural(incompleteCount, unit)} from ${from} still being collected by Google.` : '.');
    return toolOutput(
      {
        site_url: site,
        type: requests[0].type,
        current,
        ...(previous ? { previous } : {}),
        ...(firstIncomplete ? { first_incomplete_date: firstIncomplete } : {}),
        ...(hourly && firstIncompleteHour ? { first_incomplete_hour: firstIncompleteHour } : {}),
        ...(hourly ? { hourly: true as const } : {}),
        untrusted: true as const,
      },
      text,
    );
  }
}
