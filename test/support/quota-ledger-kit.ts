// For specs: a real QuotaLedger on a real SQLite state store in a temporary
// folder, on a clock the spec moves. No fake of the ledger exists on purpose.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GOOGLE_QUOTA_LIMITS, type QuotaLimits } from '../../src/quota/quota-limits.js';
import { QuotaLedger } from '../../src/quota/quota-ledger.service.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { ManualClock } from './manual-clock.js';

export interface LedgerKit {
  readonly ledger: QuotaLedger;
  readonly store: StateStore;
  readonly clock: ManualClock;
  readonly dir: string;
  dispose(): Promise<void>;
}

export function ledgerKit(
  start: Date | string = '2026-03-02T18:00:00Z',
  limits: Partial<QuotaLimits> = {},
  dir = mkdtempSync(join(tmpdir(), 'gsc-quota-')),
): LedgerKit {
  const store = createStateStore({ kind: 'sqlite', dir });
  const clock = new ManualClock(start);
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
