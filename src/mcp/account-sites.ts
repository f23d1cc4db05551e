import { Inject, Injectable } from '@nestjs/common';
import { actAs, ConnectedAccounts, type ConnectedGrant } from '../google/connected-accounts.js';
import { GoogleService } from '../google/google.service.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';

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

  /** A tool call reached Google as these accounts (GoogleService named them): their last use, for list_google_accounts. */
  async used(principal: string, googleEmails: string, at = new Date()): Promise<void> {
    await Promise.all(
      googleEmails
        .split(', ')
        .filter(Boolean)
        .map((email) => this.store.put(usedKey(principal, email), at.toISOString())),
    );
  }

  /** When a tool call last reached Google as the account (ISO time), or undefined when none has since it was connected here. */
  lastUse(grant: Pick<ConnectedGrant, 'principal' | 'googleEmail'>): Promise<string | undefined> {
    return this.store.get(usedKey(grant.principal, grant.googleEmail));
  }

  /** Forgets the account's cached properties (Google answered 403 for a cached match, or the account was disconnected). */
  async forget(grant: Pick<ConnectedGrant, 'principal' | 'googleSub'>): Promise<void> {
    await this.store.delete(sitesKey(grant));
  }
}

function usedKey(principal: string, googleEmail: string): string {
  return `grant-used:${encodeURIComponent(principal)}:${encodeURIComponent(googleEmail.toLowerCase())}`;
}

function sitesKey(grant: Pick<ConnectedGrant, 'principal' | 'googleSub'>): string {
  return `grant-sites:${encodeURIComponent(grant.principal)}:${encodeURIComponent(grant.googleSub)}`;
}
