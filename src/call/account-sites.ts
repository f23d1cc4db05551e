import { Inject, Injectable } from '@nestjs/common';
import { GrantStore } from '../accounts/grant-store.js';
import { actAs, ConnectedAccounts, type ConnectedGrant } from '../google/connected-accounts.js';
import { GoogleService } from '../google/google.service.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import { stateKey } from '../state/keys.js';

/** How long one account's sites.list answer is trusted for resolving a property to it (PRODUCT.md §8d: ≤ 10 minutes). */
export const ACCOUNT_SITES_TTL_MS = 10 * 60_000;

export interface AccountSite {
  readonly siteUrl: string;
  readonly permissionLevel: string;
}

/** One account's properties, and whether they came from the store (a 403 on a cached match refreshes them). */
export interface AccountSiteList {
  readonly grant: ConnectedGrant;
  readonly sites: readonly AccountSite[];
  readonly cached: boolean;
}

/**
 * The properties each of a principal's Google accounts sees (its sites.list),
 * cached per grant in the state store so replicas share it and a call costs
 * no lookup while the entry lives; and running work as one of the accounts.
 */
@Injectable()
export class AccountSites {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    private readonly google: GoogleService,
    private readonly accounts: ConnectedAccounts,
    private readonly grants: GrantStore,
  ) {}

  /** The principal's usable grants, newest first. */
  grantsOf(principal: string): Promise<ConnectedGrant[]> {
    return this.accounts.grantsOf(principal);
  }

  /**
   * Runs `work` acting as one account: GoogleService uses that grant. The
   * Google account it used is copied to the surrounding call's actingAs, so
   * the audit trail of the tool call names it (several, comma-separated).
   */
  as<T>(grant: ConnectedGrant, work: () => Promise<T>): Promise<T> {
    return actAs(grant, work);
  }

  /** The account's properties: from the store when fresh (≤ 10 minutes), else one sites.list as that account. */
  async sitesOf(grant: ConnectedGrant): Promise<AccountSiteList> {
    const key = sitesKey(grant);
    const raw = await this.store.get(key);
    if (raw !== undefined) {
      try {
        return { grant, sites: JSON.parse(raw) as AccountSite[], cached: true };
      } catch {
        // A damaged entry is looked up again.
      }
    }
    const data = await this.as(grant, () =>
      this.google.call({ method: 'sites.list', action: `list the Search Console properties of ${grant.googleEmail}` }, (c) =>
        c.searchconsole.sites.list({}),
      ),
    );
    const sites = (data.siteEntry ?? [])
      .filter((s) => typeof s.siteUrl === 'string' && s.siteUrl)
      .map((s) => ({ siteUrl: s.siteUrl!, permissionLevel: s.permissionLevel ?? 'siteUnverifiedUser' }));
    await this.store.put(key, JSON.stringify(sites), ACCOUNT_SITES_TTL_MS);
    return { grant, sites, cached: false };
  }

  /** When the account was last used for a Google call (GrantStore records it, to the minute), or undefined. */
  lastUse(grant: Pick<ConnectedGrant, 'principal' | 'googleSub'>): Promise<string | undefined> {
    return this.grants.lastUsed(grant.principal, grant.googleSub);
  }

  /** Forgets the account's cached properties (Google answered 403 for a cached match, or the account was disconnected). */
  async forget(grant: Pick<ConnectedGrant, 'principal' | 'googleSub'>): Promise<void> {
    await this.store.delete(sitesKey(grant));
  }
}

function sitesKey(grant: Pick<ConnectedGrant, 'principal' | 'googleSub'>): string {
  return stateKey('grantSites', encodeURIComponent(grant.principal), encodeURIComponent(grant.googleSub));
}
