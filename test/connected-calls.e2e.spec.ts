// Connected accounts at call time (PRODUCT.md §8d "Asking to connect", "Using
// a grant"), loopback mode (`local`) over HTTP and stdio, with the official
// clients of both revisions: a principal without a grant is asked to connect
// by URL elicitation (2025-11-25: elicitation/create mode url pushed mid-call;
// 2026-07-28: input_required), and the call goes on once the grant exists; a
// client that cannot open links gets the link in an isError sentence; a
// declined link sends nothing; an unticked scope hides the tools that need it;
// a grant revoked at Google asks to connect again; the audit trail names the
// Google account each call used. The grants are real (minted at the emulator
// as a browser would); the connect pages have their own browser specs.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SCOPES } from '../src/emulator/emulator-routing.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { text } from './support/clients.js';
import {
  type AnswerLink,
  type ConnectedGoogle,
  grantStoreFor,
  type LinkClient,
  linkClientHttp,
  linkClientStdio,
  saveGrant,
  startConnectedGoogle,
} from './support/connected-kit.js';
import { declaredTools } from './support/declared-tools.js';
import { isolatedEnv } from './support/env.js';
import type { MintedGrant } from './support/google-grant.js';
import { type InProcessServer, startInProcess } from './support/server.js';

const REVISIONS = ['2026-07-28', '2025-11-25'] as const;
const ALICE = 'alice@example.com';
const BOB = 'bob@example.net';
const WAITING = /Waiting for the Google account to be connected/;
/** The tools that change Search Console: they need its full scope (webmasters), which a read-only grant lacks. */
const SEARCH_CONSOLE_WRITES = declaredTools()
  .filter((t) => t.apis.includes('searchconsole') && t.access !== 'read')
  .map((t) => t.name);

let google: ConnectedGoogle;
beforeAll(async () => {
  google = await startConnectedGoogle();
});
afterAll(() => google?.close());

/** Resolves once `check` holds, polling briefly; fails the test after a while. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/**
 * A person who accepts the link, and whose grant is stored only once the
 * server says it is waiting for it (a progress notification): the call must
 * wait for the grant and then go on.
 */
function connectsAfterAccepting(client: () => LinkClient, store: GrantStore, principal: string, grant: () => MintedGrant): AnswerLink {
  return async () => {
    void until(() => client().progress.some((m) => WAITING.test(m)), 'the server to wait for the grant').then(() =>
      saveGrant(store, principal, grant()),
    );
    return { action: 'accept' };
  };
}

function expectConnectLink(url: string | undefined): void {
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/connect\/google\?request=[A-Za-z0-9_-]{16,}$/);
  // No principal, e-mail, token or secret in it.
  expect(url).not.toMatch(/local|alice|example\.com|%40|@|refresh|secret|token/i);
}

describe('loopback over HTTP (principal `local`)', () => {
  let server: InProcessServer;
  let store: GrantStore;
  beforeAll(async () => {
    server = await startInProcess(google.env);
    store = server.app.get(GrantStore, { strict: false });
  });
  afterAll(() => server?.close());
  beforeEach(async () => {
    for (const grant of await store.list('local')) {
      await store.remove('local', grant.googleSub);
    }
    google.emulator.clearLog();
  });

  for (const revision of REVISIONS) {
    it(`${revision}: no grant → a URL elicitation to the connect link; the call goes on once the grant is stored`, async () => {
      const grant = await google.mint(ALICE);
      const client: LinkClient = await linkClientHttp(server.url, { revision, answer: connectsAfterAccepting(() => client, store, 'local', () => grant) });
      try {
        const result = await client.call('list_sites');
        expect(text(result)).not.toMatch(/did not run|nothing was sent/i);
        expect(result.isError).toBeFalsy();
        // Alice's own properties, not a shared identity's.
        const sites = (result.structuredContent!.sites as { site_url: string }[]).map((s) => s.site_url);
        expect(sites).toContain(SEED_PROPERTIES.owned);
        expect(sites).not.toContain(SEED_PROPERTIES.blog);
        expect(client.asked).toHaveLength(1);
        const [asked] = client.asked;
        expect(asked.mode).toBe('url');
        expectConnectLink(asked.url);
        expect(asked.message).toMatch(/^Connect your Google account to google-search-console-mcp/);
        expect(asked.message).not.toMatch(/token|secret/i);
        if (revision === '2025-11-25') {
          expect(asked.elicitationId).toEqual(expect.any(String));
        }
        expect(client.progress.some((m) => WAITING.test(m))).toBe(true);
        // The next call needs no link.
        expect((await client.call('list_sites')).isError).toBeFalsy();
        expect(client.asked).toHaveLength(1);
        const audit = (await (await fetch(`${server.origin}/admin/audit?outcome=google_call&tool=list_sites&limit=2`)).json()) as {
          entries: { principal: string; google_account: string; event: string }[];
        };
        expect(audit.entries).toHaveLength(2);
        expect(audit.entries[0]).toMatchObject({ event: 'google_call', principal: 'local', google_account: ALICE });
      } finally {
        await client.close();
      }
    });
  }

  for (const revision of REVISIONS) {
    it(`${revision}: a client without URL elicitation gets the link in an isError sentence, and nothing reaches Google`, async () => {
      const client = await linkClientHttp(server.url, { revision });
      try {
        const result = await client.call('list_sites');
        expect(result.isError).toBe(true);
        const sentence = text(result);
        expect(sentence).toMatch(/^list_sites did not run: no Google account is connected for you on this server, so nothing was sent to Google\./);
        expect(sentence).toMatch(/did not declare URL-mode elicitation/);
        expect(sentence).toMatch(/then call list_sites again\.$/);
        expectConnectLink(/(http:\/\/\S+) —/.exec(sentence)?.[1]);
        expect(client.asked).toHaveLength(0);
        expect(google.emulator.apiRequests()).toHaveLength(0);
      } finally {
        await client.close();
      }
    });
  }

  for (const revision of REVISIONS) {
    it(`${revision}: declining the link sends nothing to Google and says so`, async () => {
      const client = await linkClientHttp(server.url, { revision, answer: async () => ({ action: 'decline' }) });
      try {
        const result = await client.call('submit_sitemap', {
          site_url: SEED_PROPERTIES.owned,
          sitemap_url: `${SEED_PROPERTIES.owned}sitemap.xml`,
        });
        expect(result.isError).toBe(true);
        expect(text(result)).toBe(
          'You declined to connect a Google account, so submit_sitemap did not run and nothing was sent to Google. Call submit_sitemap again when you want to connect one.',
        );
        expect(client.asked).toHaveLength(1);
        expect(google.emulator.requests).toHaveLength(0);
      } finally {
        await client.close();
      }
    });
  }

  it('an unticked scope: the write tools it covers are hidden, and one called anyway names the permission and a link to grant it', async () => {
    // Bob (Google remembers what a user granted before, include_granted_scopes): he unticks the full Search Console scope.
    const readOnly = await google.mint(BOB, [SCOPES.webmastersReadonly, SCOPES.webmasters, SCOPES.indexing, SCOPES.siteverification], [
      SCOPES.webmasters,
    ]);
    expect(readOnly.scopes).not.toContain(SCOPES.webmasters);
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      const before = (await client.listTools()).map((t) => t.name);
      expect(before).toEqual(expect.arrayContaining(SEARCH_CONSOLE_WRITES)); // before any grant: the usual tools
      await saveGrant(store, 'local', readOnly);
      expect(SEARCH_CONSOLE_WRITES).toEqual(expect.arrayContaining(['add_site', 'delete_site', 'delete_sitemap', 'submit_sitemap']));
      const after = (await client.listTools()).map((t) => t.name);
      expect(after).toEqual(before.filter((name) => !SEARCH_CONSOLE_WRITES.includes(name)));
      expect(after).toEqual(expect.arrayContaining(['list_sites', 'request_indexing', 'get_verification_token']));
      google.emulator.clearLog();
      const result = await client.call('submit_sitemap', {
        site_url: SEED_PROPERTIES.owned,
        sitemap_url: `${SEED_PROPERTIES.owned}sitemap.xml`,
      });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /^submit_sitemap needs the Google permission “View and manage Search Console data for your verified sites” \(https:\/\/www\.googleapis\.com\/auth\/webmasters\), which bob@example\.net did not grant when it was connected/,
      );
      expectConnectLink(/open (http:\/\/\S+) in a browser/.exec(text(result))?.[1]);
      expect(google.emulator.apiRequests()).toHaveLength(0);
      // Reads still work with the read-only grant.
      expect((await client.call('list_sites')).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  for (const revision of REVISIONS) {
    it(`${revision}: a grant revoked at Google → the next call asks to connect again`, async () => {
      // A user of their own: Google's revocation here ends this grant's tokens, not those of grants minted for alice earlier.
      const user = `revoked-${revision}@example.com`;
      google.emulator.registerGoogleUser({ email: user, sub: `2200000000000000${revision.slice(0, 4)}`, sites: { [SEED_PROPERTIES.owned]: 'siteOwner' } });
      const grant = await google.mint(user);
      await saveGrant(store, 'local', grant);
      const client = await linkClientHttp(server.url, { revision, answer: async () => ({ action: 'cancel' }) });
      try {
        expect((await client.call('list_sites')).isError).toBeFalsy();
        await google.revoke(grant);
        const result = await client.call('list_sites');
        expect(client.asked).toHaveLength(1);
        expect(client.asked[0].message).toMatch(/^Connect your Google account to google-search-console-mcp again: .*revoked/);
        expectConnectLink(client.asked[0].url);
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(/^The request to connect a Google account was dismissed, so list_sites did not run/);
      } finally {
        await client.close();
      }
    });
  }
});

describe('loopback over stdio (principal `local`)', () => {
  for (const revision of REVISIONS) {
    it(`${revision}: no grant → a URL elicitation; the call goes on once the grant is stored`, async () => {
      const env = isolatedEnv(google.env);
      const store = grantStoreFor(env);
      const grant = await google.mint(ALICE);
      const client: LinkClient = await linkClientStdio(env, { revision, answer: connectsAfterAccepting(() => client, store, 'local', () => grant) });
      try {
        const result = await client.call('list_sites');
        expect(result.isError).toBeFalsy();
        expect(client.asked).toHaveLength(1);
        expect(client.asked[0].mode).toBe('url');
        expect(client.asked[0].url).toMatch(/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/connect\/google\?request=[A-Za-z0-9_-]{16,}$/);
        const sites = (result.structuredContent!.sites as { site_url: string }[]).map((s) => s.site_url);
        expect(sites).toContain(SEED_PROPERTIES.owned);
      } finally {
        await client.close();
      }
    });
  }
});
