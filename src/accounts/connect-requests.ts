import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CONFIG, type Config } from '../config/config.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';

/** How long a connect link may be opened. */
export const CONNECT_REQUEST_TTL_MS = 10 * 60_000;

/** What a connect link was made for; kept in the state store under its opaque id, never in the URL. */
export interface ConnectRequest {
  readonly id: string;
  readonly principal: string;
  /** The Google scopes the principal's tools need (narrowed by policy), plus `openid email`. */
  readonly scopes: readonly string[];
  readonly expiresAt: string;
}

export interface ConnectLink {
  /** `<public base>/connect/google?request=<opaque id>`: no principal, e-mail, token or secret. */
  readonly url: string;
  readonly expiresAt: Date;
}

/**
 * Single-use connect requests (PRODUCT.md §8d "Asking to connect").
 *
 * FOUNDATION STUB: the page host (stdio's ephemeral loopback server) and the
 * single-use rules are completed with the connect pages; `create`'s signature stays.
 */
@Injectable()
export class ConnectRequests {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {}

  /** A link the principal opens in a browser to connect a Google account with these scopes. */
  async create(principal: string, scopes: readonly string[]): Promise<ConnectLink> {
    const id = randomBytes(24).toString('base64url');
    const expiresAt = new Date(Date.now() + CONNECT_REQUEST_TTL_MS);
    const request: ConnectRequest = { id, principal, scopes, expiresAt: expiresAt.toISOString() };
    await this.store.put(`connect-request:${id}`, JSON.stringify(request), CONNECT_REQUEST_TTL_MS);
    return { url: `${this.base()}/connect/google?request=${id}`, expiresAt };
  }

  /** The request behind an id, or undefined when unknown or expired. */
  async find(id: string): Promise<ConnectRequest | undefined> {
    const raw = await this.store.get(`connect-request:${id}`);
    return raw ? (JSON.parse(raw) as ConnectRequest) : undefined;
  }

  private base(): string {
    const { publicUrl, host, port } = this.config.http;
    return publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }
}
