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
import { GrantStore, recordKey } from '../src/accounts/grant-store.js';
import { STATE_STORE } from '../src/state/state.module.js';
import type { StateStore } from '../src/state/state-store.js';
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
import type { Browser } from 'playwright-core';
import { clickThrough, type Landed, until } from './support/connect-kit.js';
import { declaredTools } from './support/declared-tools.js';
import { isolatedEnv } from './support/env.js';
import type { MintedGrant } from './support/google-grant.js';
import { launchChromium } from './support/views-browser.js';
import { modernToolCall } from './support/modern-wire.js';
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

function expectConnectLink(url: string | undefined, origin: string): void {
  // On the server's own origin (the connect pages are served beside /mcp).
  expect(url).toMatch(new RegExp(`^${origin.replace(/[.]/g, '\\.')}/connect/google\\?request=[A-Za-z0-9_-]{16,}$`));
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
    const { usable, revoked, unreadable } = await store.read('local');
    for (const { googleSub } of [...usable, ...revoked, ...unreadable]) {
      await store.remove('local', googleSub);
    }
    google.emulator.clearLog();
  });

  /** A Google user of the test's own, so that revoking their grant at Google touches no other test's tokens. */
  function freshUser(name: string): string {
    const email = `${name}@example.com`;
    const sub = `22${[...name].reduce((n, c) => (n * 31 + c.charCodeAt(0)) % 1e15, 7)}`.padEnd(21, '0');
    google.emulator.registerGoogleUser({ email, sub, sites: { [SEED_PROPERTIES.owned]: 'siteOwner' } });
    return email;
  }
  const auditOf = async (query: string) =>
    ((await (await fetch(`${server.origin}/admin/audit?${query}`)).json()) as { entries: Record<string, unknown>[] }).entries;

  for (const revision of REVISIONS) {
    it(`${revision}: no grant → a URL elicitation to the connect link; the call goes on once the grant is stored`, async () => {
      const grant = await google.mint(ALICE);
      const client: LinkClient = await linkClientHttp(server.url, {
        revision,
        answer: connectsAfterAccepting(
          () => client,
          store,
          'local',
          () => grant,
        ),
      });
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
        expectConnectLink(asked.url, server.origin);
        expect(asked.message).toMatch(/^Connect your Google account to google-search-console-mcp/);
        expect(asked.message).not.toMatch(/token|secret/i);
        if (revision === '2025-11-25') {
          // The client hears that the link it opened did its work.
          expect(asked.elicitationId).toEqual(expect.any(String));
          await until(() => client.completed.length > 0, 'notifications/elicitation/complete');
          expect(client.completed).toEqual([asked.elicitationId]);
          // Its tool list may change with the scopes granted: it is told to list again.
          await until(() => client.listChanged() > 0, 'notifications/tools/list_changed');
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

  for (const [revision, sitemap] of [
    ['2026-07-28', 'https://www.example.com/feed.xml'],
    ['2025-11-25', 'https://www.example.com/news-sitemap.xml'],
  ] as const) {
    it(`${revision}: a guarded first call asks to connect, then for approval, and changes Google once`, async () => {
      const grant = await google.mint(ALICE);
      const client: LinkClient = await linkClientHttp(server.url, {
        revision,
        approve: true,
        answer: connectsAfterAccepting(
          () => client,
          store,
          'local',
          () => grant,
        ),
      });
      try {
        const result = await client.call('delete_sitemap', { site_url: SEED_PROPERTIES.owned, sitemap_url: sitemap });
        expect(result.structuredContent).toMatchObject({ executed: true, outcome: 'executed' });
        expect(client.asked.map((a) => a.mode ?? 'form')).toEqual(['url', 'form']);
        const deletes = google.emulator.apiRequests().filter((r) => r.route === 'sitemaps.delete');
        expect(deletes).toHaveLength(1);
        expect((await auditOf('tool=delete_sitemap&outcome=executed&limit=1'))[0]).toMatchObject({
          principal: 'local',
          google_account: ALICE,
        });
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
        expect(sentence).toMatch(
          /^list_sites did not run: no Google account is connected for you on this server, so nothing was sent to Google\./,
        );
        expect(sentence).toMatch(/did not declare URL-mode elicitation/);
        expect(sentence).toMatch(/then call list_sites again\.$/);
        expectConnectLink(/(http:\/\/\S+) —/.exec(sentence)?.[1], server.origin);
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

  it('2026-07-28: an "accept" for a link nobody asked for is no answer: the call answers at once with the question', async () => {
    const accept = { connect_google: { action: 'accept' } };
    const ask = (options: Parameters<typeof modernToolCall>[3]) =>
      modernToolCall(server.url, 'list_sites', {}, { urlElicitation: true, ...options });
    // An unasked accept: no waiting for a grant, the question itself.
    const unasked = (await ask({ inputResponses: accept })).body.result;
    expect(unasked.resultType).toBe('input_required');
    expect(unasked.inputRequests.connect_google.params.mode).toBe('url');
    expect(unasked.requestState).toMatch(/^gsc-round\./);
    // A made-up state, or the state the server sent brought to another tool, is no round of this call either.
    for (const requestState of ['gsc-round.00000000-0000-4000-8000-000000000000', 'made-up']) {
      expect((await ask({ inputResponses: accept, requestState })).body.result.resultType).toBe('input_required');
    }
    const other = await modernToolCall(
      server.url,
      'list_verified_sites',
      {},
      { urlElicitation: true, inputResponses: accept, requestState: unasked.requestState },
    );
    expect(other.body.result.resultType).toBe('input_required');
    // The round the question went out in counts once: declined, then the same round again is no answer.
    const fresh = (await ask({})).body.result;
    const declined = (await ask({ inputResponses: { connect_google: { action: 'decline' } }, requestState: fresh.requestState })).body
      .result;
    expect(declined.content[0].text).toMatch(/^You declined to connect a Google account/);
    expect((await ask({ inputResponses: accept, requestState: fresh.requestState })).body.result.resultType).toBe('input_required');
    expect(google.emulator.requests).toHaveLength(0);
  });

  it('an unticked scope: the write tools it covers are hidden, and one called anyway names the permission and a link to grant it', async () => {
    // Bob (Google remembers what a user granted before, include_granted_scopes): he unticks the full Search Console scope.
    const readOnly = await google.mint(
      BOB,
      [SCOPES.webmastersReadonly, SCOPES.webmasters, SCOPES.indexing, SCOPES.siteverification],
      [SCOPES.webmasters],
    );
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
      expectConnectLink(/open (http:\/\/\S+) in a browser/.exec(text(result))?.[1], server.origin);
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
      const grant = await google.mint(freshUser(`revoked-${revision.slice(0, 4)}`));
      await saveGrant(store, 'local', grant);
      const client = await linkClientHttp(server.url, { revision, answer: async () => ({ action: 'cancel' }) });
      try {
        expect((await client.call('list_sites')).isError).toBeFalsy();
        await google.revoke(grant);
        const result = await client.call('list_sites');
        expect(client.asked).toHaveLength(1);
        expect(client.asked[0].message).toMatch(/^Connect your Google account to google-search-console-mcp again: .*revoked/);
        expectConnectLink(client.asked[0].url, server.origin);
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(/^The request to connect a Google account was dismissed, so list_sites did not run/);
      } finally {
        await client.close();
      }
    });
  }

  it('a grant revoked at Google, and a client without URL elicitation: the sentence says it must be connected again and gives the link', async () => {
    const grant = await google.mint(freshUser('revoked-nolink'));
    await saveGrant(store, 'local', grant);
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      expect((await client.call('list_sites')).isError).toBeFalsy();
      await google.revoke(grant);
      const result = await client.call('list_sites');
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /^list_sites did not run: the Google account connected for you no longer accepts this server \(access was revoked or has expired\), so it must be connected again, so nothing was sent to Google\./,
      );
      expectConnectLink(/(http:\/\/\S+) —/.exec(text(result))?.[1], server.origin);
      expect(text(result)).not.toContain(grant.refreshToken);
    } finally {
      await client.close();
    }
  });

  it('a tampered grant record is no grant: the call asks to connect again, and the trail says why', async () => {
    const grant = await google.mint(ALICE);
    await saveGrant(store, 'local', grant);
    const state = server.app.get<symbol, StateStore>(STATE_STORE, { strict: false });
    const slot = recordKey('local', grant.sub);
    const sealed = JSON.parse((await state.get(slot))!) as { data: string };
    const bytes = Buffer.from(sealed.data, 'base64');
    bytes[bytes.length - 1] ^= 0x01;
    await state.put(slot, JSON.stringify({ ...sealed, data: bytes.toString('base64') }));
    google.emulator.clearLog();
    const client = await linkClientHttp(server.url, { revision: '2025-11-25' });
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /^list_sites did not run: the Google account connected for you must be connected again \(its record on this server could not be read\)/,
      );
      expect(google.emulator.apiRequests()).toHaveLength(0);
      expect((await auditOf('outcome=connect_asked&limit=1'))[0]).toMatchObject({ principal: 'local', path: 'link', reason: 'unreadable' });
    } finally {
      await client.close();
    }
  });
});

describe('ELICITATION=false', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startInProcess({ ...google.env, ELICITATION: 'false' });
  });
  afterAll(() => server?.close());

  it('gives the link in the sentence even to a client that could open it, and says why', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28', answer: async () => ({ action: 'accept' }) });
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/ELICITATION=false is set for this server, so open this link in a browser yourself: http:\/\/\S+ —/);
      expect(client.asked).toHaveLength(0);
    } finally {
      await client.close();
    }
  });
});

describe('loopback over stdio (principal `local`)', () => {
  for (const revision of REVISIONS) {
    it(`${revision}: no grant → a URL elicitation; the call goes on once the grant is stored`, async () => {
      const env = isolatedEnv(google.env);
      const store = grantStoreFor(env);
      const grant = await google.mint(ALICE);
      const client: LinkClient = await linkClientStdio(env, {
        revision,
        answer: connectsAfterAccepting(
          () => client,
          store,
          'local',
          () => grant,
        ),
      });
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

describe('stdio, the whole flow: the person opens the link in a browser (headless Chromium) and allows', () => {
  let desktop: ConnectedGoogle;
  let browser: Browser;
  beforeAll(async () => {
    desktop = await startConnectedGoogle('desktop');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await desktop?.close();
  });

  for (const revision of REVISIONS) {
    it(`${revision}: the URL elicitation's link connects bob at the emulator's consent page, and the call goes on as bob`, async () => {
      const env = isolatedEnv(desktop.env);
      const landed: Promise<Landed>[] = [];
      const client = await linkClientStdio(env, {
        revision,
        answer: async (request) => {
          // The client opens the link for the person after they accepted; the call waits meanwhile.
          landed.push(
            browser.newPage().then(async (page) => {
              try {
                return await clickThrough(page, request.url!, { googleUser: BOB });
              } finally {
                await page.close();
              }
            }),
          );
          return { action: 'accept' };
        },
      });
      try {
        const result = await client.call('list_sites');
        expect(text(result)).not.toMatch(/did not run/);
        expect(result.isError).toBeFalsy();
        const sites = (result.structuredContent!.sites as { site_url: string }[]).map((s) => s.site_url);
        expect(sites).toContain(SEED_PROPERTIES.blog); // bob's, not alice's
        expect(sites).not.toContain(SEED_PROPERTIES.domain);
        expect(client.asked).toHaveLength(1);
        const page = await landed[0];
        expect(page.status).toBe(200);
        expect(page.text).toMatch(
          /Connected bob@example\.net to the Search Console server your MCP client runs over stdio on this machine for you, the local user\./,
        );
        expect((await grantStoreFor(env).list('local')).map((g) => g.googleEmail)).toEqual(['bob@example.net']);
      } finally {
        await client.close();
      }
    });
  }
});
