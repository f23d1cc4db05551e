// Several Google accounts per person (PRODUCT.md §8d "Several Google accounts
// per person"), loopback mode (`local`) over HTTP with the official clients of
// both revisions and real grants minted at the emulator: each call acts as the
// account whose sites.list has its property (checked in the emulator's request
// log by the access token's user); two accounts that both see a property are
// asked about by form elicitation, named on the token path, settled by
// google_account; never a guess. list_sites is the union, each entry naming its
// account, within the allowlist; disconnect_google_account revokes at the
// emulator and the next call for that account's property asks to connect.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SCOPES } from '../src/emulator/emulator-routing.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { text } from './support/clients.js';
import {
  type ConnectedGoogle,
  type LinkClient,
  linkClientHttp,
  OAUTH_CLIENT,
  saveGrant,
  startConnectedGoogle,
} from './support/connected-kit.js';
import type { Browser } from 'playwright-core';
import { clickThrough } from './support/connect-kit.js';
import type { MintedGrant } from './support/google-grant.js';
import { TestIssuer } from './support/test-issuer.js';
import { launchChromium } from './support/views-browser.js';
import { modernToolCall } from './support/modern-wire.js';
import { type InProcessServer, startInProcess } from './support/server.js';

const REVISIONS = ['2026-07-28', '2025-11-25'] as const;
const ALICE = 'alice@example.com';
const BOB = 'bob@example.net';
// Alice alone: sc-domain:example.com (and https://shop.example.com/); Bob alone: https://blog.example.net/; both: https://www.example.com/.
const ALICE_ONLY = SEED_PROPERTIES.domain;
const BOB_ONLY = SEED_PROPERTIES.blog;
const BOTH = SEED_PROPERTIES.owned;

let google: ConnectedGoogle;
let alice: MintedGrant;
let bob: MintedGrant;
beforeAll(async () => {
  // Google's per-user rate limits (20 a second) are not what this suite is about: a fast run hit them, and the refused
  // attempt of a delete that was then sent again counted as a second delete.
  google = await startConnectedGoogle('web', { quotas: { otherPerSecondPerUser: Infinity, otherPerMinutePerUser: Infinity } });
});
afterAll(() => google?.close());

/** The Google users the server acted as since the log was cleared, per API route, leaving out the sites.list lookups of resolution. */
function actedAs(): { route: string; user: string | undefined }[] {
  return google.emulator
    .apiRequests()
    .filter((r) => r.route !== 'sites.list')
    .map((r) => ({ route: r.route, user: r.principal }));
}

async function serverWith(env: Record<string, string> = {}): Promise<{ server: InProcessServer; store: GrantStore }> {
  const server = await startInProcess({ ...google.env, ...env });
  return { server, store: server.app.get(GrantStore, { strict: false }) };
}

async function connectBoth(store: GrantStore): Promise<void> {
  const { usable, revoked, unreadable } = await store.read('local');
  for (const { googleSub } of [...usable, ...revoked, ...unreadable]) {
    await store.remove('local', googleSub);
  }
  // Fresh grants each time: a disconnect revokes one at the emulator.
  alice = await google.mint(ALICE);
  bob = await google.mint(BOB);
  await saveGrant(store, 'local', alice);
  await saveGrant(store, 'local', bob);
}

describe('one person, two Google accounts (interactive client)', () => {
  let server: InProcessServer;
  let store: GrantStore;
  beforeAll(async () => {
    ({ server, store } = await serverWith());
  });
  afterAll(() => server?.close());
  beforeEach(async () => {
    await connectBoth(store);
    google.emulator.clearLog();
  });

  for (const revision of REVISIONS) {
    it(`${revision}: each call acts as the account whose properties include its property or page`, async () => {
      const client = await linkClientHttp(server.url, { revision });
      try {
        const forBob = await client.call('get_site', { site_url: BOB_ONLY });
        expect(forBob.isError).toBeFalsy();
        // The answer names the account it acted as and the property, first line and structured alike.
        expect(text(forBob).split('\n')[0]).toBe(`As ${BOB} on ${BOB_ONLY}:`);
        expect(forBob.structuredContent).toMatchObject({ site_url: BOB_ONLY, google_account: BOB });
        const forAlice = await client.call('get_site', { site_url: ALICE_ONLY });
        expect(forAlice.isError).toBeFalsy();
        // A page: the property that covers it decides (shop.example.com is Alice's only).
        const page = await client.call('get_indexing_status', { url: 'https://shop.example.com/item' });
        expect(page.isError).toBeFalsy();
        // A page-URL tool names the property the page resolved to.
        expect(page.structuredContent).toMatchObject({ site_url: SEED_PROPERTIES.fullUser, google_account: ALICE });
        expect(actedAs()).toEqual([
          { route: 'sites.get', user: BOB },
          { route: 'sites.get', user: ALICE },
          expect.objectContaining({ user: ALICE }),
        ]);
        // No account was asked about: exactly one had each property.
        expect(client.asked).toEqual([]);
      } finally {
        await client.close();
      }
    });

    it(`${revision}: a property both accounts see → the person is asked (form, the accounts as choices); the answer decides`, async () => {
      const client = await linkClientHttp(server.url, { revision, choose: () => BOB });
      try {
        const result = await client.call('get_site', { site_url: BOTH });
        expect(result.isError).toBeFalsy();
        expect(client.asked).toHaveLength(1);
        const asked = client.asked[0] as unknown as {
          message: string;
          requestedSchema: { properties: { google_account: { oneOf: { const: string; title: string }[] } } };
        };
        // Each account with its permission on the property (the emulator: Alice owns it, Bob is a full user).
        expect([...asked.requestedSchema.properties.google_account.oneOf].sort((a, b) => a.const.localeCompare(b.const))).toEqual([
          { const: ALICE, title: `${ALICE} (owner)` },
          { const: BOB, title: `${BOB} (restricted user, read-only)` },
        ]);
        expect(asked.message).toContain(BOTH);
        expect(actedAs()).toEqual([{ route: 'sites.get', user: BOB }]);
      } finally {
        await client.close();
      }
    });

    it(`${revision}: declining the choice sends nothing; google_account settles it without asking`, async () => {
      const client = await linkClientHttp(server.url, { revision, choose: () => undefined });
      try {
        const declined = await client.call('get_site', { site_url: BOTH });
        expect(declined.isError).toBe(true);
        expect(text(declined)).toMatch(/No Google account was chosen.*nothing was sent to Google.*google_account/);
        expect(actedAs()).toEqual([]);
        const asked = client.asked.length;
        const named = await client.call('get_site', { site_url: BOTH, google_account: ALICE });
        expect(named.isError).toBeFalsy();
        expect(client.asked).toHaveLength(asked);
        expect(actedAs()).toEqual([{ route: 'sites.get', user: ALICE }]);
      } finally {
        await client.close();
      }
    });
  }

  it('2026-07-28 on the wire: a choice of account nobody asked for is no answer; the question is asked, nothing sent', async () => {
    const pick = { google_account: { action: 'accept', content: { google_account: BOB } } };
    const unasked = (await modernToolCall(server.url, 'get_site', { site_url: BOTH }, { inputResponses: pick })).body.result;
    expect(unasked.resultType).toBe('input_required');
    expect(unasked.inputRequests.google_account.params.requestedSchema.properties.google_account.oneOf).toHaveLength(2);
    expect(actedAs()).toEqual([]);
    // Answered in the round it was asked: it counts, once.
    const answered = (
      await modernToolCall(server.url, 'get_site', { site_url: BOTH }, { inputResponses: pick, requestState: unasked.requestState })
    ).body.result;
    expect(answered.structuredContent).toMatchObject({ site_url: BOTH, google_account: BOB });
    const replayed = (
      await modernToolCall(server.url, 'get_site', { site_url: BOTH }, { inputResponses: pick, requestState: unasked.requestState })
    ).body.result;
    expect(replayed.resultType).toBe('input_required');
    expect(actedAs()).toEqual([{ route: 'sites.get', user: BOB }]);
  });

  it('google_account that is not one of the person’s accounts: refused, nothing sent', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      const result = await client.call('get_site', { site_url: BOB_ONLY, google_account: 'carol@example.org' });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('carol@example.org');
      expect(text(result)).toContain(ALICE);
      expect(text(result)).toContain(BOB);
      expect(google.emulator.apiRequests()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('a property no account has: a sentence naming the accounts and a connect link, nothing sent but the lookups', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      const result = await client.call('get_site', { site_url: 'https://nobody.example.com/' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/None of the Google accounts connected for you has https:\/\/nobody\.example\.com\//);
      expect(text(result)).toContain(ALICE);
      expect(text(result)).toContain(BOB);
      expect(text(result)).toMatch(new RegExp(`open ${server.origin.replace(/[.]/g, '\\.')}/connect/google\\?request=`));
      expect(actedAs()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('the accounts’ properties are looked up once, then cached in the state store', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      await client.call('get_site', { site_url: ALICE_ONLY });
      await client.call('get_site', { site_url: BOB_ONLY });
      await client.call('get_site', { site_url: ALICE_ONLY, google_account: ALICE });
      const lookups = google.emulator.apiRequests().filter((r) => r.route === 'sites.list');
      // At most one per account (a test before may have filled the cache for these grants' accounts).
      expect(lookups.length).toBeLessThanOrEqual(2);
      expect(new Set(lookups.map((r) => r.principal)).size).toBe(lookups.length);
    } finally {
      await client.close();
    }
  });

  it('list_sites: the union over both accounts, each entry naming its account; list_google_accounts shows both', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      const sites = await client.call('list_sites');
      const entries = (sites.structuredContent as { sites: { site_url: string; google_account: string }[] }).sites;
      expect(entries).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ site_url: ALICE_ONLY, google_account: ALICE }),
          expect.objectContaining({ site_url: BOB_ONLY, google_account: BOB }),
          expect.objectContaining({ site_url: BOTH, google_account: ALICE }),
          expect.objectContaining({ site_url: BOTH, google_account: BOB }),
        ]),
      );
      const accounts = await client.call('list_google_accounts');
      const listed = (
        accounts.structuredContent as { accounts: { google_account: string; sites: { site_url: string }[]; scopes: string[] }[] }
      ).accounts;
      expect(listed.map((a) => a.google_account).sort()).toEqual([ALICE, BOB].sort());
      expect(listed.find((a) => a.google_account === BOB)!.sites.map((s) => s.site_url)).toContain(BOB_ONLY);
      // list_sites above acted as both: each has a last use.
      expect(listed.every((a) => typeof (a as { last_used?: string }).last_used === 'string')).toBe(true);
      expect(listed.find((a) => a.google_account === BOB)!.sites.map((s) => s.site_url)).not.toContain(ALICE_ONLY);
    } finally {
      await client.close();
    }
  });

  it('disconnect_google_account: revoked at Google, deleted here; its own property asks to connect; one it was used for asks before another account takes over', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28', choose: () => ALICE });
    try {
      // Calls for BOTH act as Bob (restricted there; Alice owns it).
      expect((await client.call('get_site', { site_url: BOTH, google_account: BOB })).isError).toBeFalsy();
      const done = await client.call('disconnect_google_account', { google_account: BOB });
      expect(done.isError).toBeFalsy();
      expect(done.structuredContent).toEqual(expect.objectContaining({ google_account: BOB, disconnected: true, revoked_at_google: true }));
      expect(text(done)).toContain(BOB_ONLY);
      expect(text(done)).toMatch(/No other account takes its place silently/);
      // Revoked at the emulator: its refresh token is dead.
      const refresh = await fetch(google.emulator.tokenUrl, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: bob.refreshToken,
          client_id: OAUTH_CLIENT.clientId,
          client_secret: OAUTH_CLIENT.clientSecret,
        }),
      });
      expect(refresh.status).toBe(400);
      expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
      google.emulator.clearLog();
      const next = await client.call('get_site', { site_url: BOB_ONLY });
      expect(next.isError).toBe(true);
      expect(text(next)).toMatch(/connect the Google account that has it: open http/);
      expect(google.emulator.apiRequests().filter((r) => r.principal === BOB)).toEqual([]);
      // BOTH: Alice has it, with more rights than Bob had; calls for it acted as Bob, so the person is asked first.
      const before = client.asked.length;
      const both = await client.call('get_site', { site_url: BOTH });
      expect(both.isError).toBeFalsy();
      expect(client.asked).toHaveLength(before + 1);
      const asked = client.asked[before] as unknown as {
        message: string;
        requestedSchema: { properties: { google_account: { oneOf: unknown[] } } };
      };
      expect(asked.message).toMatch(/acted as bob@example\.net until now, which is no longer connected/);
      expect(asked.requestedSchema.properties.google_account.oneOf).toEqual([{ const: ALICE, title: `${ALICE} (owner)` }]);
      expect(actedAs()).toEqual([{ route: 'sites.get', user: ALICE }]);
      // Chosen once, remembered: the next call goes on as Alice without asking.
      expect((await client.call('get_site', { site_url: BOTH })).isError).toBeFalsy();
      expect(client.asked).toHaveLength(before + 1);
    } finally {
      await client.close();
    }
  });

  it('a Site Verification id that names no property: the person says which account holds it; nothing is fetched as a guess', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28', choose: () => BOB });
    try {
      const result = await client.call('get_verified_site', { id: 'android-app://com.example.app' });
      expect(client.asked).toHaveLength(1);
      const asked = client.asked[0] as unknown as {
        message: string;
        requestedSchema: { properties: { google_account: { oneOf: { const: string }[] } } };
      };
      expect(asked.message).toMatch(/names no Search Console property, so which of your Google accounts holds it is not known/);
      expect(asked.requestedSchema.properties.google_account.oneOf.map((o) => o.const).sort()).toEqual([ALICE, BOB].sort());
      // Looked up as the account chosen, and no other.
      expect(actedAs()).toEqual([{ route: 'webResource.get', user: BOB }]);
      expect(result.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('Google answers 403 for a property matched from the cache: the next call looks the account up again', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    const carolish = `dora-${Date.now()}@example.com`;
    const sub = `33${Date.now()}`.padEnd(21, '0');
    google.emulator.registerGoogleUser({ email: carolish, sub, sites: { [SEED_PROPERTIES.large]: 'siteOwner' } });
    const grant = await google.mint(carolish);
    // Bob owns that property too: this person has Alice and the new account only.
    await store.remove('local', bob.sub);
    await saveGrant(store, 'local', grant);
    google.emulator.clearLog();
    try {
      expect((await client.call('get_site', { site_url: SEED_PROPERTIES.large })).isError).toBeFalsy();
      expect(actedAs()).toEqual([{ route: 'sites.get', user: carolish }]);
      // Access removed at Google while the match is cached: Google answers 403.
      google.emulator.registerGoogleUser({ email: carolish, sub, sites: {} });
      const refused = await client.call('get_site', { site_url: SEED_PROPERTIES.large });
      expect(refused.isError).toBe(true);
      google.emulator.clearLog();
      const again = await client.call('get_site', { site_url: SEED_PROPERTIES.large });
      expect(again.isError).toBe(true);
      expect(text(again)).toMatch(/None of the Google accounts connected for you has/);
      expect(google.emulator.apiRequests().filter((r) => r.route === 'sites.list' && r.principal === carolish)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe('an account that did not grant a permission', () => {
  let server: InProcessServer;
  let store: GrantStore;
  beforeAll(async () => {
    ({ server, store } = await serverWith());
  });
  afterAll(() => server?.close());

  it('list_verified_sites runs over the accounts that granted Site Verification only (the newest did not)', async () => {
    await saveGrant(store, 'local', await google.mint(ALICE));
    // Newest: a Google user of this test's own (Google remembers what a user granted before), Site Verification unticked.
    const erin = `erin-${Date.now()}@example.com`;
    google.emulator.registerGoogleUser({ email: erin, sub: `44${Date.now()}`.padEnd(21, '0'), sites: { [BOB_ONLY]: 'siteOwner' } });
    const unticked = await google.mint(erin, undefined, [SCOPES.siteverification]);
    expect(unticked.scopes).not.toContain(SCOPES.siteverification);
    await saveGrant(store, 'local', unticked);
    google.emulator.clearLog();
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      const result = await client.call('list_verified_sites');
      expect(text(result)).not.toMatch(/did not grant|did not run/);
      const resources = (result.structuredContent as { resources: { google_account: string }[] }).resources;
      expect(result.isError).toBeFalsy();
      expect(resources.every((r) => r.google_account === ALICE)).toBe(true);
      // One listing, as alice; none as the account that did not grant Site Verification.
      expect(google.emulator.apiRequests().map((r) => `${r.route} ${r.principal}`)).toEqual([`webResource.list ${ALICE}`]);
    } finally {
      await client.close();
    }
  });
});

describe('one person, two Google accounts (token path: no dialog can reach a person)', () => {
  let server: InProcessServer;
  let store: GrantStore;
  let client: LinkClient;
  beforeAll(async () => {
    ({ server, store } = await serverWith({ ELICITATION: 'false' }));
    await connectBoth(store);
    client = await linkClientHttp(server.url, { revision: '2025-11-25', choose: () => BOB });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('a property both accounts see: an isError naming them and the google_account argument; google_account settles it', async () => {
    google.emulator.clearLog();
    const result = await client.call('get_site', { site_url: BOTH });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(ALICE);
    expect(text(result)).toContain(BOB);
    expect(text(result)).toContain('google_account');
    expect(client.asked).toEqual([]);
    expect(actedAs()).toEqual([]);
    expect((await client.call('get_site', { site_url: BOTH, google_account: BOB })).isError).toBeFalsy();
    expect(actedAs()).toEqual([{ route: 'sites.get', user: BOB }]);
  });

  it('an id that names no property: an isError naming the accounts that could hold it; nothing is fetched', async () => {
    google.emulator.clearLog();
    const result = await client.call('get_verified_site', { id: 'android-app://com.example.app' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/which of your Google accounts holds it is not known/);
    expect(text(result)).toContain(ALICE);
    expect(text(result)).toContain(BOB);
    expect(text(result)).toContain('google_account');
    expect(google.emulator.apiRequests().filter((r) => r.route !== 'sites.list')).toEqual([]);
  });

  it('after the account calls used is disconnected: an isError naming the account that remains; google_account settles it for good', async () => {
    // Calls for BOTH act as Bob (restricted there); Alice owns it.
    expect((await client.call('get_site', { site_url: BOTH, google_account: BOB })).isError).toBeFalsy();
    expect((await client.call('disconnect_google_account', { google_account: BOB })).isError).toBeFalsy();
    google.emulator.clearLog();
    const refused = await client.call('get_site', { site_url: BOTH });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/acted as bob@example\.net until now, which is no longer connected/);
    expect(text(refused)).toContain(`${ALICE} (owner)`);
    expect(text(refused)).toMatch(/did not run and nothing was sent to Google.*google_account/);
    expect(actedAs()).toEqual([]);
    expect((await client.call('get_site', { site_url: BOTH, google_account: ALICE })).isError).toBeFalsy();
    expect((await client.call('get_site', { site_url: BOTH })).isError).toBeFalsy();
    expect(actedAs()).toEqual([
      { route: 'sites.get', user: ALICE },
      { route: 'sites.get', user: ALICE },
    ]);
  });
});

describe('the allowlist still bounds every account', () => {
  let server: InProcessServer;
  let store: GrantStore;
  beforeAll(async () => {
    // A domain entry would allow every property on its domain: two URL-prefix ones, one per account.
    // And one no account has, to hear what the accounts are said to have.
    ({ server, store } = await serverWith({ GSC_ALLOWED_SITES: `${SEED_PROPERTIES.fullUser},${BOB_ONLY},https://nobody.example.com/` }));
    await connectBoth(store);
  });
  afterAll(() => server?.close());

  it('list_sites withholds what the allowlist hides, across accounts; a property outside it is refused with nothing sent', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      const sites = (await client.call('list_sites')).structuredContent as {
        sites: { site_url: string; google_account: string }[];
        withheld: number;
      };
      expect(sites.sites.map((s) => `${s.site_url} ${s.google_account}`).sort()).toEqual(
        [`${SEED_PROPERTIES.fullUser} ${ALICE}`, `${BOB_ONLY} ${BOB}`].sort(),
      );
      expect(sites.withheld).toBeGreaterThan(0);
      google.emulator.clearLog();
      const refused = await client.call('get_site', { site_url: SEED_PROPERTIES.large });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/outside this server's allowed properties/);
      expect(google.emulator.apiRequests()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('a named account that lacks the property is refused before anything is sent, naming the account that has it', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    google.emulator.clearLog();
    try {
      const refused = await client.call('get_site', { site_url: BOB_ONLY, google_account: ALICE });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toBe(
        `${ALICE} has no property for ${BOB_ONLY} in Search Console, so get_site did not run and nothing was sent to Google. ${BOB} has it: call get_site again with google_account set to it.`,
      );
      expect(actedAs()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("Google's refusal for a named account (its cached list out of date) lists only the allowed properties it has", async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    const erin = `erin-${Date.now()}@example.com`;
    const sub = `55${Date.now()}`.padEnd(21, '0');
    const withheld = [SEED_PROPERTIES.large, SEED_PROPERTIES.subPath];
    const others = Object.fromEntries(withheld.map((p) => [p, 'siteOwner']));
    google.emulator.registerGoogleUser({ email: erin, sub, sites: { ...others, [BOB_ONLY]: 'siteOwner' } });
    await saveGrant(store, 'local', await google.mint(erin));
    try {
      // Its list (now cached) has the property: the call goes to Google as erin.
      expect((await client.call('get_site', { site_url: BOB_ONLY, google_account: erin })).isError).toBeFalsy();
      // Erin loses it at Google and gains an allowed one, while the cached list still says otherwise: Google answers 403.
      google.emulator.registerGoogleUser({ email: erin, sub, sites: { ...others, [SEED_PROPERTIES.fullUser]: 'siteFullUser' } });
      const refused = await client.call('get_site', { site_url: BOB_ONLY, google_account: erin });
      expect(refused.isError).toBe(true);
      expect(text(refused).split('\n')[0]).toBe(`As ${erin} on ${BOB_ONLY}:`);
      expect(text(refused)).toContain(
        `is not among the properties of ${erin}, which has: ${SEED_PROPERTIES.fullUser} (siteFullUser) and 2 more you may not use here.`,
      );
      for (const hidden of withheld) {
        expect(text(refused)).not.toContain(hidden);
      }
    } finally {
      await store.remove('local', sub);
      await client.close();
    }
  });

  it('"none of your accounts has it" names only allowed properties and counts the rest as withheld', async () => {
    const client = await linkClientHttp(server.url, { revision: '2025-11-25' });
    try {
      const none = await client.call('get_site', { site_url: 'https://nobody.example.com/' });
      expect(none.isError).toBe(true);
      expect(text(none)).toContain(`${ALICE} has ${SEED_PROPERTIES.fullUser};`);
      expect(text(none)).toContain(`${BOB} has ${BOB_ONLY};`);
      expect(text(none)).toMatch(/\d+ more properties withheld: outside the properties you may use here/);
      for (const hidden of [ALICE_ONLY, BOTH, SEED_PROPERTIES.large, SEED_PROPERTIES.subPath]) {
        expect(text(none)).not.toContain(hidden);
      }
    } finally {
      await client.close();
    }
  });
});

describe('a guarded change on a property both accounts see', () => {
  let server: InProcessServer;
  let store: GrantStore;
  beforeAll(async () => {
    ({ server, store } = await serverWith());
  });
  afterAll(() => server?.close());

  for (const revision of REVISIONS) {
    it(`${revision}: the person chooses the account, then approves; the change is made as that account`, async () => {
      await connectBoth(store);
      google.emulator.clearLog();
      const client = await linkClientHttp(server.url, { revision, choose: () => ALICE, approve: true });
      try {
        const result = await client.call('delete_sitemap', { site_url: BOTH, sitemap_url: `${BOTH}sitemap.xml` });
        expect(text(result)).not.toMatch(/did not run/);
        const choices = client.asked.filter((a) => /Which one should delete_sitemap act as/.test(a.message));
        expect(choices).toHaveLength(1);
        // The approval names the Google account that will act, and the sitemap it deletes, as quoted data.
        const approval = client.asked.find((a) => /This will delete a sitemap submission/.test(a.message))!;
        expect(approval.message).toContain(`- Google account making the change: "${ALICE}"`);
        expect(approval.message).toContain(`- Sitemap URL: "${BOTH}sitemap.xml"`);
        expect(text(result).split('\n')[0]).toBe(`As ${ALICE} on ${BOTH}:`);
        expect(actedAs().filter((r) => r.route === 'sitemaps.delete')).toEqual([{ route: 'sitemaps.delete', user: ALICE }]);
      } finally {
        await client.close();
      }
    });
  }
});

describe('the connect flow in a browser adds an account; connecting the same account again replaces its grant', () => {
  let server: InProcessServer;
  let store: GrantStore;
  let browser: Browser;
  beforeAll(async () => {
    ({ server, store } = await serverWith());
    google.emulator.registerOAuthClient({
      ...OAUTH_CLIENT,
      redirectUris: ['http://127.0.0.1:1/connect/google/callback', `${server.origin}/connect/google/callback`],
      type: 'web',
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function connectInBrowser(url: string, googleUser: string): Promise<void> {
    const page = await browser.newPage();
    try {
      const landed = await clickThrough(page, url, { googleUser });
      expect(landed.status).toBe(200);
      expect(landed.text).toContain(`Connected ${googleUser}`);
    } finally {
      await page.close();
    }
  }

  it('alice, then bob by the link list_google_accounts gives, then bob again: two accounts, each call to the right one', async () => {
    const { usable } = await store.read('local');
    for (const { googleSub } of usable) {
      await store.remove('local', googleSub);
    }
    alice = await google.mint(ALICE);
    await saveGrant(store, 'local', alice);
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      const link = (await client.call('list_google_accounts')).structuredContent as { connect_url: string };
      await connectInBrowser(link.connect_url, BOB);
      const bobFirst = (await store.list('local')).find((g) => g.googleEmail === BOB)!;
      const again = (await client.call('list_google_accounts')).structuredContent as { connect_url: string; accounts: unknown[] };
      expect(again.accounts).toHaveLength(2);
      await connectInBrowser(again.connect_url, BOB);
      const grants = await store.list('local');
      expect(grants.map((g) => g.googleEmail).sort()).toEqual([ALICE, BOB].sort());
      // Replaced, not added: one record for bob, with a new refresh token.
      expect(grants.find((g) => g.googleEmail === BOB)!.refreshToken).not.toBe(bobFirst.refreshToken);
      google.emulator.clearLog();
      expect((await client.call('get_site', { site_url: BOB_ONLY })).isError).toBeFalsy();
      expect((await client.call('get_site', { site_url: ALICE_ONLY })).isError).toBeFalsy();
      expect(actedAs()).toEqual([
        { route: 'sites.get', user: BOB },
        { route: 'sites.get', user: ALICE },
      ]);
    } finally {
      await client.close();
    }
  });
});

describe("the person's policy still bounds every account (OAuth callers, a per-principal rule)", () => {
  const DANA = 'dana@corp.example';
  const AUDIENCE = 'https://mcp.test.example/mcp';
  let server: InProcessServer;
  let store: GrantStore;
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await TestIssuer.start({ audience: AUDIENCE });
    const file = join(mkdtempSync(join(tmpdir(), 'gsc-several-')), 'policy.json');
    writeFileSync(file, JSON.stringify({ rules: [{ principals: [DANA], tools: ['*'], sites: [BOB_ONLY] }] }));
    ({ server, store } = await serverWith({
      GSC_AUTH_ISSUER: issuer.issuer,
      GSC_AUTH_AUDIENCE: AUDIENCE,
      GSC_AUTH_CLIENT_ID: 'gsc-connect',
      GSC_AUTH_CLIENT_SECRET: 'connect-secret-for-tests',
      GSC_POLICY_FILE: file,
    }));
    await saveGrant(store, DANA, await google.mint(ALICE));
    await saveGrant(store, DANA, await google.mint(BOB));
  });
  afterAll(async () => {
    await server?.close();
    await issuer?.close();
  });

  it("list_sites and list_google_accounts show only the rule's sites; another account's property is refused with nothing sent", async () => {
    const token = await issuer.mint({ email: DANA, sub: `sub-${DANA}` });
    const client = await linkClientHttp(server.url, { revision: '2025-11-25', headers: { authorization: `Bearer ${token}` } });
    try {
      const sites = (await client.call('list_sites')).structuredContent as {
        sites: { site_url: string; google_account: string }[];
        withheld: number;
      };
      expect(sites.sites).toEqual([expect.objectContaining({ site_url: BOB_ONLY, google_account: BOB })]);
      expect(sites.withheld).toBeGreaterThan(0);
      const accounts = (await client.call('list_google_accounts')).structuredContent as {
        accounts: { google_account: string; sites: { site_url: string }[]; withheld?: number }[];
      };
      const aliceSeen = accounts.accounts.find((a) => a.google_account === ALICE)!;
      expect(aliceSeen.sites).toEqual([]);
      expect(aliceSeen.withheld).toBeGreaterThan(0);
      google.emulator.clearLog();
      const refused = await client.call('get_site', { site_url: ALICE_ONLY });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/rule 1 in GSC_POLICY_FILE/);
      expect(google.emulator.apiRequests()).toEqual([]);
      expect((await client.call('get_site', { site_url: BOB_ONLY })).isError).toBeFalsy();
      expect(actedAs()).toEqual([{ route: 'sites.get', user: BOB }]);
    } finally {
      await client.close();
    }
  });

  it('disconnect_google_account names only the properties the rule allows and counts the rest', async () => {
    const token = await issuer.mint({ email: DANA, sub: `sub-${DANA}` });
    const client = await linkClientHttp(server.url, { revision: '2026-07-28', headers: { authorization: `Bearer ${token}` } });
    try {
      const done = await client.call('disconnect_google_account', { google_account: ALICE });
      expect(done.isError).toBeFalsy();
      const out = done.structuredContent as { properties: string[]; withheld?: number };
      expect(out.properties).toEqual([]);
      expect(out.withheld).toBeGreaterThan(0);
      for (const hidden of [ALICE_ONLY, BOTH, SEED_PROPERTIES.fullUser]) {
        expect(text(done)).not.toContain(hidden);
      }
      expect(text(done)).toMatch(/withheld/);
    } finally {
      await client.close();
    }
  });
});
