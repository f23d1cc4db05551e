import { Inject, Injectable } from '@nestjs/common';
import type { OAuth2Client } from 'google-auth-library';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import {
  ConnectedAccounts,
  type ConnectedGrant,
  type GrantConnection,
  NotConnectedError,
  type NotConnectedReason,
} from '../google/connected-accounts.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import { type GrantClientOptions, grantClient } from './grant-client.js';
import { accessTokenKey, type PrincipalGrants, GrantStore, type StoredGrant } from './grant-store.js';
import { SharedRefresher, TOKEN_MARGIN_MS } from './shared-refresh.js';

/** Clients kept in this process (one per principal and Google account); the least recently used goes first. */
export const GRANT_CLIENTS_MAX = 256;

interface Cached {
  readonly refreshToken: string;
  readonly client: Promise<OAuth2Client>;
}

/**
 * ConnectedAccounts over the grant store: a principal's grant and a Google
 * client acting as it (PRODUCT.md §8d "Using a grant").
 *
 * Access tokens are shared through the state store and refreshed once at a
 * time per grant across processes (shared-refresh.ts). Only `invalid_grant` from the token
 * endpoint ends a grant (marked revoked: the next call asks to connect again);
 * a 5xx, a timeout or garbage fails the call with the usual token sentence and
 * keeps the grant.
 */
@Injectable()
export class GrantAuth extends ConnectedAccounts {
  private readonly clients = new Map<string, Cached>();
  private readonly refresher: SharedRefresher;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly grants: GrantStore,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {
    super();
    this.refresher = new SharedRefresher(config, grants, store, (grant) => this.clients.delete(slotId(grant.principal, grant.googleSub)));
  }

  async grantOf(principal: string): Promise<ConnectedGrant | undefined> {
    const [grant] = (await this.grants.read(principal)).usable;
    return grant ? shown(grant) : undefined;
  }

  async requireGrant(principal: string): Promise<ConnectedGrant> {
    const records = await this.grants.read(principal);
    const [grant] = records.usable;
    if (!grant) {
      throw new NotConnectedError(principal, reasonOf(records));
    }
    return shown(grant);
  }

  async authClient(principal: string, googleSub?: string): Promise<OAuth2Client> {
    return (await this.connection(principal, googleSub)).client;
  }

  override async grantsOf(principal: string): Promise<ConnectedGrant[]> {
    return (await this.grants.read(principal)).usable.map(shown);
  }

  override async connection(principal: string, googleSub?: string): Promise<GrantConnection> {
    const records = await this.grants.read(principal);
    const grant = googleSub === undefined ? records.usable[0] : records.usable.find((g) => g.googleSub === googleSub);
    if (!grant) {
      // The account the call resolved to was disconnected or revoked meanwhile: say which, never fall back to another account.
      const reason =
        googleSub === undefined ? reasonOf(records) : records.revoked.some((g) => g.googleSub === googleSub) ? 'revoked' : 'none';
      throw new NotConnectedError(principal, reason);
    }
    // The grant as stored now (its scopes may have changed); the client as cached for its refresh token.
    const client = await this.clientOf(grant);
    // Last use is bookkeeping for /admin/accounts: a store that cannot record it does not fail the call.
    await this.grants.touch(principal, grant.googleSub).catch(() => undefined);
    return { grant: shown(grant), client };
  }

  /**
   * Disconnects one Google account of the principal: revokes the grant at
   * Google (its revocation endpoint), then deletes it here. When Google cannot
   * be reached or fails, nothing is deleted (UserFacingError saying so), since a
   * grant deleted here but alive at Google could not be revoked later. A grant
   * Google already ended (revoked, or a record that does not open) is deleted
   * without asking Google. Undefined when the principal has no such account.
   */
  override async disconnect(
    principal: string,
    googleSub: string,
  ): Promise<{ grant: ConnectedGrant; revokedAtGoogle: boolean } | undefined> {
    const record = await this.grants.readOne(principal, googleSub);
    if (!record) {
      return undefined;
    }
    let revokedAtGoogle = false;
    if (record.kind === 'usable') {
      await this.revokeAtGoogle(record.grant);
      revokedAtGoogle = true;
    }
    await this.grants.remove(principal, googleSub);
    await this.store.delete(accessTokenKey(principal, googleSub));
    this.clients.delete(slotId(principal, googleSub));
    const grant: ConnectedGrant =
      record.kind === 'unreadable'
        ? { principal, googleSub, googleEmail: 'an unreadable record', scopes: [], connectedAt: '' }
        : shown(record.grant);
    return { grant, revokedAtGoogle };
  }

  override async tokenRejected(grant: ConnectedGrant): Promise<void> {
    await this.store.delete(accessTokenKey(grant.principal, grant.googleSub));
    const cached = this.clients.get(slotId(grant.principal, grant.googleSub));
    if (cached) {
      const client = await cached.client;
      client.setCredentials({ refresh_token: cached.refreshToken });
    }
  }

  override describe(): string {
    return this.grants.describeKeys() ?? (this.config.connected ? 'grant keys not loaded yet' : 'connected accounts off');
  }

  /** The cached client of this grant, or a new one; a reconnected account (another refresh token) gets a new one. */
  private clientOf(grant: StoredGrant): Promise<OAuth2Client> {
    const id = slotId(grant.principal, grant.googleSub);
    const cached = this.clients.get(id);
    if (cached && cached.refreshToken === grant.refreshToken) {
      this.clients.delete(id);
      this.clients.set(id, cached);
      return cached.client;
    }
    const client = this.build(grant).catch((error: unknown) => {
      if (this.clients.get(id)?.client === client) {
        this.clients.delete(id);
      }
      throw error;
    });
    this.clients.set(id, { refreshToken: grant.refreshToken, client });
    while (this.clients.size > GRANT_CLIENTS_MAX) {
      this.clients.delete(this.clients.keys().next().value!);
    }
    return client;
  }

  private async build(grant: StoredGrant): Promise<OAuth2Client> {
    const connected = this.config.connected!;
    const options: GrantClientOptions = {
      clientId: connected.clientId,
      clientSecret: connected.clientSecret,
      tokenUrl: connected.tokenUrl,
      timeoutMs: this.config.google.timeoutMs,
      refreshToken: grant.refreshToken,
      marginMs: TOKEN_MARGIN_MS,
    };
    return grantClient(options, this.refresher.for(grant));
  }

  /** POST to Google's revocation endpoint with the token in the form body (never in a URL, where proxies log it). */
  private async revokeAtGoogle(grant: StoredGrant): Promise<void> {
    const { revokeUrl } = this.config.connected!;
    const failed = (why: string) =>
      new UserFacingError(
        `Google's revocation endpoint ${why}, so ${grant.googleEmail} was not disconnected and nothing was deleted; retry in a minute.`,
      );
    let response: Response;
    try {
      response = await fetch(revokeUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: grant.refreshToken }),
        signal: AbortSignal.timeout(this.config.google.timeoutMs),
      });
    } catch (error) {
      throw failed(
        (error as Error).name === 'TimeoutError'
          ? `did not answer within ${this.config.google.timeoutMs / 1000} s`
          : 'could not be reached',
      );
    }
    const body = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
    // 400 invalid_token: Google no longer knows the token (already revoked or expired): the outcome wanted.
    if (!response.ok && !(response.status === 400 && body?.error === 'invalid_token')) {
      throw failed(`answered HTTP ${response.status}`);
    }
  }
}

function shown(grant: ConnectedGrant): ConnectedGrant {
  const { principal, googleSub, googleEmail, scopes, connectedAt } = grant;
  return { principal, googleSub, googleEmail, scopes, connectedAt };
}

function reasonOf(records: PrincipalGrants): NotConnectedReason {
  return records.revoked.length ? 'revoked' : records.unreadable.length ? 'unreadable' : 'none';
}

function slotId(principal: string, googleSub: string): string {
  return `${encodeURIComponent(principal)}\n${encodeURIComponent(googleSub)}`;
}
