import { appendFileSync } from 'node:fs';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { Clock } from '../../common/clock.js';
import { OBSERVER, type Observer } from '../../common/observer.js';
import { CONFIG, type Config } from '../../config/config.js';

export type AuditEvent =
  | 'asked'
  | 'approved'
  | 'declined'
  | 'cancelled'
  | 'token_issued'
  | 'token_redeemed'
  | 'token_refused'
  | 'seal_rejected'
  | 'executed'
  | 'google_error';

export interface AuditEntry {
  readonly time: string;
  readonly event: AuditEvent;
  readonly tool: string;
  /** sha256 fingerprint of the exact target and arguments; never the arguments themselves. */
  readonly target_fingerprint: string;
  readonly path: 'dialog' | 'token';
  readonly era: '2025-11-25' | '2026-07-28';
  readonly principal: string | null;
  /** A fixed reason code, never caller-supplied text. */
  readonly reason?: string;
}

const KEPT_IN_MEMORY = 500;

/**
 * Every decision about a guarded call: kept in memory for /admin/audit and
 * appended as JSON lines to GSC_AUDIT_LOG. Entries carry fingerprints and
 * reason codes only — no tokens, seals, arguments or secrets.
 */
@Injectable()
export class AuditTrail {
  private readonly logger = new Logger('Audit');
  private readonly entries: AuditEntry[] = [];

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly clock: Clock,
    @Optional() @Inject(OBSERVER) private readonly observer?: Observer,
  ) {}

  record(entry: Omit<AuditEntry, 'time'>): void {
    const full: AuditEntry = { time: this.clock.now().toISOString(), ...entry };
    this.entries.push(full);
    this.observer?.approval(full.event);
    if (this.entries.length > KEPT_IN_MEMORY) this.entries.shift();
    this.logger.log(`${full.event} ${full.tool} via ${full.path}${full.reason ? ` (${full.reason})` : ''}`);
    if (this.config.auditLog) {
      try {
        // Synchronous on purpose: guarded calls are rare, and an entry must be on
        // disk before the result that it explains reaches the client.
        appendFileSync(this.config.auditLog, `${JSON.stringify(full)}\n`);
      } catch (error) {
        this.logger.error(`cannot append to GSC_AUDIT_LOG: ${(error as Error).message}`);
      }
    }
  }

  recent(limit = 100): readonly AuditEntry[] {
    return this.entries.slice(-limit).reverse();
  }
}
