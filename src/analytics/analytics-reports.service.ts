// Which Google requests one analytics call makes, in what order and how many
// at once, and what to do when a side request fails. The answers are shaped
// by analytics-report.ts and analytics-compare.ts, called from the tool;
// all_rows is AnalyticsExports' own.

import { Injectable } from '@nestjs/common';
import { NOTHING_SENT } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { COMPARE_FETCH_ROWS, type CompareInput } from './analytics-compare.js';
import { dates } from './analytics-format.js';
import { computeTotals } from './analytics-metrics.js';
import type { ReportContext } from './analytics-report.js';
import type { ReportRequest } from './analytics-request.js';
import { AnalyticsService, type AnalyticsResult } from './analytics.service.js';
import { type CompareArg, laterWindow, pairWindows, retentionStart, trimPair } from './compare-windows.js';
import { allOrNothing, compareHours } from './compare-hours.js';
import {
  finalByAge,
  type Freshness,
  freshnessFromAnswer,
  freshnessFromProbe,
  needsFreshnessQuery,
  probeFreshness,
  propertyFigures,
  unattributedPlan,
} from './data-truth.js';

@Injectable()
export class AnalyticsReports {
  constructor(private readonly analytics: AnalyticsService) {}

  /**
   * The rows first; once Google has answered them, the side questions — which
   * days are final, and the whole-property figures — go out together (one
   * row a day, one row). A call Google refuses therefore costs one request,
   * and a failed side question costs only its fact, said so, never the answer.
   */
  async report(request: ReportRequest, signal: AbortSignal): Promise<{ result: AnalyticsResult; context: ReportContext }> {
    const result = await this.analytics.query(request);
    const [freshness, property] = await Promise.all([
      // Hours come only with Google's own answer (grouped by hour); the days from the freshness query.
      needsFreshnessQuery(request) ? probeFreshness(this.analytics, request, signal, result) : undefined,
      unattributedPlan(request)?.measure ? propertyFigures(this.analytics, request, signal) : undefined,
    ]);
    return { result, context: { freshness: freshness ?? freshnessFromAnswer(request, result), ...(property ? { property } : {}) } };
  }

  /**
   * Freshness first (it decides the windows), then each window's rows and
   * whole-property totals, two at a time. Any failure fails the comparison:
   * half of one is not an answer.
   */
  async compare(request: ReportRequest, compare: CompareArg, signal: AbortSignal): Promise<CompareInput> {
    if (request.startRow) {
      throw new UserFacingError(
        `start_row does not apply to compare, which ranks the joined rows itself (row_limit says how many). ${NOTHING_SENT}`,
      );
    }
    if (request.dimensions.includes('hour')) {
      return compareHours(this.analytics, request, compare, signal);
    }
    const asked = pairWindows(request.range, compare);
    // Both windows' days, up to the later end: the freshness query looks at the last week of that span.
    const span = {
      start: asked.previous.start < asked.current.start ? asked.previous.start : asked.current.start,
      end: laterWindow(asked).end,
    };
    let freshness: Freshness = { known: true, source: 'age' };
    if (!finalByAge({ ...request, range: span })) {
      freshness = freshnessFromProbe(await this.analytics.freshness({ ...request, range: span }));
    }
    const until = (freshness.known && freshness.firstIncompleteDate) || request.today;
    const trimmed = trimPair(asked, retentionStart(request.today), until);
    if (!trimmed) {
      throw new UserFacingError(
        `Nothing is left to compare: every day of ${dates(asked.current)} or of ${dates(asked.previous)} is either still being collected by Google (from ${until}) or older than the ~16 months it keeps. ` +
          `Only the freshness check was sent to Google; nothing was changed. Choose windows that end before ${until}.`,
      );
    }
    const { pair, leftOut } = trimmed;
    const current = { ...request, range: pair.current, rowLimit: COMPARE_FETCH_ROWS, startRow: 0 };
    const previous = { ...current, range: pair.previous };
    const withTotals = request.dimensions.length > 0;
    const jobs: Array<() => Promise<AnalyticsResult>> = [() => this.analytics.query(current), () => this.analytics.query(previous)];
    if (withTotals) {
      jobs.push(
        () => this.analytics.propertyTotals(current),
        () => this.analytics.propertyTotals(previous),
      );
    }
    const [cur, prev, curTotals, prevTotals] = await allOrNothing(jobs, signal);
    return {
      request: { ...request, range: pair.current },
      pair,
      leftOut,
      freshness,
      current: { rows: cur, totals: computeTotals(withTotals ? curTotals.rows : cur.rows) },
      previous: { rows: prev, totals: computeTotals(withTotals ? prevTotals.rows : prev.rows) },
    };
  }
}
