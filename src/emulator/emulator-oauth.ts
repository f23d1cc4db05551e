// Google's side of "Sign in with Google" for a web-server app: the emulator's
// Google users, their per-user Search Console permissions, the OAuth web
// clients that may ask them for consent, pending consents, authorization codes
// and what each user granted. Kept apart from the seed (emulator-seed.ts) so
// the shared service-account view of properties is untouched; the per-user
// view applies only to access tokens minted for these users.

import { createHash, randomBytes } from 'node:crypto';
import { SEED_PROPERTIES } from './emulator-seed.js';
import type { PermissionLevel } from './emulator-types.js';

export interface GoogleUser {
  email: string;
  /** Google's stable account id (the id_token/userinfo `sub`). */
  sub: string;
  name?: string;
  picture?: string;
  /** Property → this user's level. Only properties that exist in the emulator's state are visible. */
  sites: Record<string, PermissionLevel>;
}

export interface OAuthWebClient {
  clientId: string;
  /** The app name its consent screen shows (Google Auth Platform → Branding → "App name"); the client id when unset. */
  name?: string;
  clientSecret: string;
  /** A web client's registered redirect URIs (exact match). A desktop client registers none: see `type`. */
  redirectUris: string[];
  /**
   * `web` (default): only the registered redirect URIs. `desktop` ("Desktop app" in the Cloud console):
   * also any port and path on a loopback address, as Google's native-app loopback flow allows.
   */
  type?: 'web' | 'desktop';
}

/**
 * Google's "Loopback IP address" redirect for Desktop clients: `http://127.0.0.1:<port>` or
 * `http://[::1]:<port>` (and `localhost`), the port chosen when the app starts listening, any path.
 * https://developers.google.com/identity/protocols/oauth2/native-app ("Loopback IP address").
 */
export function redirectAllowed(client: OAuthWebClient, redirectUri: string): boolean {
  if (client.redirectUris.includes(redirectUri)) {
    return true;
  }
  if (client.type !== 'desktop' || !URL.canParse(redirectUri)) {
    return false;
  }
  const url = new URL(redirectUri);
  return (
    url.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname) && !url.username && !url.password && !url.hash
  );
}

export interface PendingConsent {
  id: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
  codeChallenge: string;
  offline: boolean;
  includeGrantedScopes: boolean;
  expiresAt: number;
}

export interface AuthorizationCode {
  clientId: string;
  redirectUri: string;
  user: string;
  scopes: string[];
  codeChallenge: string;
  offline: boolean;
  expiresAt: number;
  used: boolean;
}

/** Identity scopes a consent screen never lets the person untick; Google reports email/profile by their full names. */
export const IDENTITY_SCOPES: Record<string, string> = {
  openid: 'openid',
  email: 'https://www.googleapis.com/auth/userinfo.email',
  'https://www.googleapis.com/auth/userinfo.email': 'https://www.googleapis.com/auth/userinfo.email',
  profile: 'https://www.googleapis.com/auth/userinfo.profile',
  'https://www.googleapis.com/auth/userinfo.profile': 'https://www.googleapis.com/auth/userinfo.profile',
};

/** RFC 6749 §4.1.2 recommends at most ten minutes; Google does not publish its figure. */
export const CODE_LIFETIME_MS = 10 * 60 * 1000;

/** Two users who see different properties, and one who sees none — enough to show a per-person view. */
export const DEFAULT_GOOGLE_USERS: readonly GoogleUser[] = [
  {
    email: 'alice@example.com',
    sub: '110000000000000000001',
    name: 'Alice Example',
    sites: {
      [SEED_PROPERTIES.owned]: 'siteOwner',
      [SEED_PROPERTIES.domain]: 'siteOwner',
      [SEED_PROPERTIES.subPath]: 'siteOwner',
      [SEED_PROPERTIES.fullUser]: 'siteFullUser',
    },
  },
  {
    email: 'bob@example.net',
    sub: '110000000000000000002',
    name: 'Bob Example',
    sites: {
      [SEED_PROPERTIES.blog]: 'siteOwner',
      [SEED_PROPERTIES.large]: 'siteOwner',
      [SEED_PROPERTIES.restricted]: 'siteRestrictedUser',
      [SEED_PROPERTIES.owned]: 'siteRestrictedUser',
    },
  },
  { email: 'carol@example.org', sub: '110000000000000000003', name: 'Carol Example', sites: {} },
];

export const newId = (prefix: string, bytes = 32): string => `${prefix}${randomBytes(bytes).toString('base64url')}`;

/** PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export class OAuthUsers {
  readonly users = new Map<string, GoogleUser>();
  readonly clients = new Map<string, OAuthWebClient>();
  readonly pending = new Map<string, PendingConsent>();
  readonly codes = new Map<string, AuthorizationCode>();
  /** `${clientId} ${email}` → scopes granted so far (include_granted_scopes). */
  readonly granted = new Map<string, Set<string>>();

  constructor() {
    for (const u of DEFAULT_GOOGLE_USERS) {
      this.registerUser(u);
    }
  }

  registerUser(user: GoogleUser): void {
    this.users.set(user.email, { ...user, sites: { ...user.sites } });
  }

  registerClient(client: OAuthWebClient): void {
    this.clients.set(client.clientId, { ...client, redirectUris: [...client.redirectUris] });
  }

  /** Sets (or with undefined, removes) one user's level on one property. */
  setPermission(email: string, siteUrl: string, level: PermissionLevel | undefined): void {
    const user = this.users.get(email);
    if (!user) {
      throw new Error(`no emulator Google user ${email}`);
    }
    if (level) {
      user.sites[siteUrl] = level;
    } else {
      delete user.sites[siteUrl];
    }
  }

  /** The properties one user sees, limited to those that exist, in the emulator state's order. */
  visibleSites(email: string, existing: ReadonlyMap<string, PermissionLevel>): Map<string, PermissionLevel> {
    const user = this.users.get(email);
    const view = new Map<string, PermissionLevel>();
    if (!user) {
      return view;
    }
    for (const siteUrl of existing.keys()) {
      const level = user.sites[siteUrl];
      if (level) {
        view.set(siteUrl, level);
      }
    }
    return view;
  }

  takePending(id: string, now: number): PendingConsent | undefined {
    const p = this.pending.get(id);
    this.pending.delete(id);
    return p && p.expiresAt > now ? p : undefined;
  }

  rememberGrant(clientId: string, email: string, scopes: string[]): void {
    const key = `${clientId} ${email}`;
    const set = this.granted.get(key) ?? new Set<string>();
    for (const s of scopes) {
      set.add(s);
    }
    this.granted.set(key, set);
  }

  previouslyGranted(clientId: string, email: string): string[] {
    return [...(this.granted.get(`${clientId} ${email}`) ?? [])];
  }
}
