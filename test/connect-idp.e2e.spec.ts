// The connect page in OAuth resource-server mode (PRODUCT.md §8b, §8d): the
// standalone HTTP server takes access tokens from a company IdP (the
// TestIssuer), and the connect page first logs the browser in at that IdP
// through openid-client (authorization code + PKCE S256 + nonce), reading the
// principal from the ID token by the access tokens' rule. Clicked through in
// headless Chromium: the IdP's login form, then the Google emulator's consent.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext } from 'playwright-core';
import { ConnectRequests } from '../src/accounts/connect-requests.js';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SCOPES } from '../src/emulator/emulator-routing.js';
import { GoogleEmulator } from '../src/emulator/google-emulator.js';
import { clickThrough, IDP_CLIENT, open, startIdpConnected } from './support/connect-kit.js';
import type { InProcessServer } from './support/server.js';
import { TestIssuer } from './support/test-issuer.js';
import { launchChromium } from './support/views-browser.js';

const KATE = 'kate@corp.example';

let emulator: GoogleEmulator;
let issuer: TestIssuer;
let server: InProcessServer;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  emulator = await GoogleEmulator.start();
  issuer = await TestIssuer.start({ audience: 'https://mcp.test.example/mcp' });
  server = await startIdpConnected(emulator, issuer, 'https://mcp.test.example/mcp');
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await issuer?.close();
  await emulator?.close();
});
beforeEach(async () => {
  await context?.close();
  context = await browser.newContext();
});

const grants = (who: string) => server.app.get(GrantStore).list(who);
const link = (who: string) => server.app.get(ConnectRequests).create(who, [SCOPES.webmastersReadonly]);

describe('connect page in resource-server mode (the browser logs in at the company IdP)', () => {
  it('Kate logs in at the IdP (code + PKCE S256 + nonce), allows at Google, and her grant is stored', async () => {
    const end = await clickThrough(await context.newPage(), (await link(KATE)).url, { idpUser: KATE, googleUser: 'alice@example.com' });
    expect(end.status).toBe(200);
    expect(end.text).toContain(`Connected alice@example.com to the Search Console server at ${server.origin} for ${KATE}.`);
    const [grant] = await grants(KATE);
    expect(grant).toMatchObject({ principal: KATE, googleEmail: 'alice@example.com' });
    const login = issuer.authorizeRequests.at(-1)!;
    expect(login).toMatchObject({
      client_id: IDP_CLIENT.id,
      redirect_uri: `${server.origin}/connect/idp/callback`,
      response_type: 'code',
      code_challenge_method: 'S256',
      scope: 'openid email',
    });
    expect(login.nonce).toBeTruthy();
    expect(login.state).toBeTruthy();
    const exchange = issuer.tokenRequests.at(-1)!;
    expect(exchange.form.grant_type).toBe('authorization_code');
    expect(exchange.form.code_verifier).toBeTruthy();
  });

  it('the IdP’s answer replayed (its callback opened again) is refused: the login state is single use', async () => {
    const page = await context.newPage();
    const answers: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/connect/idp/callback') {
        answers.push(r.url());
      }
    });
    const end = await clickThrough(page, (await link('ana@corp.example')).url, {
      idpUser: 'ana@corp.example',
      googleUser: 'carol@example.org',
    });
    expect(end.text).toContain(`Connected carol@example.org to the Search Console server at ${server.origin} for ana@corp.example.`);
    expect(answers).toHaveLength(1);
    const replay = await open(page, answers[0]);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('unknown, expired or was already used');
    expect((await grants('ana@corp.example')).length).toBe(1);
  });

  it('someone else logging in on Kate’s link gets 403 and nothing is stored', async () => {
    const end = await clickThrough(await context.newPage(), (await link('sam@corp.example')).url, { idpUser: 'mallory@corp.example' });
    expect(end.status).toBe(403);
    expect(end.text).toContain('This link was made for someone else');
    expect(end.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await grants('sam@corp.example')).toEqual([]);
    expect(await grants('mallory@corp.example')).toEqual([]);
  });

  it('the ID token is read by the access tokens’ rule: the Kelvin-sign Kim is nobody (a look-alike), an unverified address is nobody', async () => {
    const kelvin = await clickThrough(await context.newPage(), (await link('kim@corp.example')).url, {
      idpUser: '\u212Aim@corp.example',
      googleUser: 'bob@example.net',
    });
    expect(kelvin.status).toBe(502);
    expect(kelvin.text).toContain('Unicode normalisation (NFC or NFKC) would change');
    expect(await grants('kim@corp.example')).toEqual([]);
    issuer.loginClaims.set('eve@corp.example', { email_verified: false });
    const eve = await clickThrough(await (await browser.newContext()).newPage(), (await link('eve@corp.example')).url, {
      idpUser: 'eve@corp.example',
    });
    expect(eve.status).toBe(502);
    expect(eve.text).toContain('email address is not verified');
    expect(await grants('eve@corp.example')).toEqual([]);
  });

  it('an ID token without the e-mail: the address comes from userinfo, so the person is the one their access tokens name', async () => {
    issuer.idTokenOmits.add('email');
    try {
      const end = await clickThrough(await context.newPage(), (await link('lee@corp.example')).url, {
        idpUser: 'lee@corp.example',
        googleUser: 'alice@example.com',
      });
      expect(end.status).toBe(200);
      expect(end.text).toContain(`Connected alice@example.com to the Search Console server at ${server.origin} for lee@corp.example.`);
      expect(issuer.requests).toContain('/userinfo');
    } finally {
      issuer.idTokenOmits.clear();
    }
  });
});
