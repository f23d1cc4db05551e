import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Credentials, OAuth2Client } from 'google-auth-library';
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
import { type GrantClientOptions, grantClient, type SharedRefresh } from './grant-client.js';
import { open, seal } from './grant-crypto.js';
import { accessTokenKey, type PrincipalGrants, GrantStore, type StoredGrant } from './grant-store.js';
import { stateKey } from '../state/keys.js';

/** Clients kept in this process (one per principal and Google account); the least recently used goes first. */
export const GRANT_CLIENTS_MAX = 256;
/** A shared access token is used until this long before Google's expiry, then refreshed. */
export const TOKEN_MARGIN_MS = 60_000;
/** How often a process waiting for another one's refresh looks for its token. */
const WAIT_STEP_MS = 100;

interface Cached {
  readonly refreshToken: string;
  readonly client: Promise<OAuth2Client>;
}

/**
 * ConnectedAccounts over the grant store: a principal's grant and a Google
 * client acting as it (PRODUCT.md §8d "Using a grant").
 *
 * Access tokens are shared through the state store, sealed like grants, so
 * replicas and sibling processes do not each refresh; a refresh is made once
 * at a time per grant across processes (a claim in the store; the others wait,
 * boundedly, for the winner's token). Only `invalid_grant` from the token
 * endpoint ends a grant (marked revoked: the next call asks to connect again);
 * a 5xx, a timeout or garbage fails the call with the usual token sentence and
 * keeps the grant.
 */
@Injectable()
export class GrantAuth extends ConnectedAccounts {
  private readonly logger = new Logger('Grants');
  private readonly clients = new Map<string, Cached>();

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly grants: GrantStore,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {
    super();
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
    return grantClient(options, this.sharedRefresh(grant));
  }

  /** The refresh of one grant as every process shares it. */
  private sharedRefresh(grant: StoredGrant): SharedRefresh {
    const { principal, googleSub } = grant;
    const tokenKey = accessTokenKey(principal, googleSub);
    const lockKey = stateKey('grantRefresh', slotId(principal, googleSub, ':'));
    const slot = { kind: 'access-token', principal, googleSub };
    const lockTtl = this.config.google.timeoutMs + 5_000;

    const cachedToken = async (): Promise<Credentials | undefined> => {
      const raw = await this.store.get(tokenKey);
      if (!raw) {
        return undefined;
      }
      const { keys } = await this.grants.keys();
      const opened = open(keys, slot, raw);
      if (!opened.ok) {
        return undefined;
      }
      const token = JSON.parse(opened.text) as Credentials;
      return typeof token.expiry_date === 'number' && token.expiry_date - TOKEN_MARGIN_MS > Date.now() ? token : undefined;
    };

    const keep = async (tokens: Credentials): Promise<void> => {
      const ttl = (tokens.expiry_date ?? 0) - TOKEN_MARGIN_MS - Date.now();
      if (!tokens.access_token || ttl < 1) {
        return;
      }
      const { keys } = await this.grants.keys();
      const { access_token, expiry_date, token_type, scope } = tokens;
      await this.store.put(tokenKey, seal(keys, slot, JSON.stringify({ access_token, expiry_date, token_type, scope })), ttl);
    };

    return async (used, refresh) => {
      // Past the lock's own life, so a waiter outlives a winner that died holding it and then refreshes itself.
      const deadline = Date.now() + lockTtl + 2_000;
      for (;;) {
        const cached = await cachedToken();
        if (cached) {
          return cached;
        }
        if (await this.store.claim(lockKey, lockTtl)) {
          try {
            // Another process may have stored one between the read above and the claim.
            const stored = await cachedToken();
            if (stored) {
              return stored;
            }
            const { tokens, refreshToken } = await this.refreshHeld(grant, used, refresh);
            let holding = refreshToken;
            if (tokens.refresh_token && tokens.refresh_token !== refreshToken) {
              // Google may rotate a refresh token; the new one replaces the one it refreshed — never a grant saved meanwhile.
              const rotated = await this.grants.rotateRefreshToken(principal, googleSub, refreshToken, tokens.refresh_token);
              holding = rotated.kind === 'swapped' ? tokens.refresh_token : refreshToken;
            }
            // A token of a grant replaced meanwhile (reconnected, perhaps with other scopes) is not shared with every process.
            if (await this.grants.holds(principal, googleSub, holding)) {
              await keep(tokens);
            }
            return tokens;
          } finally {
            await this.store.delete(lockKey).catch(() => undefined);
          }
        }
        if (Date.now() >= deadline) {
          throw waitTimedOut(this.config.connected!.tokenUrl);
        }
        await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
      }
    };
  }

  /**
   * One refresh at Google for the grant, with the refresh token this client
   * holds. invalid_grant ends the grant only if the stored grant still holds
   * the token that failed (compare-and-set, GrantStore.revokeIfHolds): when the
   * person connected the account again while this refresh was on its way, the
   * late answer is about the old token, and the call goes on with the new one.
   */
  private async refreshHeld(
    grant: StoredGrant,
    used: string,
    refresh: (refreshToken: string) => Promise<Credentials>,
  ): Promise<{ tokens: Credentials; refreshToken: string }> {
    let refreshToken = used;
    for (let attempt = 1; ; attempt++) {
      try {
        return { tokens: await refresh(refreshToken), refreshToken };
      } catch (error) {
        if (!isInvalidGrant(error)) {
          throw error;
        }
        const outcome = await this.grants.revokeIfHolds(grant.principal, grant.googleSub, refreshToken);
        if (outcome.kind === 'replaced' && attempt === 1) {
          this.logger.log(
            `a refresh of the grant of principal ${JSON.stringify(grant.principal)} for ${grant.googleEmail} was refused for a refresh token that has since been replaced; the new one is used and the grant kept`,
          );
          refreshToken = outcome.refreshToken;
          continue;
        }
        this.clients.delete(slotId(grant.principal, grant.googleSub));
        if (outcome.kind === 'swapped') {
          this.logger.warn(
            `Google ended the grant of principal ${JSON.stringify(grant.principal)} for ${grant.googleEmail} (invalid_grant: revoked or expired); they are asked to connect again`,
          );
        }
        if (outcome.kind === 'gone') {
          // Disconnected, or its record no longer opens, while this refresh was on its way.
          const now = await this.grants.readOne(grant.principal, grant.googleSub);
          throw new NotConnectedError(grant.principal, !now ? 'none' : now.kind === 'unreadable' ? 'unreadable' : 'revoked');
        }
        throw new NotConnectedError(grant.principal, 'revoked');
      }
    }
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

function slotId(principal: string, googleSub: string, separator = '\n'): string {
  return `${encodeURIComponent(principal)}${separator}${encodeURIComponent(googleSub)}`;
}

/** The token endpoint's own verdict that the refresh token is dead (RFC 6749 §5.2), not a 5xx or a timeout. */
function isInvalidGrant(error: unknown): boolean {
  const response = (error as { response?: { status?: number; data?: unknown } } | undefined)?.response;
  const data = response?.data;
  return response?.status === 400 && typeof data === 'object' && data !== null && (data as { error?: unknown }).error === 'invalid_grant';
}

/** Shaped like gaxios's own timeout (its config names the token URL), so the call fails with the token-phase timeout sentence. */
function waitTimedOut(tokenUrl: string): Error {
  return Object.assign(new Error("another process's refresh of this grant did not finish in time"), {
    code: 'TimeoutError',
    config: { url: tokenUrl },
  });
}
