import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { canonicalPrincipal } from '../common/principal-name.js';
import { CONFIG, type Config } from '../config/config.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import { stateKey } from '../state/keys.js';

/** How long a connect link may be opened. */
export const CONNECT_REQUEST_TTL_MS = 10 * 60_000;
/**
 * The record outlives the link by this much, so that a late visitor reads "this
 * link has expired" or "was already used" rather than "unknown". The expiry
 * itself is `expiresAt`, checked against the clock.
 */
const RECORD_GRACE_MS = 50 * 60_000;

/**
 * How many connect links of one principal work at a time: the newest this many
 * (PRODUCT.md §8d, "pending connects and connect links are capped per
 * principal"). A new link replaces the oldest rather than being refused: each
 * tool call that finds no grant makes one, the person opens the one their
 * client shows last, and a model calling three tools at once must not lock
 * them out. Kept in the state store, so the cap holds across replicas.
 */
export const MAX_LIVE_LINKS = 5;
/**
 * How many calls of one principal may wait for a grant at once (each polls the
 * store for up to ten minutes). One more gets a sentence instead of waiting;
 * a grant stored through any link lets every waiting call go on.
 */
export const MAX_WAITING_CALLS = 5;

/** Google's identity scopes, always asked for: the callback reads the Google account from userinfo. */
export const IDENTITY_SCOPES = ['openid', 'email'] as const;

/** What a connect link was made for; kept in the state store under its opaque id, never in the URL. */
export interface ConnectRequest {
  readonly id: string;
  readonly principal: string;
  /** The Google scopes the principal's tools need (narrowed by policy), plus `openid email`. */
  readonly scopes: readonly string[];
  readonly expiresAt: string;
  /** The tool whose call made the link (the audit trail names it); absent for a link made outside a tool call. */
  readonly tool?: string;
  /** How the link reached the person: a URL elicitation whose call waits (`dialog`), or a sentence in an ended call's answer (`link`). */
  readonly via?: 'dialog' | 'link';
  /** Set once a grant was stored through it: the link is then spent. */
  readonly usedAt?: string;
  /** Set when the person said no (declined at Google, or cancelled the sign-in): the link is then spent, and a call waiting on it ends. */
  readonly ended?: { readonly outcome: ConnectOutcome; readonly at: string };
  /** Set when newer links of the same principal pushed it out of the MAX_LIVE_LINKS that work. */
  readonly supersededAt?: string;
}

/** How a connect request ended without a grant: `denied` at Google's consent page, or the sign-in `cancelled` at the company IdP. */
export type ConnectOutcome = 'denied' | 'cancelled';

/** Who made a link and why, for the audit trail and the page the person ends on. */
export interface ConnectLinkOptions {
  readonly tool?: string;
  readonly via?: 'dialog' | 'link';
}

export interface ConnectLink {
  /** The request's opaque id (the `request` of the URL). */
  readonly id: string;
  /** `<public base>/connect/google?request=<opaque id>`: no principal, e-mail, token or secret. */
  readonly url: string;
  readonly expiresAt: Date;
}

/** Why a request cannot be used: never made (or long gone), past its ten minutes, spent, answered with a no, or replaced by newer links. */
export type RequestRefusal = 'unknown' | 'expired' | 'used' | ConnectOutcome | 'superseded';
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

  /**
   * A link the principal opens in a browser to connect a Google account with
   * these scopes (plus `openid email`). Only the principal's MAX_LIVE_LINKS
   * newest links work: the one this pushes out is marked superseded.
   */
  async create(principal: string, scopes: readonly string[], options: ConnectLinkOptions = {}): Promise<ConnectLink> {
    const id = randomBytes(24).toString('base64url');
    const expiresAt = new Date(this.clock.now().getTime() + CONNECT_REQUEST_TTL_MS);
    const request: ConnectRequest = {
      id,
      // The spelling the connect page compares the browser's principal in (common/principal-name.ts).
      principal: canonicalPrincipal(principal) ?? principal,
      scopes: [...new Set([...IDENTITY_SCOPES, ...scopes])],
      expiresAt: expiresAt.toISOString(),
      ...options,
    };
    // Pending before the base is asked for: a page server about to stop (its last request just used) stays up for this one.
    this.host?.pending?.(request);
    const base = await this.base();
    const live = linksKey(request.principal);
    const before = await this.store.readLatest(live, { limit: MAX_LIVE_LINKS });
    await this.store.put(key(id), JSON.stringify(request), CONNECT_REQUEST_TTL_MS + RECORD_GRACE_MS);
    // An atomic append that keeps the newest MAX_LIVE_LINKS: whatever falls out no longer works (check reads the same list).
    await this.store.append(live, id, { maxLength: MAX_LIVE_LINKS, ttlMs: CONNECT_REQUEST_TTL_MS + RECORD_GRACE_MS });
    if (before.length === MAX_LIVE_LINKS) {
      await this.supersede(before[before.length - 1].value);
    }
    return { id, url: `${base}/connect/google?request=${id}`, expiresAt };
  }

  /** The request behind an id while it may be used; undefined when unknown, expired or used. */
  async find(id: string): Promise<ConnectRequest | undefined> {
    const checked = await this.check(id);
    return checked.ok ? checked.request : undefined;
  }

  /** The request behind an id, or why it cannot be used. */
  async check(id: string): Promise<RequestCheck> {
    const request = await this.peek(id);
    if (!request) {
      return { ok: false, reason: 'unknown' };
    }
    if (request.usedAt) {
      return { ok: false, reason: 'used' };
    }
    if (request.ended) {
      return { ok: false, reason: request.ended.outcome };
    }
    if (Date.parse(request.expiresAt) <= this.clock.now().getTime()) {
      return { ok: false, reason: 'expired' };
    }
    if (request.supersededAt || !(await this.isLive(request))) {
      return { ok: false, reason: 'superseded' };
    }
    return { ok: true, request };
  }

  /** The record behind an id whatever its state (the audit trail names whose link it was); undefined when unknown. */
  async peek(id: string): Promise<ConnectRequest | undefined> {
    const raw = ID_SHAPE.test(id) ? await this.store.get(key(id)) : undefined;
    return raw ? (JSON.parse(raw) as ConnectRequest) : undefined;
  }

  /** Spends the request: true for exactly one caller across every process sharing the store. */
  markUsed(request: ConnectRequest): Promise<boolean> {
    return this.settle(request, { usedAt: this.clock.now().toISOString() });
  }

  /**
   * The person said no (PRODUCT.md §8d: "Deny or Cancel on Google's consent
   * page ends the waiting call within seconds"): the request is spent with that
   * outcome, which a call waiting on it reads from the store on any replica.
   * False when the request was already spent (a grant stored through it, or
   * an earlier answer): the first answer stands.
   */
  markEnded(request: ConnectRequest, outcome: ConnectOutcome): Promise<boolean> {
    return this.settle(request, { ended: { outcome, at: this.clock.now().toISOString() } });
  }

  /**
   * One of the principal's MAX_WAITING_CALLS places for a call waiting for a
   * grant, held in the state store (a claim that expires with the longest wait,
   * so a process that dies frees its places); the function gives it back.
   * Undefined when every place is taken.
   */
  async holdWaitingPlace(principal: string): Promise<(() => Promise<void>) | undefined> {
    const who = encodeURIComponent(canonicalPrincipal(principal) ?? principal);
    for (let place = 0; place < MAX_WAITING_CALLS; place++) {
      const slot = stateKey('connectWaiting', who, String(place));
      if (await this.store.claim(slot, CONNECT_REQUEST_TTL_MS + WAIT_MARGIN_MS)) {
        return () => this.store.delete(slot);
      }
    }
    return undefined;
  }

  /** One final state per request, across every process sharing the store: the first claim wins. */
  private async settle(request: ConnectRequest, final: Pick<ConnectRequest, 'usedAt' | 'ended'>): Promise<boolean> {
    if (!(await this.store.claim(stateKey('connectRequestUsed', request.id), CONNECT_REQUEST_TTL_MS + RECORD_GRACE_MS))) {
      return false;
    }
    await this.store.put(key(request.id), JSON.stringify({ ...request, ...final }), CONNECT_REQUEST_TTL_MS + RECORD_GRACE_MS);
    this.host?.settled?.(request.id);
    return true;
  }

  /** Whether the request is among its principal's MAX_LIVE_LINKS newest. */
  private async isLive(request: ConnectRequest): Promise<boolean> {
    const live = await this.store.readLatest(linksKey(request.principal), { limit: MAX_LIVE_LINKS });
    return live.some((entry) => entry.value === request.id);
  }

  /**
   * A link pushed out by newer ones: marked so its page says why, and kept
   * only until it would have expired (not the hour a used link is kept), so a
   * flood of links leaves little behind. A spent one is left as it is.
   */
  private async supersede(id: string): Promise<void> {
    const request = await this.peek(id);
    if (!request || request.usedAt || request.ended) {
      return;
    }
    const left = Date.parse(request.expiresAt) - this.clock.now().getTime();
    if (left <= 0) {
      return;
    }
    await this.store.put(key(id), JSON.stringify({ ...request, supersededAt: this.clock.now().toISOString() }), left);
    this.host?.settled?.(id);
  }

  private configuredBase(): string {
    const { publicUrl, host, port } = this.config.http;
    return publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }
}

/** A waiting place outlives the longest wait by this much, for the last poll and the answer. */
const WAIT_MARGIN_MS = 60_000;

function key(id: string): string {
  return stateKey('connectRequest', id);
}

/** The principal's newest link ids (a stream trimmed to MAX_LIVE_LINKS). */
function linksKey(principal: string): string {
  return stateKey('connectLinks', encodeURIComponent(principal));
}
