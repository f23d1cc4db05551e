import { appendFileSync } from 'node:fs';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock } from '../../common/clock.js';
import { OBSERVER, type Observer } from '../../common/observer.js';
import { CONFIG, type Config } from '../../config/config.js';
import { STATE_STORE } from '../../state/state.module.js';
import { type StateStore, StateUnavailableError } from '../../state/state-store.js';
import { canonicalPrincipal } from '../../common/principal-name.js';
import { CONNECT_PAGE_EVENTS } from '../../accounts/connect-events.js';
import { stateName } from '../../state/keys.js';

/** The events of the approval guard: what the approvals metric counts. */
const GUARD_EVENT_NAMES = [
  'asked',
  'approved',
  'declined',
  'cancelled',
  'token_issued',
  'token_redeemed',
  'token_refused',
  'seal_rejected',
  'executed',
  'google_error',
  'store_unavailable',
] as const;

export const AUDIT_EVENTS = [
  ...GUARD_EVENT_NAMES,
  // Connected accounts (PRODUCT.md §8d): asking a principal to connect a Google account, and every call that reached Google.
  'connect_asked',
  'connect_declined',
  'connect_cancelled',
  'permission_missing',
  'google_call',
  // A Google account's grant revoked at Google and deleted: by ops (DELETE /admin/accounts/…) or by the person (disconnect_google_account).
  'account_disconnected',
  // A caller refused for the spelling of its principal (PRODUCT.md §8b): a look-alike (Unicode normalisation would change it) or not plain text.
  'principal_refused',
  // The connect pages (started, completed, denied at Google, sign-in cancelled, wrong browser, wrong person): accounts/connect-events.ts.
  ...CONNECT_PAGE_EVENTS,
  // An annotation (PRODUCT.md §5e) deleted through delete_annotation or DELETE /admin/annotations; target_principal is its author when someone else deleted it.
  'annotation_deleted',
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

const GUARD_EVENTS: ReadonlySet<AuditEvent> = new Set<AuditEvent>(GUARD_EVENT_NAMES);

export interface AuditEntry {
  readonly time: string;
  readonly event: AuditEvent;
  readonly tool: string;
  /** Guarded calls: sha256 fingerprint of the exact target and arguments; never the arguments themselves. */
  readonly target_fingerprint?: string;
  /** How the person was asked: an approval dialog or the two-call token; a connect link by URL elicitation (`dialog`) or in the answer's text (`link`). */
  readonly path?: 'dialog' | 'token' | 'link';
  /** The MCP revision of the call; absent for an operations route (e.g. DELETE /admin/accounts/…), which is no MCP call. */
  readonly era?: '2025-11-25' | '2026-07-28';
  /** Who acted: the caller's principal, or "admin" for the operations API. */
  readonly principal: string | null;
  /** The principal acted upon when it is not the one who acted (ops disconnecting someone's Google account). */
  readonly target_principal?: string;
  /** Connected mode: the e-mail of the Google account the call acted as (never a token). */
  readonly google_account?: string;
  /** A fixed reason code, never caller-supplied text. */
  readonly reason?: string;
  /** principal_refused: the refused principal as the identity provider or host application sent it, escaped to ASCII (\\u{212A}ate@…) so that it never reads as another. */
  readonly refused_principal?: string;
}

/** An entry as read back: with its stream id, which pages through history (`before`). */
export type StoredAuditEntry = AuditEntry & { readonly id: string };

export interface AuditQuery {
  readonly limit?: number;
  /** Only entries older than this entry id. */
  readonly before?: string;
  readonly tool?: string;
  readonly outcome?: AuditEvent;
  readonly principal?: string;
}

/** The state stream of the trail, and how many newest entries it keeps. */
export const AUDIT_STREAM = stateName('audit');
export const AUDIT_MAX_ENTRIES = 10_000;
/** Entries recorded while the store cannot be reached wait in memory, at most this many, and are written once it is back. */
const PENDING_MAX = 1_000;
/** A filtered query reads the stream in pages of this many. */
const SCAN_PAGE = 500;

/** `unsure`: a write of this entry failed in a way that may still have reached the store (a timeout: Redis stopped, not gone). */
type Pending = { readonly seq: number; readonly line: string; unsure?: boolean };
/** Before unsure entries are written again, this many of the newest stored entries are searched for them. */
const RECHECK_ENTRIES = 2_000;

/**
 * Every decision about a guarded call (and, in connected mode, every request
 * to connect a Google account and every call that reached Google), appended to the `audit:v1` stream of the
 * state store (shared by every replica, bounded to its newest
 * AUDIT_MAX_ENTRIES) and, as an export, as JSON lines to GSC_AUDIT_LOG.
 * Entries carry fingerprints and reason codes only — no tokens, seals,
 * arguments or secrets.
 *
 * Recording never fails a call: while the store cannot be reached, entries wait
 * in memory and go out, in order, with the next write that succeeds; the
 * export file and the log line are written at once either way.
 */
@Injectable()
export class AuditTrail {
  private readonly logger = new Logger('Audit');
  private pending: Pending[] = [];
  private seq = 0;
  private dropped = 0;
  private storeDown = false;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly clock: Clock,
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Optional() @Inject(OBSERVER) private readonly observer?: Observer,
  ) {}

  /** Resolves once the entry is in the export file and in the store (or waiting for it); never rejects. */
  record(entry: Omit<AuditEntry, 'time'>): Promise<void> {
    const full: AuditEntry = { time: this.clock.now().toISOString(), ...entry };
    const line = JSON.stringify(full);
    const summary = `${full.event} ${full.tool}${full.path ? ` via ${full.path}` : ''}${full.reason ? ` (${full.reason})` : ''}`;
    if (GUARD_EVENTS.has(full.event)) {
      this.observer?.approval(full.event);
      this.logger.log(summary);
    } else if (full.event === 'account_disconnected' || full.event === 'principal_refused') {
      // Rare and consequential (the person must connect again; an identity was turned away): worth a line of its own.
      this.logger.log(summary);
    } else {
      // Every Google call in connected mode: the trail keeps it, the log would only repeat it (the connect pages log their own lines).
      this.logger.debug(summary);
    }
    if (this.config.auditLog) {
      try {
        // Synchronous on purpose: an entry must be on
        // disk before the result that it explains reaches the client.
        appendFileSync(this.config.auditLog, `${line}\n`);
      } catch (error) {
        this.logger.error(`cannot append to GSC_AUDIT_LOG: ${(error as Error).message}`);
      }
    }
    this.pending.push({ seq: ++this.seq, line });
    if (this.pending.length > PENDING_MAX) {
      this.pending.shift();
      this.dropped++;
    }
    this.flushing = this.flushing.then(() => this.flush());
    return this.flushing;
  }

  /**
   * Newest first. Filters apply while paging back through the stream, so a
   * page has `limit` matching entries unless history runs out; `next_before`
   * continues where this page stopped. Throws StateUnavailableError when the
   * store cannot be reached.
   */
  async query(query: AuditQuery = {}): Promise<{ entries: StoredAuditEntry[]; next_before?: string }> {
    const limit = query.limit ?? 100;
    const filtered = query.tool !== undefined || query.outcome !== undefined || query.principal !== undefined;
    const entries: StoredAuditEntry[] = [];
    let cursor = query.before;
    let scanned = 0;
    while (entries.length < limit && scanned < AUDIT_MAX_ENTRIES) {
      const want = filtered ? SCAN_PAGE : limit - entries.length;
      const page = await this.store.readLatest(AUDIT_STREAM, { before: cursor, limit: want });
      for (const { id, value } of page) {
        scanned++;
        cursor = id;
        const entry = parse(value);
        if (entry && matches(entry, query)) {
          entries.push({ id, ...entry });
        }
        if (entries.length === limit) {
          return { entries, next_before: id };
        }
      }
      if (page.length < want) {
        return { entries };
      }
    }
    // Stopped scanning: AUDIT_MAX_ENTRIES examined for a filter that matches rarely.
    return cursor === undefined ? { entries } : { entries, next_before: cursor };
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) {
      return;
    }
    try {
      await this.dropWritten();
    } catch (error) {
      if (error instanceof StateUnavailableError) {
        this.markDown(error);
        return;
      }
      this.logger.error(
        `cannot tell which audit entries reached the store before it failed, so they are written again: ${(error as Error).message}`,
      );
      for (const p of this.pending) {
        p.unsure = false;
      }
    }
    // Empty when every entry that waited turned out to be stored already.
    const batch = this.pending.slice();
    try {
      if (batch.length > 0) {
        await this.store.appendMany(
          AUDIT_STREAM,
          batch.map((p) => p.line),
          { maxLength: AUDIT_MAX_ENTRIES },
        );
      }
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) {
        this.logger.error(`cannot write ${batch.length} audit entries to the state store, dropped: ${(error as Error).message}`);
        this.remove(batch);
        return;
      }
      // A command that timed out may still be carried out (Redis stopped, then resumed): written again blindly, it would be twice in the trail.
      for (const p of batch) {
        p.unsure = true;
      }
      this.markDown(error);
      return;
    }
    this.remove(batch);
    if (this.storeDown) {
      const lost = this.dropped
        ? `; ${this.dropped} older ones did not fit in memory and are only in the log${this.config.auditLog ? ' and GSC_AUDIT_LOG' : ''}`
        : '';
      this.logger.log(`the state store is back; audit entries recorded meanwhile are written${lost}`);
      this.storeDown = false;
      this.dropped = 0;
    }
  }

  private markDown(error: StateUnavailableError): void {
    if (!this.storeDown) {
      this.logger.warn(`audit entries wait in memory (at most ${PENDING_MAX}): ${error.message}`);
    }
    this.storeDown = true;
  }

  /**
   * Drops the unsure entries the store holds after all: each copy of a line among the newest stored entries
   * accounts for one unsure entry with that line (a line has its time to the millisecond, so two entries share one
   * only when they are the same event recorded in the same millisecond).
   */
  private async dropWritten(): Promise<void> {
    const unsure = this.pending.filter((p) => p.unsure);
    if (unsure.length === 0) {
      return;
    }
    const stored = new Map<string, number>();
    for (const { value } of await this.store.readLatest(AUDIT_STREAM, { limit: RECHECK_ENTRIES })) {
      stored.set(value, (stored.get(value) ?? 0) + 1);
    }
    const written = new Set<Pending>();
    for (const p of unsure) {
      const copies = stored.get(p.line) ?? 0;
      if (copies > 0) {
        stored.set(p.line, copies - 1);
        written.add(p);
      }
    }
    this.pending = this.pending.filter((p) => !written.has(p));
    for (const p of this.pending) {
      p.unsure = false;
    }
  }

  private remove(batch: readonly Pending[]): void {
    if (batch.length === 0) {
      return;
    }
    const last = batch[batch.length - 1].seq;
    this.pending = this.pending.filter((p) => p.seq > last);
  }
}

function parse(value: string): AuditEntry | undefined {
  try {
    const entry = JSON.parse(value) as AuditEntry;
    return entry && typeof entry === 'object' && typeof entry.event === 'string' ? entry : undefined;
  } catch {
    return undefined;
  }
}

function matches(entry: AuditEntry, query: AuditQuery): boolean {
  return (
    (query.tool === undefined || entry.tool === query.tool) &&
    (query.outcome === undefined || entry.event === query.outcome) &&
    // Entries hold canonical principals; ?principal=Alice@Corp.example finds alice@corp.example's.
    (query.principal === undefined ||
      [entry.principal, entry.target_principal].includes(canonicalPrincipal(query.principal) ?? query.principal))
  );
}
