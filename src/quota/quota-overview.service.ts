import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { CONFIG, type Config } from '../config/config.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import { QuotaLedger } from './quota-ledger.service.js';
import type { QuotaScope, QuotaSnapshot } from './quota-types.js';
import { quotaProjectOf } from './quota-project.js';
import { LOWER_BOUND, type QuotaRemaining, quotaRemaining } from './quota-report.js';

/** What gsc://quota and GET /admin/quota show. */
export interface QuotaOverview {
  readonly now: string;
  /** Midnight Pacific Time, when every daily count starts again. */
  readonly day_resets_at: string;
  /** 'unavailable' when the state store cannot be read: then the lists are empty and nothing is known. */
  readonly ledger: 'available' | 'unavailable';
  readonly note: string;
  /** Per property, URL inspections this minute and this Pacific day (600 and 2 000 allowed). */
  readonly inspection: QuotaUse[];
  /** Per Google Cloud project, Indexing API publishes this Pacific day (200 allowed by default). */
  readonly indexing_publish: QuotaUse[];
}

/** One scope's counts; in connected mode also the day's count per Google account the calls were made as. */
export type QuotaUse = QuotaRemaining & { readonly google_accounts?: { readonly account: string; readonly used: number }[] };

function quotaUse(snapshot: QuotaSnapshot, projectLabel?: string): QuotaUse {
  const remaining = quotaRemaining(snapshot, projectLabel);
  return snapshot.accounts?.length ? { ...remaining, google_accounts: snapshot.accounts.map((a) => ({ ...a })) } : remaining;
}

@Injectable()
export class QuotaOverviewService {
  constructor(
    private readonly ledger: QuotaLedger,
    private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /** The current minute and Pacific day; only the properties `sites` allows (all when undefined). */
  async overview(sites?: readonly string[]): Promise<QuotaOverview> {
    const today = await this.ledger.today();
    const project = quotaProjectOf(this.config.credential, this.config.connected?.clientId);
    if (!today) {
      return {
        now: this.clock.now().toISOString(),
        day_resets_at: '',
        ledger: 'unavailable',
        note: LOWER_BOUND,
        inspection: [],
        indexing_publish: [],
      };
    }
    const inspection = today.scopes
      .filter((s) => s.scope.kind === 'inspection' && (!sites || isPropertyAllowed(s.scope.property, sites)))
      .map((s) => quotaUse(s))
      .sort((a, b) => (a.property ?? '').localeCompare(b.property ?? ''));
    const publishes = today.scopes.filter((s) => s.scope.kind === 'publish');
    // The server's own project is always shown, even before its first publish of the day.
    if (project && !publishes.some((s) => s.scope.kind === 'publish' && s.scope.project === project.id)) {
      const own = await this.ledger.snapshot({ kind: 'publish', project: project.id } satisfies QuotaScope);
      if (own) {
        publishes.unshift(own);
      }
    }
    const label = (id: string) => (project && id === project.id ? project.label : id);
    return {
      now: today.now.toISOString(),
      day_resets_at: today.dayEndsAt.toISOString(),
      ledger: 'available',
      note: LOWER_BOUND,
      inspection,
      indexing_publish: publishes.map((s) => quotaUse(s, s.scope.kind === 'publish' ? label(s.scope.project) : undefined)),
    };
  }
}
