import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { canonicalPrincipal } from '../common/principal-name.js';
import { CONFIG, type Config } from '../config/config.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';

/** How long a connect link may be opened. */
export const CONNECT_REQUEST_TTL_MS = 10 * 60_000;
/**
 * The record outlives the link by this much, so that a late visitor reads "this
 * link has expired" or "was already used" rather than "unknown". The expiry
 * itself is `expiresAt`, checked against the clock.
 */
const RECORD_GRACE_MS = 50 * 60_000;

/** Google's identity scopes, always asked for: the callback reads the Google account from userinfo. */
export const IDENTITY_SCOPES = ['openid', 'email'] as const;

/** What a connect link was made for; kept in the state store under its opaque id, never in the URL. */
export interface ConnectRequest {
  readonly id: string;
  readonly principal: string;
  /** The Google scopes the principal's tools need (narrowed by policy), plus `openid email`. */
  readonly scopes: readonly string[];
  readonly expiresAt: string;
  /** Set once a grant was stored through it: the link is then spent. */
  readonly usedAt?: string;
}

export interface ConnectLink {
  /** `<public base>/connect/google?request=<opaque id>`: no principal, e-mail, token or secret. */
  readonly url: string;
  readonly expiresAt: Date;
}

/** Why a request cannot be used: never made (or long gone), past its ten minutes, or spent. */
export type RequestRefusal = 'unknown' | 'expired' | 'used';
export type RequestCheck =
  { readonly ok: true; readonly request: ConnectRequest } | { readonly ok: false; readonly reason: RequestRefusal };

/**
 * Where the connect pages are served: the HTTP server's own routes (ConnectController),
 * or, in stdio, a loopback server that runs only while a request is pending.
 */
export interface ConnectPageHost {
  /** The base the pages live under, without a trailing slash: `http://127.0.0.1:3000`, `https://corp.example/api`. */
  base(): Promise<string>;
  /** A request now waits for its page. */
  pending?(request: ConnectRequest): void;
  /** A request was used; it no longer needs the page. */
  settled?(id: string): void;
}

const ID_SHAPE = /^[A-Za-z0-9_-]{32}$/;

/**
 * Single-use connect requests (PRODUCT.md §8d "Asking to connect"): an opaque
 * 192-bit id in the state store, alive ten minutes, spent when a grant is
 * stored through it.
 */
@Injectable()
export class ConnectRequests {
  private host?: ConnectPageHost;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(STATE_STORE) private readonly store: StateStore,
    private readonly clock: Clock,
  ) {}

  /** Who serves the pages (the latest caller wins): the HTTP routes, or stdio's loopback server. */
  servePagesWith(host: ConnectPageHost): void {
    this.host = host;
  }

  /** The base of the connect pages (links and redirect URIs are made under it). */
  base(): Promise<string> {
    return this.host ? this.host.base() : Promise.resolve(this.configuredBase());
  }

  /** A link the principal opens in a browser to connect a Google account with these scopes (plus `openid email`). */
  async create(principal: string, scopes: readonly string[]): Promise<ConnectLink> {
    const id = randomBytes(24).toString('base64url');
    const expiresAt = new Date(this.clock.now().getTime() + CONNECT_REQUEST_TTL_MS);
    const request: ConnectRequest = {
      id,
      // The spelling the connect page compares the browser's principal in (common/principal-name.ts).
      principal: canonicalPrincipal(principal) ?? principal,
      scopes: [...new Set([...IDENTITY_SCOPES, ...scopes])],
      expiresAt: expiresAt.toISOString(),
    };
    // Pending before the base is asked for: a page server about to stop (its last request just used) stays up for this one.
    this.host?.pending?.(request);
    const base = await this.base();
    await this.store.put(key(id), JSON.stringify(request), CONNECT_REQUEST_TTL_MS + RECORD_GRACE_MS);
    return { url: `${base}/connect/google?request=${id}`, expiresAt };
  }

  /** The request behind an id while it may be used; undefined when unknown, expired or used. */
  async find(id: string): Promise<ConnectRequest | undefined> {
    const checked = await this.check(id);
    return checked.ok ? checked.request : undefined;
  }

  /** The request behind an id, or why it cannot be used. */
  async check(id: string): Promise<RequestCheck> {
    const raw = ID_SHAPE.test(id) ? await this.store.get(key(id)) : undefined;
    if (!raw) {
      return { ok: false, reason: 'unknown' };
    }
    const request = JSON.parse(raw) as ConnectRequest;
    if (request.usedAt) {
      return { ok: false, reason: 'used' };
    }
    if (Date.parse(request.expiresAt) <= this.clock.now().getTime()) {
      return { ok: false, reason: 'expired' };
    }
    return { ok: true, request };
  }

  /** Spends the request: true for exactly one caller across every process sharing the store. */
  async markUsed(request: ConnectRequest): Promise<boolean> {
    if (!(await this.store.claim(`connect-request-used:${request.id}`, CONNECT_REQUEST_TTL_MS + RECORD_GRACE_MS))) {
      return false;
    }
    const used: ConnectRequest = { ...request, usedAt: this.clock.now().toISOString() };
    await this.store.put(key(request.id), JSON.stringify(used), CONNECT_REQUEST_TTL_MS + RECORD_GRACE_MS);
    this.host?.settled?.(request.id);
    return true;
  }

  private configuredBase(): string {
    const { publicUrl, host, port } = this.config.http;
    return publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }
}

function key(id: string): string {
  return `connect-request:${id}`;
}
