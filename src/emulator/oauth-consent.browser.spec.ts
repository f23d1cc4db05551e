// The emulator's consent page in a real browser (Debian's headless Chromium):
// a person chooses an account, unticks a scope and allows, or denies; the app
// side is google-auth-library's OAuth2Client.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SCOPES } from './emulator-routing.js';
import { GoogleEmulator } from './google-emulator.js';

const CLIENT = { clientId: 'browser-client.apps.googleusercontent.com', clientSecret: 'GOCSPX-browser-secret' };
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let emulator: GoogleEmulator;
let callback: Server;
let redirectUri: string;
let browser: Browser;

beforeAll(async () => {
  emulator = await GoogleEmulator.start();
  callback = createServer((_req, res) => res.end('callback reached'));
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  emulator.registerOAuthClient({ ...CLIENT, redirectUris: [redirectUri] });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await emulator.close();
  await new Promise((resolve) => callback.close(resolve));
});

function oauthClient(): OAuth2Client {
  return new OAuth2Client({
    ...CLIENT,
    redirectUri,
    endpoints: { oauth2AuthBaseUrl: `${emulator.url}/o/oauth2/v2/auth`, oauth2TokenUrl: emulator.tokenUrl },
  });
}

async function start(page: Page, scope: string[], state: string) {
  const client = oauthClient();
  const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync();
  const url = client.generateAuthUrl({
    access_type: 'offline',
    prompt: 'consent',
    include_granted_scopes: true,
    scope,
    state,
    code_challenge: codeChallenge,
    code_challenge_method: CodeChallengeMethod.S256,
  });
  await page.goto(url);
  return { client, codeVerifier };
}

describe('consent page in headless Chromium', () => {
  it('chooses a user, unticks a scope and allows: the tokens lack the unticked scope and belong to that user', async () => {
    const page = await browser.newPage();
    const { client, codeVerifier } = await start(page, ['openid', 'email', SCOPES.webmastersReadonly, SCOPES.webmasters], 'st-allow');
    await page.getByLabel('bob@example.net').check();
    // Each permission in Google's words, its scope as small print; identity scopes cannot be unticked.
    await page.getByLabel('View and manage Search Console data for your verified sites', { exact: true }).uncheck();
    expect(await page.getByLabel('Associate you with your personal info on Google').isDisabled()).toBe(true);
    expect(await page.getByLabel('View Search Console data for your verified sites', { exact: true }).isChecked()).toBe(true);
    expect(await page.locator('body').innerText()).toContain(SCOPES.webmastersReadonly);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.pathname === '/callback');
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe('st-allow');
    const { tokens } = await client.getToken({ code: back.searchParams.get('code')!, codeVerifier });
    const granted = tokens.scope!.split(' ');
    expect(granted).toContain(SCOPES.webmastersReadonly);
    expect(granted).not.toContain(SCOPES.webmasters);
    expect(granted).toContain('openid');
    client.setCredentials(tokens);
    const info = await client.request<{ email: string }>({ url: `${emulator.url}/oauth2/v3/userinfo` });
    expect(info.data.email).toBe('bob@example.net');
    await page.close();
  });

  it('names the app by its display name (the client id when it has none) and the account chosen, as the radio changes', async () => {
    const page = await browser.newPage();
    await start(page, ['openid', SCOPES.webmastersReadonly], 'st-name');
    expect(await page.locator('#client').innerText()).toBe(CLIENT.clientId);
    emulator.registerOAuthClient({ ...CLIENT, name: 'Acme <SEO> assistant', redirectUris: [redirectUri] });
    await start(page, ['openid', SCOPES.webmastersReadonly], 'st-name');
    expect(await page.locator('#client').innerText()).toBe('Acme <SEO> assistant');
    expect(await page.locator('#chosen').innerText()).toBe('Signing in as alice@example.com');
    await page.getByLabel('carol@example.org').check();
    expect(await page.locator('#chosen').innerText()).toBe('Signing in as carol@example.org');
    emulator.registerOAuthClient({ ...CLIENT, redirectUris: [redirectUri] });
    await page.close();
  });

  it('denies: the app gets error=access_denied with its state and no code', async () => {
    const page = await browser.newPage();
    await start(page, ['openid', SCOPES.webmastersReadonly], 'st-deny');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL((u) => u.pathname === '/callback');
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-deny');
    expect(back.searchParams.has('code')).toBe(false);
    await page.close();
  });
});
