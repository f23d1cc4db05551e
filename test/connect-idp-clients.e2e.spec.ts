// OAuth resource-server mode (GSC_AUTH_ISSUER) end to end, as loopback mode is
// in connected-calls.e2e.spec.ts (PRODUCT.md §8b, §8d): the official clients of
// both revisions call the standalone HTTP server with an access token the
// company IdP (TestIssuer) signed for a person; the call without a grant gets
// the URL elicitation; headless Chromium opens the link, logs in at the IdP as
// that person (authorization code + PKCE + nonce), allows at the Google
// emulator's consent page, and the waiting call goes on as the Google account
// connected. Also: the sign-in cancelled at the IdP ends the waiting call, and
// another person opening the link gets 403 without spending it — each event
// in the audit trail.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { GoogleEmulator } from '../src/emulator/google-emulator.js';
import { AuditTrail } from '../src/call/approval/audit-trail.service.js';
import { text } from './support/clients.js';
import { type ClickThrough, clickThroughIn, IDP_CLIENT, type Landed, startIdpConnected } from './support/connect-kit.js';
import { linkClientHttp } from './support/connected-kit.js';
import type { InProcessServer } from './support/server.js';
import { TestIssuer } from './support/test-issuer.js';
import { launchChromium } from './support/views-browser.js';

const REVISIONS = ['2026-07-28', '2025-11-25'] as const;
const AUDIENCE = 'https://mcp.test.example/mcp';
const ALICE = 'alice@example.com';
const BOB = 'bob@example.net';

let emulator: GoogleEmulator;
let issuer: TestIssuer;
let server: InProcessServer;
let browser: Browser;

beforeAll(async () => {
  emulator = await GoogleEmulator.start();
  issuer = await TestIssuer.start({ audience: AUDIENCE });
  server = await startIdpConnected(emulator, issuer, AUDIENCE);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await issuer?.close();
  await emulator?.close();
});
beforeEach(() => emulator.clearLog());

const grants = (who: string) => server.app.get(GrantStore).list(who);
const trail = (principal: string, outcome: string) =>
  server.app
    .get(AuditTrail, { strict: false })
    .query({ principal, outcome: outcome as never, limit: 5 })
    .then((page) => page.entries);

/** The person's access token, as their MCP client would hold it from the company IdP. */
async function bearer(email: string): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await issuer.mint({ sub: `sub-${email}`, email, email_verified: true })}` };
}

const inBrowser = (url: string, options: ClickThrough) => clickThroughIn(browser, url, options);

/** A client of `revision` acting for `email`, whose person accepts the link and opens it in Chromium, clicking as told. */
async function personAt(revision: (typeof REVISIONS)[number], email: string, options: ClickThrough) {
  const landed: Promise<Landed>[] = [];
  const client = await linkClientHttp(server.url, {
    revision,
    headers: await bearer(email),
    answer: async (request) => {
      landed.push(inBrowser(request.url!, options));
      return { action: 'accept' };
    },
  });
  return { client, landed };
}

describe('resource-server mode with the official clients and Chromium', () => {
  for (const [revision, person, account] of [
    ['2026-07-28', 'kate@corp.example', ALICE],
    ['2025-11-25', 'ken@corp.example', BOB],
  ] as const) {
    it(`${revision}: ${person}'s call asks to connect, the browser logs in at the IdP as ${person}, allows ${account} at Google, and the call goes on as ${account}`, async () => {
      const { client, landed } = await personAt(revision, person, { idpUser: person, googleUser: account });
      try {
        const result = await client.call('list_sites');
        expect(text(result)).not.toMatch(/did not run/);
        expect(result.isError).toBeFalsy();
        const sites = (result.structuredContent!.sites as { site_url: string }[]).map((s) => s.site_url);
        // The Google account's own properties: alice has the domain property, bob the blog.
        expect(sites).toContain(account === ALICE ? SEED_PROPERTIES.domain : SEED_PROPERTIES.blog);
        expect(client.asked).toHaveLength(1);
        expect(client.asked[0].mode).toBe('url');
        expect(client.asked[0].url).toMatch(new RegExp(`^${server.origin}/connect/google\\?request=[A-Za-z0-9_-]{32}$`));
        const page = await landed[0];
        expect(page.status).toBe(200);
        expect(page.text).toContain(`Connected ${account} to the Search Console server at ${server.origin} for ${person}.`);
        // The IdP was asked to log the browser in, with PKCE and a nonce, on the way to Google.
        expect(issuer.authorizeRequests.at(-1)).toMatchObject({ client_id: IDP_CLIENT.id, code_challenge_method: 'S256' });
        expect((await grants(person)).map((g) => g.googleEmail)).toEqual([account]);
        if (revision === '2025-11-25') {
          expect(client.completed).toEqual([client.asked[0].elicitationId]);
        }
        expect(await trail(person, 'connect_completed')).toEqual([
          expect.objectContaining({ principal: person, google_account: account, tool: 'list_sites' }),
        ]);
        expect(await trail(person, 'google_call')).toEqual([
          expect.objectContaining({ principal: person, google_account: account, tool: 'list_sites' }),
        ]);
        // The next call needs no link.
        expect((await client.call('list_sites')).isError).toBeFalsy();
        expect(client.asked).toHaveLength(1);
      } finally {
        await client.close();
      }
    });
  }

  for (const revision of REVISIONS) {
    it(`${revision}: Cancel at the IdP's sign-in ends the waiting call at once; nothing is stored or sent`, async () => {
      const person = `cy-${revision.slice(0, 4)}@corp.example`;
      const { client, landed } = await personAt(revision, person, { cancelSignIn: true });
      try {
        const result = await client.call('list_sites');
        expect(result.isError).toBe(true);
        expect(text(result)).toBe(
          'You cancelled the sign-in that comes before Google, so no Google account was connected: nothing was stored, list_sites did not run and nothing was sent to Google. Call list_sites again when you want to connect one.',
        );
        const page = await landed[0];
        expect(page.status).toBe(200);
        expect(page.text).toContain(`You cancelled the sign-in at ${issuer.issuer}, so nothing was stored and nothing was sent to Google`);
        expect(page.text).toContain('Your MCP client has been told');
        if (revision === '2025-11-25') {
          expect(client.completed).toEqual([client.asked[0].elicitationId]);
        }
        expect(await grants(person)).toEqual([]);
        expect(emulator.requests.filter((r) => r.route !== 'token' && r.rawPath !== '/favicon.ico')).toEqual([]);
        expect(await trail(person, 'connect_sign_in_cancelled')).toEqual([
          expect.objectContaining({ principal: person, tool: 'list_sites' }),
        ]);
      } finally {
        await client.close();
      }
    });
  }

  it('another person logging in on the link gets 403 and spends nothing: the right person then connects through it and the call goes on', async () => {
    const person = 'lou@corp.example';
    const links: string[] = [];
    const client = await linkClientHttp(server.url, {
      revision: '2026-07-28',
      headers: await bearer(person),
      answer: async (request) => {
        links.push(request.url!);
        return { action: 'accept' };
      },
    });
    try {
      const call = client.call('list_sites');
      for (let i = 0; i < 400 && links.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const wrong = await inBrowser(links[0], { idpUser: 'mallory@corp.example', googleUser: ALICE });
      expect(wrong.status).toBe(403);
      expect(wrong.text).toContain('This link was made for someone else');
      expect(await grants('mallory@corp.example')).toEqual([]);
      expect(await trail(person, 'connect_wrong_person')).toEqual([
        expect.objectContaining({ principal: 'mallory@corp.example', target_principal: person, tool: 'list_sites' }),
      ]);
      const right = await inBrowser(links[0], { idpUser: person, googleUser: ALICE });
      expect(right.text).toContain(`Connected ${ALICE} to the Search Console server at ${server.origin} for ${person}.`);
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(await trail(person, 'connect_started')).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
