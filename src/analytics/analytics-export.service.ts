// all_rows: every row Google serves for a request, paged 25 000 at a time up
// to its 50 000-row cap, written to the state store page by page as it comes
// (so no more than one page is ever held) and kept 24 hours for the principal
// who asked. Read back by ExportResources, in chunks, as CSV or NDJSON.
// Each principal keeps at most GSC_EXPORT_MAX_PER_PRINCIPAL exports and
// GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL bytes of rows: a new export removes that
// principal's oldest ones, so one person cannot fill the store for everyone.

import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { UserFacingError } from '../common/user-facing-error.js';
import { NOTHING_CHANGED } from '../common/sentences.js';
import { CONFIG, type Config } from '../config/config.js';
import { STATE_STORE } from '../state/state.module.js';
import { type StateStore, StateUnavailableError } from '../state/state-store.js';
import { PAGE_ROWS, ROW_CAP, type ReportRequest } from './analytics-request.js';
import { type Totals, TotalsSum } from './analytics-metrics.js';
import { AnalyticsService, type AnalyticsRow, queryBody } from './analytics.service.js';
import {
  type Freshness,
  freshnessFromAnswer,
  needsFreshnessQuery,
  probeFreshness,
  propertyFigures,
  type PropertyFigures,
  unattributedPlan,
} from './data-truth.js';
import { decodeRow, encodeRow } from './export-format.js';
import { describeError } from './analytics-format.js';
import { stateKey } from '../state/keys.js';

export const EXPORT_TTL_MS = 24 * 3600_000;
/** Exports listed per principal in resources/list. */
const LISTED_EXPORTS = 50;
/** Entries kept in a principal's index stream: every live export (at most GSC_EXPORT_MAX_PER_PRINCIPAL, ≤ 100) plus ones already removed. */
const INDEX_LENGTH = 200;
/** Rows read from the store per step when an export is read back. */
const READ_CHUNK = 5000;
/** Rows of the export shown in the tool result itself. */
export const PREVIEW_ROWS = 10;

/** What the store keeps about an export, beside its rows. */
export interface ExportRecord {
  readonly id: string;
  readonly principal: string;
  readonly site: string;
  readonly start_date: string;
  readonly end_date: string;
  readonly dimensions: readonly string[];
  readonly type: string;
  readonly data_state: string;
  readonly rows: number;
  /** Bytes of its rows in the store (the per-principal bound counts these); absent on records written before the bound. */
  readonly bytes?: number;
  readonly complete: boolean;
  readonly row_cap_reached: boolean;
  readonly created_at: string;
  readonly expires_at: string;
}

/** Who asks and how to tell them how far it got; a ToolCall is one. */
export interface ExportCaller {
  readonly principal: string;
  readonly signal: AbortSignal;
  progress(progress: number, total: number, message?: string): Promise<void>;
}

export interface ExportOutcome {
  readonly record?: ExportRecord;
  readonly preview: AnalyticsRow[];
  readonly totals: Totals;
  readonly requests: number;
  readonly aggregationType?: string;
  /** Why a later page was not kept, as a sentence: the export holds the pages before it. */
  readonly stopped?: string;
  /** Who stopped it: Google refusing the page, or the per-principal bound it would have passed. */
  readonly stoppedBy?: 'google' | 'bound';
  /** Older exports of the same principal removed to stay within the bound (ids, oldest first), and the bound. */
  readonly replaced?: { readonly ids: readonly string[]; readonly bound: Config['exports'] };
  readonly freshness: Freshness;
  readonly property?: PropertyFigures;
}

interface SideFacts {
  readonly freshness?: Freshness;
  readonly property?: PropertyFigures;
}

const recordKey = (id: string) => stateKey('exportRecord', id);
const rowsKey = (id: string) => stateKey('exportRows', id);
const indexKey = (principal: string) => stateKey('exportIndex', principal);

@Injectable()
export class AnalyticsExports {
  constructor(
    private readonly analytics: AnalyticsService,
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /**
   * Pages one after another — whether to ask for the next depends on how full
   * this one came back, and a page asked for in advance would cost load for
   * nothing. Once the first page is in, the light side queries (freshness,
   * the property total) run in the second lane.
   */
  async create(request: ReportRequest, caller: ExportCaller, now: Date): Promise<ExportOutcome> {
    const id = randomBytes(12).toString('hex');
    let side: Promise<SideFacts> | undefined;
    const sum = new TotalsSum();
    const preview: AnalyticsRow[] = [];
    const maxPages = ROW_CAP / PAGE_ROWS;
    let stored = 0;
    let requests = 0;
    let lastAppend = Date.now();
    let aggregationType: string | undefined;
    let firstIncompleteDate: string | undefined;
    let stopped: string | undefined;
    let stoppedBy: 'google' | 'bound' | undefined;
    let bytes = 0;
    const maxBytes = this.config.exports.maxBytesPerPrincipal;
    let capped = false;
    for (let page = 0; page < maxPages; page++) {
      if (caller.signal.aborted) {
        await side;
        await this.store.delete(rowsKey(id));
        throw new UserFacingError(`The export was cancelled after ${stored} rows; nothing was kept. ${NOTHING_CHANGED}`);
      }
      let rows: AnalyticsRow[];
      try {
        requests++;
        const answer = await this.analytics.send(
          request.site,
          queryBody({ ...request, rowLimit: PAGE_ROWS, startRow: page * PAGE_ROWS }),
          `export the search performance of ${request.site}`,
        );
        rows = answer.rows;
        aggregationType ??= answer.aggregationType;
        firstIncompleteDate ??= answer.firstIncompleteDate;
      } catch (error) {
        if (page === 0) {
          throw error;
        }
        stopped = describeError(error);
        stoppedBy = 'google';
        break;
      }
      const encoded = rows.map(encodeRow);
      const pageBytes = encoded.reduce((n, row) => n + Buffer.byteLength(row), 0);
      if (bytes + pageBytes > maxBytes) {
        await side;
        if (page === 0) {
          throw new UserFacingError(tooLarge(pageBytes, maxBytes));
        }
        stopped = `Its next page (${pageBytes} bytes) would take it past the ${maxBytes} bytes of rows one person may keep (GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL); narrow the request (fewer dimensions, a shorter range, a filter) for every row.`;
        stoppedBy = 'bound';
        break;
      }
      bytes += pageBytes;
      side ??= this.sideQueries(request, caller.signal);
      if (rows.length) {
        try {
          await this.store.appendMany(rowsKey(id), encoded, { ttlMs: EXPORT_TTL_MS });
        } catch (error) {
          await side;
          throw await this.unstorable(id, error);
        }
        lastAppend = Date.now();
      }
      stored += rows.length;
      sum.add(rows);
      if (page === 0) {
        preview.push(...rows.slice(0, PREVIEW_ROWS));
      }
      const last = rows.length < PAGE_ROWS || page === maxPages - 1;
      capped = rows.length === PAGE_ROWS && page === maxPages - 1;
      await caller.progress(page + 1, last ? page + 1 : maxPages, `${stored} rows stored (page ${page + 1} of at most ${maxPages})`);
      if (last) {
        break;
      }
    }
    const { freshness, property } = (await side) ?? {};
    if (caller.signal.aborted) {
      // Nobody is waiting for this export any more: keep nothing half-announced.
      await this.store.delete(rowsKey(id));
      throw new UserFacingError(`The export was cancelled after ${stored} rows; nothing was kept. ${NOTHING_CHANGED}`);
    }
    const outcome = {
      preview,
      totals: sum.totals,
      requests,
      ...(aggregationType ? { aggregationType } : {}),
      ...(stopped ? { stopped, stoppedBy } : {}),
      freshness: freshness ?? freshnessFromAnswer(request, { firstIncompleteDate }),
      ...(property ? { property } : {}),
    };
    if (stored === 0) {
      return outcome;
    }
    const ttl = Math.max(1, EXPORT_TTL_MS - (Date.now() - lastAppend));
    const record: ExportRecord = {
      id,
      principal: caller.principal,
      site: request.site,
      start_date: request.range.start,
      end_date: request.range.end,
      dimensions: [...request.dimensions],
      type: request.type,
      data_state: request.dataState,
      rows: stored,
      bytes,
      complete: !stopped,
      row_cap_reached: capped,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ttl).toISOString(),
    };
    let replaced: string[];
    try {
      await this.store.put(recordKey(id), JSON.stringify(record), ttl);
      await this.store.append(indexKey(caller.principal), id, { ttlMs: EXPORT_TTL_MS, maxLength: INDEX_LENGTH });
      replaced = await this.keepWithinBound(record);
    } catch (error) {
      throw await this.unstorable(id, error);
    }
    return { ...outcome, record, ...(replaced.length ? { replaced: { ids: replaced, bound: this.config.exports } } : {}) };
  }

  /**
   * Oldest first out: keeps the principal's newest exports while they fit
   * both bounds, the one just made always among them, and removes the rest.
   * Every process computes the same set from the same index, so replicas
   * finishing exports at once agree on what goes.
   */
  private async keepWithinBound(made: ExportRecord): Promise<string[]> {
    const { maxPerPrincipal, maxBytesPerPrincipal } = this.config.exports;
    const entries = await this.store.readLatest(indexKey(made.principal), { limit: INDEX_LENGTH });
    const records = (await Promise.all([...new Set(entries.map((e) => e.value))].map((id) => this.find(id, made.principal)))).filter(
      (r): r is ExportRecord => r !== undefined && r.id !== made.id,
    );
    let count = 1;
    let bytes = made.bytes ?? 0;
    const removed: string[] = [];
    for (const record of records) {
      // Once one does not fit, every older one goes too: the oldest leave first, never a newer one before them.
      if (!removed.length && count < maxPerPrincipal && bytes + (record.bytes ?? 0) <= maxBytesPerPrincipal) {
        count++;
        bytes += record.bytes ?? 0;
      } else {
        await this.store.delete(recordKey(record.id));
        await this.store.delete(rowsKey(record.id));
        removed.push(record.id);
      }
    }
    return removed.reverse();
  }

  /** The store failed mid-export: drop what was written (if the store lets us) and say why in a sentence. */
  private async unstorable(id: string, error: unknown): Promise<unknown> {
    if (!(error instanceof StateUnavailableError)) {
      return error;
    }
    await this.store.delete(rowsKey(id)).catch(() => undefined);
    return new UserFacingError(
      `all_rows keeps the rows in the state store for 24 hours, and ${error.message}, so no export was kept. ${NOTHING_CHANGED} Fix the store (GSC_STATE_DIR or GSC_REDIS_URL) or ask without all_rows (up to 25 000 rows in the answer itself).`,
    );
  }

  /** The export, if it exists and belongs to this principal; undefined otherwise (never says which). */
  async find(id: string, principal: string): Promise<ExportRecord | undefined> {
    const value = await this.store.get(recordKey(id));
    if (!value) {
      return undefined;
    }
    const record = JSON.parse(value) as ExportRecord;
    return record.principal === principal ? record : undefined;
  }

  /** The rows in Google's order, a chunk at a time. */
  async *rows(id: string): AsyncGenerator<AnalyticsRow[]> {
    let after: string | undefined;
    for (;;) {
      const entries = await this.store.read(rowsKey(id), { ...(after ? { after } : {}), limit: READ_CHUNK });
      if (!entries.length) {
        return;
      }
      after = entries[entries.length - 1].id;
      yield entries.map((e) => decodeRow(e.value));
    }
  }

  /** This principal's exports that still exist, newest first. */
  async recent(principal: string): Promise<ExportRecord[]> {
    const ids = await this.store.readLatest(indexKey(principal), { limit: LISTED_EXPORTS });
    const records = await Promise.all(ids.map((entry) => this.find(entry.value, principal)));
    return records.filter((r): r is ExportRecord => r !== undefined);
  }

  /** One after the other: they share the second lane beside the pages. */
  private async sideQueries(request: ReportRequest, signal: AbortSignal): Promise<SideFacts> {
    const freshness = needsFreshnessQuery(request) ? await probeFreshness(this.analytics, request, signal) : undefined;
    const property = unattributedPlan(request)?.measure ? await propertyFigures(this.analytics, request, signal) : undefined;
    return { freshness, property };
  }
}

function tooLarge(pageBytes: number, maxBytes: number): string {
  return (
    `all_rows keeps at most ${maxBytes} bytes of rows per person (GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL), and Google's first page of this export alone is ${pageBytes} bytes, so no export was kept. ${NOTHING_CHANGED} ` +
    'Narrow the request (fewer dimensions, a shorter range, a filter), or ask without all_rows (up to 25 000 rows in the answer itself).'
  );
}
