// For specs: a real QuotaLedger on a real SQLite state store in a temporary
// folder, on a clock the spec moves. No fake of the ledger exists on purpose.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Clock } from '../common/clock.js';
import { createStateStore } from '../state/create-state-store.js';
import type { StateStore } from '../state/state-store.js';
import { GOOGLE_QUOTA_LIMITS, type QuotaLimits } from './quota-limits.js';
import { QuotaLedger } from './quota-ledger.service.js';

export class MovableClock extends Clock {
  private millis: number;

  constructor(start: Date | string) {
    super();
    this.millis = new Date(start).getTime();
  }

  override now(): Date {
    return new Date(this.millis);
  }

  advance(ms: number): void {
    this.millis += ms;
  }

  set(instant: Date | string): void {
    this.millis = new Date(instant).getTime();
  }
}

export interface LedgerKit {
  readonly ledger: QuotaLedger;
  readonly store: StateStore;
  readonly clock: MovableClock;
  readonly dir: string;
  dispose(): Promise<void>;
}

export function ledgerKit(start: Date | string = '2026-03-02T18:00:00Z', limits: Partial<QuotaLimits> = {}, dir = mkdtempSync(join(tmpdir(), 'gsc-quota-'))): LedgerKit {
  const store = createStateStore({ kind: 'sqlite', dir });
  const clock = new MovableClock(start);
  return {
    ledger: new QuotaLedger(store, clock, { ...GOOGLE_QUOTA_LIMITS, ...limits }),
    store,
    clock,
    dir,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
