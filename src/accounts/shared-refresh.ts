import { Logger } from '@nestjs/common';
import type { Credentials } from 'google-auth-library';
import type { Config } from '../config/config.js';
import { NotConnectedError } from '../google/connected-accounts.js';
import { stateKey } from '../state/keys.js';
import type { StateStore } from '../state/state-store.js';
import type { SharedRefresh } from './grant-client.js';
import { open, seal } from './grant-crypto.js';
import { accessTokenKey, type GrantStore, type StoredGrant } from './grant-store.js';

/** A shared access token is used until this long before Google's expiry, then refreshed. */
export const TOKEN_MARGIN_MS = 60_000;
/** How often a process waiting for another one's refresh looks for its token. */
const WAIT_STEP_MS = 100;

/**
 * The refresh of a grant's access token as every process sharing the state
 * store makes it: the token is shared in the store, sealed like grants, so
 * replicas and sibling processes do not each refresh; one refresh at a time
 * per grant across processes (a claim of `grant-refresh:v1:<principal>:<sub>`;
 * the others wait, boundedly, for the winner's token, and take over from a
 * winner that died holding the lock once its life has passed). A rotated
 * refresh token replaces the one it refreshed, never a grant saved meanwhile;
 * `invalid_grant` ends the grant only while it still holds the token that failed.
 */
export class SharedRefresher {
  private readonly logger = new Logger('Grants');

  constructor(
    private readonly config: Config,
    private readonly grants: GrantStore,
    private readonly store: StateStore,
    /** Google ended the grant (or it is gone): the caller forgets its client. */
    private readonly ended: (grant: StoredGrant) => void,
  ) {}

  /** The refresh of one grant as every process shares it. */
  for(grant: StoredGrant): SharedRefresh {
    const { principal, googleSub } = grant;
    const tokenKey = accessTokenKey(principal, googleSub);
    const lockKey = stateKey('grantRefresh', encodeURIComponent(principal), encodeURIComponent(googleSub));
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
        this.ended(grant);
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
