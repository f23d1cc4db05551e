// Connected accounts' grants against the emulator as Google (PRODUCT.md §8d
// "Grants at rest", "Using a grant"): real refresh tokens minted through the
// emulator's consent, the real google-auth-library and googleapis clients,
// real SQLite state shared by two handles as two processes would.

import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GrantAuth } from '../src/accounts/grant-auth.service.js';
import { accessTokenKey, GrantStore, recordKey } from '../src/accounts/grant-store.js';
import { type Config, loadConfig } from '../src/config/config.js';
import { SCOPES } from '../src/emulator/emulator-routing.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { GoogleEmulator } from '../src/emulator/google-emulator.js';
import { actingAs, NotConnectedError } from '../src/google/connected-accounts.js';
import { GoogleAuthService } from '../src/google/google-auth.service.js';
import { GoogleApiError } from '../src/google/google-error.js';
import { GoogleService } from '../src/google/google.service.js';
import { createStateStore } from '../src/state/create-state-store.js';
import { stateKey } from '../src/state/keys.js';
import type { StateStore } from '../src/state/state-store.js';
import { isolatedEnv, MAIN } from './support/env.js';
import { spawnHttpBinary } from './support/http-binary.js';
import { startRedisServer } from './support/redis-server.js';
import { mintGrant, type MintedGrant } from './support/google-grant.js';
import { ManualClock } from './support/manual-clock.js';

const CLIENT = {
  clientId: '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-connected-test',
};
const REDIRECT = 'http://127.0.0.1:1/connect/google/callback';
const CHILD = join(import.meta.dirname, 'support/grant-child.mjs');

let emulator: GoogleEmulator;
let dir: string;
let config: Config;
const stores: StateStore[] = [];
/** Every stderr line the grant code wrote (Nest's Logger). */
const logged: string[] = [];
/** Every refresh token minted here, to prove none leaks. */
const minted: string[] = [];

beforeAll(async () => {
  emulator = await GoogleEmulator.start();
  dir = mkdtempSync(join(tmpdir(), 'gsc-connected-'));
  config = loadConfig({
    CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
    GSC_STATE_DIR: dir,
    GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT.clientId,
    GSC_GOOGLE_OAUTH_CLIENT_SECRET: CLIENT.clientSecret,
    GSC_API_ROOT_URL: emulator.url,
    GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
    GSC_OAUTH_AUTHORIZE_URL: `${emulator.url}/o/oauth2/v2/auth`,
    GSC_OAUTH_REVOKE_URL: `${emulator.url}/revoke`,
    GSC_GOOGLE_TIMEOUT_MS: '5000',
  });
  for (const level of ['log', 'warn', 'error'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation((message: unknown) => void logged.push(String(message)));
  }
});
afterEach(() => emulator.clearFaults());
afterAll(async () => {
  jest.restoreAllMocks();
  await Promise.all(stores.map((s) => s.close()));
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One "process": its own handle on the shared SQLite folder, its own grant store and client cache. */
function processOf(cfg: Config = config): { grants: GrantStore; auth: GrantAuth; google: GoogleService } {
  const store = createStateStore({ kind: 'sqlite', dir });
  stores.push(store);
  const grants = new GrantStore(store, cfg);
  const auth = new GrantAuth(cfg, grants, store);
  // Waits nothing between the bounded attempts (the backoff is GoogleService's own spec's concern).
  const google = new GoogleService(new GoogleAuthService(cfg, auth), cfg, new ManualClock(new Date()), undefined, auth);
  return { grants, auth, google };
}

async function connect(grants: GrantStore, principal: string, user: string, scopes = [SCOPES.webmastersReadonly]): Promise<MintedGrant> {
  const grant = await mintGrant(emulator, { ...CLIENT, user, scopes, redirectUri: REDIRECT });
  minted.push(grant.refreshToken);
  await grants.save({
    principal,
    googleSub: grant.sub,
    googleEmail: grant.email,
    scopes: grant.scopes,
    connectedAt: new Date().toISOString(),
    refreshToken: grant.refreshToken,
  });
  return grant;
}

const refreshesOf = (email: string) => emulator.tokenGrants.filter((g) => g.grantType === 'refresh_token' && g.principal === email);
const listSites = (google: GoogleService) =>
  google.call({ method: 'sites.list', action: 'list the properties' }, ({ searchconsole }) => searchconsole.sites.list({}));

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('GoogleService acting as the calling principal', () => {
  it("uses each principal's own Google account and records which one the request used", async () => {
    const one = processOf();
    await connect(one.grants, 'alice@corp.example', 'alice@example.com');
    await connect(one.grants, 'bob@corp.example', 'bob@example.net');
    // GoogleService appends the account a request went out as (the acting context itself is never written).
    const alice = { principal: 'alice@corp.example', used: new Set<string>() };
    const aliceSites = await actingAs.run(alice, () => listSites(one.google));
    const bobSites = await actingAs.run({ principal: 'bob@corp.example' }, () => listSites(one.google));
    expect([...alice.used]).toEqual(['alice@example.com']);
    const levels = (data: typeof aliceSites) => (data.siteEntry ?? []).map((s) => `${s.siteUrl} ${s.permissionLevel}`);
    expect(levels(aliceSites)).toContain(`${SEED_PROPERTIES.owned} siteOwner`);
    expect(levels(bobSites)).toContain(`${SEED_PROPERTIES.blog} siteOwner`);
    expect(levels(aliceSites)).not.toContain(`${SEED_PROPERTIES.blog} siteOwner`);
  });

  it("names the person's Google account in a 403 and lists that account's properties", async () => {
    const one = processOf();
    await connect(one.grants, 'alice403@corp.example', 'alice@example.com');
    const error = await rejection(
      actingAs.run({ principal: 'alice403@corp.example' }, () =>
        one.google.call(
          { method: 'sites.get', action: `read ${SEED_PROPERTIES.blog}`, property: SEED_PROPERTIES.blog },
          ({ searchconsole }) => searchconsole.sites.get({ siteUrl: SEED_PROPERTIES.blog }),
        ),
      ),
    );
    expect(error).toBeInstanceOf(GoogleApiError);
    expect(error.message).toContain(`The Google account alice@example.com lacks the permission needed on ${SEED_PROPERTIES.blog}`);
    expect(error.message).toMatch(
      new RegExp(`is not among the properties of alice@example\\.com, which has: .*${escape(SEED_PROPERTIES.owned)} \\(siteOwner\\)`),
    );
    expect(error.message).not.toMatch(/credential|restart the server/);
  });

  it('refuses to run outside actingAs, and says "not connected" for a principal without a grant, sending nothing', async () => {
    const one = processOf();
    emulator.clearLog();
    await expect(listSites(one.google)).rejects.toThrow(/outside actingAs\.run\(\) in connected mode/);
    const none = await rejection(actingAs.run({ principal: 'nobody@corp.example' }, () => listSites(one.google)));
    expect(none).toBeInstanceOf(NotConnectedError);
    expect((none as NotConnectedError).reason).toBe('none');
    expect(emulator.requests).toEqual([]);
  });
});

describe('a grant record that does not open', () => {
  it('is no grant: requireGrant and a Google call say "unreadable" and send nothing', async () => {
    const one = processOf();
    const grant = await connect(one.grants, 'kim@corp.example', 'alice@example.com');
    const slot = recordKey('kim@corp.example', grant.sub);
    const sealed = JSON.parse((await stores[0].get(slot))!) as { tag: string };
    const tag = Buffer.from(sealed.tag, 'base64');
    tag[0] ^= 0x80;
    await stores[0].put(slot, JSON.stringify({ ...sealed, tag: tag.toString('base64') }));
    emulator.clearLog();
    const other = processOf();
    await expect(other.auth.requireGrant('kim@corp.example')).rejects.toMatchObject({ reason: 'unreadable' });
    const error = await rejection(actingAs.run({ principal: 'kim@corp.example' }, () => listSites(other.google)));
    expect(error).toBeInstanceOf(NotConnectedError);
    expect(error).toMatchObject({ reason: 'unreadable' });
    expect(emulator.requests).toEqual([]);
    expect(logged.some((l) => l.includes('principal "kim@corp.example"') && l.includes('does not open'))).toBe(true);
  });
});

describe('refreshing a grant', () => {
  it('two processes sharing one SQLite store refreshing one grant at once make exactly one refresh_token request', async () => {
    const [a, b] = [processOf(), processOf()];
    await connect(a.grants, 'carol@corp.example', 'carol@example.org');
    const before = refreshesOf('carol@example.org').length;
    // A slow token endpoint: every caller arrives while the first refresh is in flight.
    emulator.setLatency('token', 400);
    const [clientA, clientB] = await Promise.all([a.auth.authClient('carol@corp.example'), b.auth.authClient('carol@corp.example')]);
    const tokens = await Promise.all([
      ...Array.from({ length: 4 }, () => clientA.getAccessToken()),
      ...Array.from({ length: 4 }, () => clientB.getAccessToken()),
      // A third "process" that starts cold at the same moment.
      processOf()
        .auth.authClient('carol@corp.example')
        .then((c) => c.getAccessToken()),
    ]);
    expect(refreshesOf('carol@example.org').length - before).toBe(1);
    expect(new Set(tokens.map((t) => t.token)).size).toBe(1);
    expect(tokens[0].token).toMatch(/^ya29\./);
    // The token is shared sealed, never in the clear.
    const shared = await stores[0].get(accessTokenKey('carol@corp.example', (await a.auth.requireGrant('carol@corp.example')).googleSub));
    expect(shared).toBeDefined();
    expect(shared).not.toContain(tokens[0].token!);
    // A later process reuses it without asking Google.
    await (await processOf().auth.authClient('carol@corp.example')).getAccessToken();
    expect(refreshesOf('carol@example.org').length - before).toBe(1);
  });

  it('three real processes on one SQLite folder asking at the same moment make exactly one refresh_token request', async () => {
    const one = processOf();
    await connect(one.grants, 'jill@corp.example', 'bob@example.net');
    const before = refreshesOf('bob@example.net').length;
    emulator.setLatency('token', 300);
    const env = {
      CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
      GSC_STATE_DIR: dir,
      GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT.clientId,
      GSC_GOOGLE_OAUTH_CLIENT_SECRET: CLIENT.clientSecret,
      GSC_API_ROOT_URL: emulator.url,
      GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
    };
    const children = Array.from({ length: 3 }, () =>
      spawn(process.execPath, [CHILD, JSON.stringify(env), 'jill@corp.example'], { stdio: ['pipe', 'pipe', 'inherit'] }),
    );
    const outputs = children.map((child) => {
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => (out += chunk));
      return {
        ready: new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('ready\n') && resolve())),
        // 'close' waits for stdout to end; 'exit' can come before its last chunk.
        done: new Promise<string>((resolve) => child.on('close', () => resolve(out))),
      };
    });
    await Promise.all(outputs.map((o) => o.ready));
    for (const child of children) {
      child.stdin.write('go\n');
    }
    const results = (await Promise.all(outputs.map((o) => o.done))).map(
      (out) =>
        JSON.parse(
          out
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .pop()!,
        ) as { token?: string; error?: string },
    );
    expect(results.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    expect(new Set(results.map((r) => r.token)).size).toBe(1);
    expect(refreshesOf('bob@example.net').length - before).toBe(1);
  });

  it('a process that died holding the refresh lock does not fail the others: the waiter outlives the lock, then refreshes once itself', async () => {
    const quick = loadConfig({
      CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
      GSC_STATE_DIR: dir,
      GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT.clientId,
      GSC_GOOGLE_OAUTH_CLIENT_SECRET: CLIENT.clientSecret,
      GSC_API_ROOT_URL: emulator.url,
      GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
      GSC_GOOGLE_TIMEOUT_MS: '1000',
    });
    const one = processOf(quick);
    const grant = await connect(one.grants, 'quinn@corp.example', 'alice@example.com');
    // The lock a process left behind when it crashed 5 s into its life (the deadline plus 5 s): a second of it is left.
    // That a waiter outlives a lock's whole life is stepped through on fake time in src/accounts/shared-refresh.spec.ts.
    expect(
      await stores[stores.length - 1].claim(stateKey('grantRefresh', encodeURIComponent('quinn@corp.example'), grant.sub), 1_000),
    ).toBe(true);
    const before = refreshesOf('alice@example.com').length;
    const { token } = await (await one.auth.authClient('quinn@corp.example')).getAccessToken();
    expect(token).toMatch(/^ya29\./);
    expect(refreshesOf('alice@example.com').length - before).toBe(1);
  }, 20_000);

  it('a revocation at Google ends the grant: the next refresh is NotConnectedError "revoked", and the grant stays revoked', async () => {
    const one = processOf();
    const grant = await connect(one.grants, 'dave@corp.example', 'alice@example.com');
    const revoke = await fetch(`${emulator.url}/revoke`, { method: 'POST', body: new URLSearchParams({ token: grant.refreshToken }) });
    expect(revoke.status).toBe(200);
    const client = await one.auth.authClient('dave@corp.example');
    const error = await rejection(client.getAccessToken());
    expect(error).toBeInstanceOf(NotConnectedError);
    expect((error as NotConnectedError).reason).toBe('revoked');
    // Another process, and the dispatcher's check, see the same.
    const other = processOf();
    await expect(other.auth.requireGrant('dave@corp.example')).rejects.toMatchObject({ reason: 'revoked' });
    expect(await other.auth.grantOf('dave@corp.example')).toBeUndefined();
    const viaGoogle = await rejection(actingAs.run({ principal: 'dave@corp.example' }, () => listSites(other.google)));
    expect(viaGoogle).toMatchObject({ reason: 'revoked' });
    expect(
      logged.some((l) => /Google ended the grant of principal "dave@corp.example" for alice@example.com \(invalid_grant/.test(l)),
    ).toBe(true);
  });

  it('a revocation while an access token is shared: the 401 drops it, the refresh says invalid_grant, the call asks to connect again', async () => {
    const [a, b] = [processOf(), processOf()];
    const grant = await connect(a.grants, 'hank@corp.example', 'bob@example.net');
    await actingAs.run({ principal: 'hank@corp.example' }, () => listSites(a.google));
    await fetch(`${emulator.url}/revoke`, { method: 'POST', body: new URLSearchParams({ token: grant.refreshToken }) });
    emulator.clearLog();
    const error = await rejection(actingAs.run({ principal: 'hank@corp.example' }, () => listSites(b.google)));
    expect(error).toMatchObject({ reason: 'revoked' });
    // One API request with the dead token, one refresh; nothing more.
    expect(emulator.requests.map((r) => `${r.route} ${r.status}`)).toEqual(['sites.list 401', 'token 400']);
    await expect(a.auth.requireGrant('hank@corp.example')).rejects.toMatchObject({ reason: 'revoked' });
  });

  it('connecting the account again replaces the grant and forgets its shared token: the next call refreshes with the new one, no 401', async () => {
    const one = processOf();
    const first = await connect(one.grants, 'olga@corp.example', 'carol@example.org');
    await actingAs.run({ principal: 'olga@corp.example' }, () => listSites(one.google));
    await fetch(`${emulator.url}/revoke`, { method: 'POST', body: new URLSearchParams({ token: first.refreshToken }) });
    const second = await connect(one.grants, 'olga@corp.example', 'carol@example.org');
    expect(second.sub).toBe(first.sub);
    emulator.clearLog();
    await actingAs.run({ principal: 'olga@corp.example' }, () => listSites(processOf().google));
    expect(emulator.requests.map((r) => `${r.route} ${r.status}`)).toEqual(['token 200', 'sites.list 200']);
  });

  // Issue 29 break 5: an answer about a refresh token the person has replaced while it was on its way.
  describe('an answer that arrives after the person connected the account again', () => {
    const lockOf = (principal: string, sub: string) => stateKey('grantRefresh', encodeURIComponent(principal), encodeURIComponent(sub));
    /** Resolves once a process holds the refresh lock of the grant: its request to the token endpoint is on its way. */
    async function refreshUnderWay(store: StateStore, principal: string, sub: string): Promise<void> {
      while ((await store.get(lockOf(principal, sub))) === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    const saveAgain = (grants: GrantStore, principal: string, grant: MintedGrant, scopes = grant.scopes) =>
      grants.save({
        principal,
        googleSub: grant.sub,
        googleEmail: grant.email,
        scopes,
        connectedAt: new Date().toISOString(),
        refreshToken: grant.refreshToken,
      });

    it('a late invalid_grant for the old refresh token leaves the new grant alone, and the call goes on with it', async () => {
      const one = processOf();
      const old = await connect(one.grants, 'lena@corp.example', 'carol@example.org');
      const fresh = await mintGrant(emulator, {
        ...CLIENT,
        user: 'carol@example.org',
        scopes: [SCOPES.webmastersReadonly],
        redirectUri: REDIRECT,
      });
      minted.push(fresh.refreshToken);
      // Access removed at Google: the old token now answers invalid_grant — slowly.
      await fetch(`${emulator.url}/revoke`, { method: 'POST', body: new URLSearchParams({ token: old.refreshToken }) });
      emulator.setLatency('token', 600);
      emulator.clearLog();
      const call = actingAs.run({ principal: 'lena@corp.example' }, () => listSites(one.google));
      await refreshUnderWay(stores.at(-1)!, 'lena@corp.example', old.sub);
      // Meanwhile the person connects the account again (the connect page of another replica saves the grant).
      await saveAgain(processOf().grants, 'lena@corp.example', fresh);
      await expect(call).resolves.toBeDefined();
      emulator.setLatency('token', 0);
      expect(emulator.requests.map((r) => `${r.route} ${r.status}`)).toEqual(['token 400', 'token 200', 'sites.list 200']);
      const kept = await processOf().grants.list('lena@corp.example');
      expect(kept.map((g) => g.refreshToken === fresh.refreshToken)).toEqual([true]);
      expect(
        logged.some((l) => /refused for a refresh token that has since been replaced; the new one is used and the grant kept/.test(l)),
      ).toBe(true);
      expect(logged.some((l) => /Google ended the grant of principal "lena@corp.example"/.test(l))).toBe(false);
    });

    it('a late rotation of the old refresh token does not overwrite the new grant, nor share its access token', async () => {
      const one = processOf();
      const old = await connect(one.grants, 'rita@corp.example', 'bob@example.net');
      const fresh = await mintGrant(emulator, {
        ...CLIENT,
        user: 'bob@example.net',
        scopes: [SCOPES.webmastersReadonly],
        redirectUri: REDIRECT,
      });
      minted.push(fresh.refreshToken);
      // Google rotates the old token in its answer (RFC 6749 §6 allows it), after the person reconnected.
      emulator.injectFault({
        route: 'token',
        status: 200,
        body: {
          access_token: 'ya29.rotated-old-grant',
          expires_in: 3599,
          token_type: 'Bearer',
          scope: SCOPES.webmastersReadonly,
          refresh_token: '1//rotated-old',
        },
        bodyMatches: { grant_type: 'refresh_token', refresh_token: old.refreshToken },
      });
      emulator.setLatency('token', 600);
      const token = (async () => (await one.auth.authClient('rita@corp.example')).getAccessToken())();
      await refreshUnderWay(stores.at(-1)!, 'rita@corp.example', old.sub);
      await saveAgain(processOf().grants, 'rita@corp.example', fresh, [SCOPES.webmastersReadonly, 'openid']);
      expect((await token).token).toBe('ya29.rotated-old-grant');
      emulator.setLatency('token', 0);
      const kept = await processOf().grants.list('rita@corp.example');
      expect(kept.map((g) => [g.refreshToken === fresh.refreshToken, g.scopes])).toEqual([[true, [SCOPES.webmastersReadonly, 'openid']]]);
      // The old grant's access token was not shared: another process refreshes with the new grant.
      emulator.clearLog();
      expect((await (await processOf().auth.authClient('rita@corp.example')).getAccessToken()).token).not.toBe('ya29.rotated-old-grant');
      expect(emulator.tokenGrants.map((g) => g.grantType)).toEqual(['refresh_token']);
    });

    it('a rotation with nothing replaced meanwhile stores the new refresh token for every process', async () => {
      const one = processOf();
      const old = await connect(one.grants, 'rosa@corp.example', 'alice@example.com');
      emulator.injectFault({
        route: 'token',
        status: 200,
        body: {
          access_token: 'ya29.rotated',
          expires_in: 3599,
          token_type: 'Bearer',
          scope: SCOPES.webmastersReadonly,
          refresh_token: '1//rotated-rosa',
        },
        bodyMatches: { grant_type: 'refresh_token', refresh_token: old.refreshToken },
      });
      expect((await (await one.auth.authClient('rosa@corp.example')).getAccessToken()).token).toBe('ya29.rotated');
      expect(await processOf().grants.holds('rosa@corp.example', old.sub, '1//rotated-rosa')).toBe(true);
    });
  });

  it('a 5xx on refresh keeps the grant and fails the call with the token sentence; the next call works', async () => {
    const one = processOf();
    await connect(one.grants, 'erin@corp.example', 'bob@example.net');
    emulator.injectFault({
      route: 'token',
      status: 503,
      times: Infinity,
      bodyMatches: { grant_type: 'refresh_token', emulator_user: 'bob@example.net' },
    });
    const error = await rejection(actingAs.run({ principal: 'erin@corp.example' }, () => listSites(one.google)));
    expect(error).toBeInstanceOf(GoogleApiError);
    expect((error as GoogleApiError).facts).toMatchObject({ phase: 'token', kind: 'unavailable', status: 503 });
    expect(error.message).toMatch(/^Google's OAuth token endpoint failed with HTTP 503/);
    expect(error.message).toContain('The Google account bob@example.net stays connected.');
    expect(await one.auth.requireGrant('erin@corp.example')).toMatchObject({ googleEmail: 'bob@example.net' });
    emulator.clearFaults();
    const sites = await actingAs.run({ principal: 'erin@corp.example' }, () => listSites(one.google));
    expect(sites.siteEntry?.length).toBeGreaterThan(0);
  });

  it('an answer that is not a token (garbage) keeps the grant too', async () => {
    const one = processOf();
    await connect(one.grants, 'frank@corp.example', 'carol@example.org');
    emulator.injectFault({
      route: 'token',
      kind: 'html',
      times: Infinity,
      bodyMatches: { grant_type: 'refresh_token', emulator_user: 'carol@example.org' },
    });
    const error = await rejection(actingAs.run({ principal: 'frank@corp.example' }, () => listSites(one.google)));
    expect((error as GoogleApiError).facts).toMatchObject({ phase: 'token', kind: 'malformed' });
    expect(await one.auth.requireGrant('frank@corp.example')).toMatchObject({ googleEmail: 'carol@example.org' });
  });

  it('a refresh that times out keeps the grant and fails with the token-phase timeout sentence', async () => {
    // A deadline below the setting's 1 s floor, set on the parsed configuration: the hung refresh is cut (twice) sooner.
    const one = processOf({ ...config, google: { ...config.google, timeoutMs: 300 } });
    await connect(one.grants, 'pat@corp.example', 'bob@example.net');
    emulator.injectFault({
      route: 'token',
      kind: 'hang',
      times: Infinity,
      bodyMatches: { grant_type: 'refresh_token', emulator_user: 'bob@example.net' },
    });
    const error = await rejection(actingAs.run({ principal: 'pat@corp.example' }, () => listSites(one.google)));
    expect((error as GoogleApiError).facts).toMatchObject({ phase: 'token', kind: 'timeout' });
    expect(error.message).toMatch(/^Google's OAuth token endpoint did not answer within 0\.3 s \(GSC_GOOGLE_TIMEOUT_MS\)/);
    expect(await one.auth.requireGrant('pat@corp.example')).toMatchObject({ googleEmail: 'bob@example.net' });
  });

  it('never puts a refresh token in an error, a log line or a thrown object', async () => {
    const one = processOf();
    const grant = await connect(one.grants, 'gina@corp.example', 'alice@example.com');
    emulator.injectFault({
      route: 'token',
      status: 500,
      times: Infinity,
      bodyMatches: { grant_type: 'refresh_token', emulator_user: 'alice@example.com' },
    });
    const failed = await rejection(actingAs.run({ principal: 'gina@corp.example' }, () => listSites(one.google)));
    emulator.clearFaults();
    await fetch(`${emulator.url}/revoke`, { method: 'POST', body: new URLSearchParams({ token: grant.refreshToken }) });
    const revoked = await rejection(actingAs.run({ principal: 'gina@corp.example' }, () => listSites(processOf().google)));
    const seen = [failed, revoked].map((e) => `${e.message}\n${String(e)}\n${JSON.stringify(e)}`).join('\n') + logged.join('\n');
    expect(minted.length).toBeGreaterThan(3);
    for (const token of minted) {
      expect(seen).not.toContain(token);
    }
  });
});

describe('disconnecting a Google account', () => {
  const refreshWorks = async (refreshToken: string) =>
    (
      await fetch(emulator.tokenUrl, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          ...{ client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret },
        }),
      })
    ).status === 200;

  it('revokes the grant at Google (token in the form body), then deletes it here', async () => {
    const one = processOf();
    const grant = await connect(one.grants, 'liz@corp.example', 'carol@example.org');
    await (await one.auth.authClient('liz@corp.example')).getAccessToken();
    emulator.clearLog();
    const result = await one.auth.disconnect('liz@corp.example', grant.sub);
    expect(result).toMatchObject({ revokedAtGoogle: true, grant: { googleEmail: 'carol@example.org' } });
    expect(emulator.requests.map((r) => `${r.route} ${r.status}`)).toEqual(['oauth.revoke 200']);
    expect(emulator.requests[0].query).toEqual({});
    expect(await refreshWorks(grant.refreshToken)).toBe(false);
    await expect(one.auth.requireGrant('liz@corp.example')).rejects.toMatchObject({ reason: 'none' });
    expect(await one.auth.disconnect('liz@corp.example', grant.sub)).toBeUndefined();
  });

  it('deletes nothing when Google cannot be reached, and says so without the token', async () => {
    const unreachable = loadConfig({
      CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
      GSC_STATE_DIR: dir,
      GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT.clientId,
      GSC_GOOGLE_OAUTH_CLIENT_SECRET: CLIENT.clientSecret,
      GSC_OAUTH_REVOKE_URL: 'http://127.0.0.1:1/revoke',
    });
    const store = createStateStore(unreachable.state);
    stores.push(store);
    const grants = new GrantStore(store, unreachable);
    const auth = new GrantAuth(unreachable, grants, store);
    const grant = await connect(grants, 'max@corp.example', 'alice@example.com');
    const error = await rejection(auth.disconnect('max@corp.example', grant.sub));
    expect(error.message).toBe(
      "Google's revocation endpoint could not be reached, so alice@example.com was not disconnected and nothing was deleted; retry in a minute.",
    );
    expect(await auth.requireGrant('max@corp.example')).toMatchObject({ googleEmail: 'alice@example.com' });
    expect(await refreshWorks(grant.refreshToken)).toBe(true);
  });

  it('deletes a grant Google already ended without asking Google again', async () => {
    const one = processOf();
    const grant = await connect(one.grants, 'ned@corp.example', 'bob@example.net');
    await one.grants.revokeIfHolds('ned@corp.example', grant.sub, grant.refreshToken);
    emulator.clearLog();
    expect(await one.auth.disconnect('ned@corp.example', grant.sub)).toMatchObject({ revokedAtGoogle: false });
    expect(emulator.requests).toEqual([]);
    await expect(one.auth.requireGrant('ned@corp.example')).rejects.toMatchObject({ reason: 'none' });
  });
});

describe('on Redis (replicas)', () => {
  it('two replicas refreshing one grant at once make exactly one refresh_token request and share the token', async () => {
    const redis = await startRedisServer();
    const redisConfig = loadConfig({
      CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
      GSC_REDIS_URL: redis.url,
      GSC_GRANT_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 5).toString('base64')}`,
      GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT.clientId,
      GSC_GOOGLE_OAUTH_CLIENT_SECRET: CLIENT.clientSecret,
      GSC_API_ROOT_URL: emulator.url,
      GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
    });
    const handles = [createStateStore(redisConfig.state), createStateStore(redisConfig.state)];
    try {
      const [a, b] = handles.map((store) => {
        const grants = new GrantStore(store, redisConfig);
        return { grants, auth: new GrantAuth(redisConfig, grants, store) };
      });
      await connect(a.grants, 'ivy@corp.example', 'alice@example.com');
      const before = refreshesOf('alice@example.com').length;
      emulator.setLatency('token', 300);
      const tokens = await Promise.all(
        [a, b, a, b].map(async (replica) => (await replica.auth.authClient('ivy@corp.example')).getAccessToken()),
      );
      expect(refreshesOf('alice@example.com').length - before).toBe(1);
      expect(new Set(tokens.map((t) => t.token)).size).toBe(1);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await redis.stop();
    }
  });
});

describe('the built server in connected mode', () => {
  it('creates the grant key once (0600) and says so in the start-up line, then says it is kept; no secret printed', () => {
    const state = mkdtempSync(join(tmpdir(), 'gsc-connected-bin-'));
    const start = () =>
      spawnSync(process.execPath, [MAIN], {
        env: isolatedEnv({
          GSC_STATE_DIR: state,
          GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT.clientId,
          GSC_GOOGLE_OAUTH_CLIENT_SECRET: CLIENT.clientSecret,
        }),
        input: '',
        encoding: 'utf8',
        timeout: 20_000,
      });
    const first = start();
    const second = start();
    const file = join(state, 'grant-key');
    expect(first.stderr).toMatch(
      /credential: connected accounts: each person acts as their own Google account \(OAuth client 123456789012-/,
    );
    expect(first.stderr).toContain(`grant key created in ${file}`);
    expect(second.stderr).toContain(`grant key kept in ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8').trim().split(':')[1];
    for (const run of [first, second]) {
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toContain(CLIENT.clientSecret);
      expect(run.stderr).not.toContain(key);
    }
    rmSync(state, { recursive: true, force: true });
  });
});

describe('the built HTTP server in connected mode', () => {
  it('is ready without a shared credential, and /admin/config, /admin/ready and /metrics show no secret and no refresh token', async () => {
    const state = mkdtempSync(join(tmpdir(), 'gsc-connected-http-'));
    const store = createStateStore({ kind: 'sqlite', dir: state });
    stores.push(store);
    const stateConfig = loadConfig({
      CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
      GSC_STATE_DIR: state,
      GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT.clientId,
      GSC_GOOGLE_OAUTH_CLIENT_SECRET: CLIENT.clientSecret,
    });
    const grant = await connect(new GrantStore(store, stateConfig), 'local', 'alice@example.com');
    const server = await spawnHttpBinary({
      GSC_STATE_DIR: state,
      GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT.clientId,
      GSC_GOOGLE_OAUTH_CLIENT_SECRET: CLIENT.clientSecret,
      GSC_API_ROOT_URL: emulator.url,
      GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
    });
    try {
      const ready = await fetch(`${server.origin}/admin/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ok', credential: 'connected' });
      const view = (await (await fetch(`${server.origin}/admin/config`)).json()) as { connected?: Record<string, unknown> };
      expect(view.connected).toEqual({
        google_client_id: CLIENT.clientId,
        google_client_secret: 'set',
        grant_keys: 'generated file in the state folder',
        authorize_url: 'https://accounts.google.com/o/oauth2/v2/auth',
        revoke_url: 'https://oauth2.googleapis.com/revoke',
        idp_client_id: null,
        idp_client_secret: 'unset',
      });
      const key = readFileSync(join(state, 'grant-key'), 'utf8').trim().split(':')[1];
      const bodies = await Promise.all(
        ['/admin/config', '/admin/ready', '/admin/health', '/metrics'].map(async (path) => (await fetch(`${server.origin}${path}`)).text()),
      );
      for (const text of [...bodies, server.stderr()]) {
        for (const secret of [CLIENT.clientSecret, grant.refreshToken, key]) {
          expect(text).not.toContain(secret);
        }
      }
    } finally {
      await server.stop();
      rmSync(state, { recursive: true, force: true });
    }
  });
});

describe('mintGrant (test support)', () => {
  it('gets a refresh token for the chosen user with the granted scopes, keeping other redirect URIs of the client', async () => {
    const other = { clientId: '210987654321-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com', clientSecret: 'GOCSPX-other' };
    emulator.registerOAuthClient({ ...other, redirectUris: ['http://127.0.0.1:2/other'] });
    const alice = await mintGrant(emulator, { ...other, user: 'alice@example.com', scopes: [SCOPES.webmasters], redirectUri: REDIRECT });
    expect(alice.email).toBe('alice@example.com');
    expect(alice.sub).toMatch(/^\d+$/);
    expect(alice.refreshToken).toMatch(/^1\/\//);
    expect(alice.scopes).toContain(SCOPES.webmasters);
    expect(emulator.oauth.clients.get(other.clientId)!.redirectUris).toEqual(['http://127.0.0.1:2/other', REDIRECT]);
    const bob = await mintGrant(emulator, {
      ...other,
      user: 'bob@example.net',
      scopes: [SCOPES.webmastersReadonly, SCOPES.webmasters],
      untick: [SCOPES.webmasters],
      redirectUri: REDIRECT,
    });
    expect(bob.sub).not.toBe(alice.sub);
    expect(bob.scopes).toContain(SCOPES.webmastersReadonly);
    expect(bob.scopes).not.toContain(SCOPES.webmasters);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
