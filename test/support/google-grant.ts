// For specs: a real Google grant (refresh token) minted at the emulator the way
// a person gets one — the authorization endpoint with PKCE S256, the consent
// page answered over plain HTTP as a browser posting its form would, the code
// exchanged at /token, the account read from userinfo. No browser, no server
// code of ours: the connect pages have their own browser specs.

import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import type { GoogleEmulator } from '../../src/emulator/google-emulator.js';

export interface MintGrantInput {
  /** An emulator Google user: alice@example.com, bob@example.net, carol@example.org, or one registered by the test. */
  readonly user: string;
  /** Scopes to ask for (full URLs or openid/email); `openid` and `email` are added when missing, as the connect page does. */
  readonly scopes: readonly string[];
  readonly clientId: string;
  readonly clientSecret: string;
  /** Registered for the client when missing (other redirect URIs of the client are kept). */
  readonly redirectUri: string;
  /** Scopes the person unticks on the consent page (granular consent). */
  readonly untick?: readonly string[];
}

export interface MintedGrant {
  readonly refreshToken: string;
  /** Google's stable account id (userinfo `sub`). */
  readonly sub: string;
  readonly email: string;
  /** The scopes Google reported as granted (the token response's `scope`). */
  readonly scopes: string[];
  /** The access token that came with it (an hour's life at the emulator). */
  readonly accessToken: string;
}

/** Connects `user` to the OAuth client at the emulator and returns the refresh token, the account and the granted scopes. */
export async function mintGrant(emulator: GoogleEmulator, input: MintGrantInput): Promise<MintedGrant> {
  const known = emulator.oauth.clients.get(input.clientId);
  if (!known || known.clientSecret !== input.clientSecret || !known.redirectUris.includes(input.redirectUri)) {
    emulator.registerOAuthClient({
      clientId: input.clientId,
      clientSecret: input.clientSecret,
      redirectUris: [...new Set([...(known?.redirectUris ?? []), input.redirectUri])],
    });
  }
  const client = new OAuth2Client({
    clientId: input.clientId,
    clientSecret: input.clientSecret,
    redirectUri: input.redirectUri,
    endpoints: { oauth2AuthBaseUrl: `${emulator.url}/o/oauth2/v2/auth`, oauth2TokenUrl: emulator.tokenUrl },
  });
  const scope = [...new Set(['openid', 'email', ...input.scopes])];
  const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync();
  const url = client.generateAuthUrl({
    access_type: 'offline',
    prompt: 'consent',
    include_granted_scopes: true,
    scope,
    state: 'mint-grant',
    code_challenge: codeChallenge,
    code_challenge_method: CodeChallengeMethod.S256,
  });

  const page = await fetch(url);
  const html = await page.text();
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  if (!page.ok || !request) {
    throw new Error(`the emulator's consent page answered ${page.status} without a consent form: ${html.slice(0, 300)}`);
  }
  const form = new URLSearchParams({ request, user: input.user, decision: 'allow' });
  // The page lists the scopes as Google expands them (email → userinfo.email); tick what the URL asked for.
  for (const s of new URL(url).searchParams.get('scope')!.split(' ')) {
    if (!input.untick?.includes(s)) {
      form.append('scope', s);
    }
  }
  const consent = await fetch(`${emulator.url}/o/oauth2/v2/auth/consent`, { method: 'POST', body: form, redirect: 'manual' });
  const location = consent.headers.get('location');
  const code = location ? new URL(location).searchParams.get('code') : null;
  if (consent.status !== 302 || !code) {
    throw new Error(`the emulator's consent answered ${consent.status} without a code (location ${location ?? 'none'})`);
  }

  const { tokens } = await client.getToken({ code, codeVerifier });
  if (!tokens.refresh_token || !tokens.access_token) {
    throw new Error('the emulator gave no refresh token for access_type=offline');
  }
  const info = await fetch(`${emulator.url}/oauth2/v3/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  const who = (await info.json()) as { sub?: string; email?: string };
  if (!info.ok || !who.sub || !who.email) {
    throw new Error(`the emulator's userinfo answered ${info.status} without sub and email`);
  }
  return {
    refreshToken: tokens.refresh_token,
    sub: who.sub,
    email: who.email,
    scopes: (tokens.scope ?? '').split(' ').filter(Boolean),
    accessToken: tokens.access_token,
  };
}
