// How a connect link ends, as a person meets it (PRODUCT.md §8d "Never the
// wrong account, never silently"): the official clients of both revisions call
// a tool, get the URL elicitation, and headless Chromium opens the link on the
// loopback HTTP server (principal `local`) against the Google emulator.
//
// - Cancel on Google's consent page (Google's one button that says no; it
//   answers error=access_denied) ends the waiting call within a poll, saying
//   "you declined at Google; nothing was stored or sent", and the page says the
//   call was told; 2025-11-25 also gets notifications/elicitation/complete.
// - notifications/elicitation/complete goes out as soon as the grant is stored,
//   before a 2025-11-25 client has answered the URL elicitation (the MCP
//   Inspector waits for it), also when another replica stored the grant.
// - Only a principal's newest links work, and only so many calls wait at once.
// - The pages' events are in /admin/audit.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { MAX_LIVE_LINKS, MAX_WAITING_CALLS } from '../src/accounts/connect-requests.js';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { GoogleEmulator } from '../src/emulator/google-emulator.js';
import { compareEntryIds } from '../src/state/state-store.js';
import { text, type ToolResult } from './support/clients.js';
import {
  type ClickThrough,
  clickThrough,
  clickThroughIn,
  connectedEnv,
  GOOGLE_CLIENT,
  type Landed,
  replicasSharingRedis,
  until,
} from './support/connect-kit.js';
import { type LinkClient, linkClientHttp, type UrlElicitation } from './support/connected-kit.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { launchChromium } from './support/views-browser.js';

const REVISIONS = ['2026-07-28', '2025-11-25'] as const;
const BOB = 'bob@example.net';
const DECLINED =
  'You declined at Google, so no Google account was connected: nothing was stored, list_sites did not run and nothing was sent to Google. Call list_sites again when you want to connect one.';

let emulator: GoogleEmulator;
let server: InProcessServer;
let browser: Browser;

beforeAll(async () => {
  emulator = await GoogleEmulator.start();
  server = await startInProcess(connectedEnv(emulator));
  emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [`${server.origin}/connect/google/callback`] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await emulator?.close();
});
beforeEach(async () => {
  const store = server.app.get(GrantStore);
  for (const grant of await store.list('local')) {
    await store.remove('local', grant.googleSub);
  }
  emulator.clearLog();
});

const grants = () => server.app.get(GrantStore).list('local');
/** What reached Google's APIs (not its sign-in pages, the browser's favicon request, or the token endpoint). */
const apiCalls = () =>
  emulator.requests.filter((r) => r.route !== 'token' && !r.route.startsWith('oauth.') && r.rawPath !== '/favicon.ico');
const auditOf = async (query: string) =>
  ((await (await fetch(`${server.origin}/admin/audit?${query}`)).json()) as { entries: Record<string, unknown>[] }).entries;

const inBrowser = (url: string, options: ClickThrough = {}) => clickThroughIn(browser, url, options);

/** A client whose person accepts the link and opens it in Chromium, clicking as told; `landed` holds the pages they ended on. */
async function personWith(revision: (typeof REVISIONS)[number], options: ClickThrough, url = server.url) {
  const landed: Promise<Landed>[] = [];
  const client = await linkClientHttp(url, {
    revision,
    answer: async (request) => {
      landed.push(inBrowser(request.url!, options));
      return { action: 'accept' };
    },
  });
  return { client, landed };
}

describe('Cancel on Google’s consent page (how a person denies at Google)', () => {
  for (const revision of REVISIONS) {
    it(`${revision}: the waiting call ends at once, saying you declined and nothing was stored or sent; the page says the call was told`, async () => {
      const { client, landed } = await personWith(revision, { deny: true });
      try {
        const result = await client.call('list_sites');
        expect(result.isError).toBe(true);
        expect(text(result)).toBe(DECLINED);
        const page = await landed[0];
        expect(page.status).toBe(200);
        expect(page.text).toContain('You declined at Google, so nothing was stored and nothing was sent to Google');
        expect(page.text).toContain('Your MCP client has been told: the call that showed you this link ends now');
        if (revision === '2025-11-25') {
          // The out-of-band step is over: the client hears so for the elicitation it showed.
          await until(() => client.completed.length > 0, 'notifications/elicitation/complete');
          expect(client.completed).toEqual([client.asked[0].elicitationId]);
        }
        expect(await grants()).toEqual([]);
        expect(apiCalls()).toEqual([]);
        // The link is spent: opened again, it says how it ended.
        const again = await inBrowser(client.asked[0].url!);
        expect(again.status).toBe(410);
        expect(again.text).toContain('This link was declined');
        const [denied] = await auditOf('outcome=connect_denied&limit=1');
        expect(denied).toMatchObject({ event: 'connect_denied', principal: 'local', tool: 'list_sites' });
        const [started] = await auditOf('outcome=connect_started&limit=1');
        expect(started).toMatchObject({ event: 'connect_started', principal: 'local', tool: 'list_sites' });
        expect(compareEntryIds(String(started.id), String(denied.id))).toBeLessThan(0);
      } finally {
        await client.close();
      }
    });
  }
});

describe('2025-11-25: notifications/elicitation/complete before the client answers the URL elicitation', () => {
  /** A v1 client that, like the MCP Inspector's web UI, answers the URL elicitation only once the server said it is complete. */
  async function waitingForCompletion(options: ClickThrough, url = server.url) {
    const landed: Promise<Landed>[] = [];
    const answeredAfter: string[][] = [];
    const client: LinkClient = await linkClientHttp(url, {
      revision: '2025-11-25',
      answer: async (request: UrlElicitation) => {
        landed.push(inBrowser(request.url!, options));
        await until(() => client.completed.includes(request.elicitationId!), 'notifications/elicitation/complete');
        answeredAfter.push([...client.completed]);
        return { action: 'accept' };
      },
    });
    return { client, landed, answeredAfter };
  }

  it('the person allows: the grant is stored, the client is told at once, answers, and the call goes on as that account', async () => {
    const { client, landed, answeredAfter } = await waitingForCompletion({ googleUser: BOB });
    try {
      const result = await client.call('list_sites');
      expect(text(result)).not.toMatch(/did not run/);
      expect(result.isError).toBeFalsy();
      const sites = (result.structuredContent!.sites as { site_url: string }[]).map((s) => s.site_url);
      expect(sites).toContain(SEED_PROPERTIES.blog); // bob's
      const [asked] = client.asked;
      // Told before it answered, and told once.
      expect(answeredAfter).toEqual([[asked.elicitationId]]);
      expect(client.completed).toEqual([asked.elicitationId]);
      expect((await landed[0]).text).toContain(
        `Connected ${BOB} to the Search Console server at ${server.origin} for you, the local user.`,
      );
      const [completed] = await auditOf('outcome=connect_completed&limit=1');
      expect(completed).toMatchObject({ principal: 'local', google_account: BOB, tool: 'list_sites' });
    } finally {
      await client.close();
    }
  });

  it('the person clicks Cancel at Google before the client answered: it is told, answers, and the call says you declined', async () => {
    const { client, landed, answeredAfter } = await waitingForCompletion({ deny: true });
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(DECLINED);
      expect(answeredAfter).toEqual([[client.asked[0].elicitationId]]);
      expect((await landed[0]).text).toContain('You declined at Google');
      expect(await grants()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('two replicas sharing Redis: the page on one stores the grant, and the session on the other tells its client', async () => {
    // The session's replica makes links that name the other, which serves the pages and stores the grant.
    const { serving: pages, asking: session, close } = await replicasSharingRedis(emulator, server.origin);
    const { client, answeredAfter } = await waitingForCompletion({ googleUser: BOB }, session.url);
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBeFalsy();
      expect(client.asked[0].url!.startsWith(`${pages.origin}/connect/google?request=`)).toBe(true);
      expect(answeredAfter).toEqual([[client.asked[0].elicitationId]]);
      expect((await session.app.get(GrantStore).list('local')).map((g) => g.googleEmail)).toEqual([BOB]);
    } finally {
      await client.close();
      await close();
    }
  });
});

describe('caps per principal', () => {
  it(`only the ${MAX_LIVE_LINKS} newest links work: an older one says a newer link replaced it, and nothing is stored through it`, async () => {
    // A client without URL elicitation: each call's answer carries its own link.
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      const links: string[] = [];
      for (let i = 0; i < MAX_LIVE_LINKS + 1; i++) {
        links.push(/(http:\/\/\S+) —/.exec(text(await client.call('list_sites')))![1]);
      }
      const oldest = await inBrowser(links[0], { googleUser: BOB });
      expect(oldest.status).toBe(410);
      expect(oldest.text).toContain('A newer link replaced this one');
      expect(oldest.text).toContain(`Only your ${MAX_LIVE_LINKS} newest connect links work`);
      expect(await grants()).toEqual([]);
      const newest = await inBrowser(links[1], { googleUser: BOB });
      expect(newest.text).toContain(`Connected ${BOB} to the Search Console server at ${server.origin} for you, the local user.`);
    } finally {
      await client.close();
    }
  });

  it(`at most ${MAX_WAITING_CALLS} calls wait for a grant at once: one more gets a sentence; a grant lets the waiting ones go on`, async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28', answer: async () => ({ action: 'accept' }) });
    try {
      const results: ToolResult[] = [];
      const calls = Array.from({ length: MAX_WAITING_CALLS + 1 }, () => client.call('list_sites').then((r) => void results.push(r)));
      await until(() => results.length > 0, 'the call beyond the cap to answer');
      expect(text(results[0])).toMatch(
        new RegExp(`^list_sites did not run and nothing was sent to Google: ${MAX_WAITING_CALLS} of your calls are already waiting`),
      );
      expect(results[0].isError).toBe(true);
      // The person connects through the newest link: every waiting call goes on.
      expect((await inBrowser(client.asked.at(-1)!.url!, { googleUser: BOB })).text).toContain(
        `Connected ${BOB} to the Search Console server at ${server.origin} for you, the local user.`,
      );
      await Promise.all(calls);
      expect(results.slice(1).map((r) => r.isError ?? false)).toEqual(Array.from({ length: MAX_WAITING_CALLS }, () => false));
    } finally {
      await client.close();
    }
  });
});

describe('the pages’ events in /admin/audit', () => {
  it('an answer that reaches another browser is refused and recorded as connect_wrong_browser', async () => {
    const client = await linkClientHttp(server.url, { revision: '2026-07-28' });
    try {
      const link = /(http:\/\/\S+) —/.exec(text(await client.call('list_sites')))![1];
      const first = await browser.newContext();
      const page = await first.newPage();
      await clickThrough(page, link, { stopAtConsent: true });
      const end = await inBrowser(page.url(), { googleUser: BOB });
      await first.close();
      expect(end.status).toBe(403);
      expect(end.text).toContain('different browser');
      const [entry] = await auditOf('outcome=connect_wrong_browser&limit=1');
      expect(entry).toMatchObject({ event: 'connect_wrong_browser', principal: null, target_principal: 'local', tool: 'list_sites' });
      // ?principal= finds it by whose link it was.
      expect((await auditOf('principal=local&outcome=connect_wrong_browser&limit=1'))[0]).toEqual(entry);
      expect(await grants()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
