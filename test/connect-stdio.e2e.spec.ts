// stdio's connect page (PRODUCT.md §8d): a stdio server has no HTTP port, so
// the first connect request starts a page server on 127.0.0.1 at a port the
// system picks, and it stops once no request is pending and at shutdown. The
// context is booted as startStdioServer boots it (AppModule, the same
// serveConnectPagesOnLoopback), from the environment the binary would get; the
// Google side is the emulator with a Desktop OAuth client, which Google lets
// redirect to any loopback port (native-app "Loopback IP address").
import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Browser } from 'playwright-core';
import { type ConnectLoopbackServer, serveConnectPagesOnLoopback } from '../src/accounts/connect-loopback-server.js';
import { ConnectRequests } from '../src/accounts/connect-requests.js';
import { GrantStore } from '../src/accounts/grant-store.js';
import { AppModule } from '../src/app.module.js';
import { loadConfig } from '../src/config/config.js';
import { SCOPES } from '../src/emulator/emulator-routing.js';
import { GoogleEmulator } from '../src/emulator/google-emulator.js';
import { clickThrough, connectedEnv, GOOGLE_CLIENT } from './support/connect-kit.js';
import { isolatedEnv } from './support/env.js';
import { launchChromium } from './support/views-browser.js';

let emulator: GoogleEmulator;
let browser: Browser;
let app: INestApplicationContext;
let pages: ConnectLoopbackServer;

beforeAll(async () => {
  emulator = await GoogleEmulator.start();
  // A Desktop client registers no redirect URI: the port is only known when the page server starts.
  emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [], type: 'desktop' });
  const config = loadConfig(isolatedEnv(connectedEnv(emulator)));
  expect(config.transport).toBe('stdio');
  app = await NestFactory.createApplicationContext(AppModule.forRoot(config), { logger: false });
  pages = serveConnectPagesOnLoopback(app, config)!;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await pages?.close();
  await app?.close();
  await emulator?.close();
});
afterEach(async () => {
  await pages.close();
  for (const grant of await grants()) {
    await app.get(GrantStore).remove('local', grant.googleSub);
  }
});

const grants = () => app.get(GrantStore).list('local');
const link = () => app.get(ConnectRequests).create('local', [SCOPES.webmastersReadonly]);

/** Whether anything answers on the port: the page server stopped means connection refused. */
function answers(origin: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${origin}/connect/google`, { agent: false }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (await check()) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('stdio: the connect page on an ephemeral loopback port while a connection is pending', () => {
  it('starts on the first request, connects Carol for local in the browser, and stops once nothing is pending', async () => {
    expect(pages.listening).toBe(false);
    const { url } = await link();
    const origin = new URL(url).origin;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/connect\/google\?request=[A-Za-z0-9_-]{32}$/);
    expect(pages.listening).toBe(true);
    const end = await clickThrough(await (await browser.newContext()).newPage(), url, { googleUser: 'carol@example.org' });
    expect(end.status).toBe(200);
    expect(end.text).toContain(
      'Connected carol@example.org to the Search Console server your MCP client runs over stdio on this machine for you, the local user.',
    );
    expect(end.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(end.headers['cache-control']).toBe('no-store');
    const [grant] = await grants();
    expect(grant).toMatchObject({ principal: 'local', googleEmail: 'carol@example.org' });
    expect(grant.scopes).toContain(SCOPES.webmastersReadonly);
    expect(await eventually(async () => !(await answers(origin)))).toBe(true);
    expect(pages.listening).toBe(false);
  });

  it('stays up while another request is pending, and a new request after it stopped gets a server again', async () => {
    const first = await link();
    const second = await link();
    const origin = new URL(first.url).origin;
    expect(new URL(second.url).origin).toBe(origin);
    await clickThrough(await (await browser.newContext()).newPage(), first.url, { googleUser: 'alice@example.com' });
    expect(await answers(origin)).toBe(true);
    await clickThrough(await (await browser.newContext()).newPage(), second.url, { googleUser: 'bob@example.net' });
    expect(await eventually(async () => !(await answers(origin)))).toBe(true);
    expect((await grants()).map((g) => g.googleEmail).sort()).toEqual(['alice@example.com', 'bob@example.net']);
    const third = await link();
    expect(await answers(new URL(third.url).origin)).toBe(true);
  });

  it('shutdown stops it even with a request pending (what startStdioServer does on stdin end or a signal)', async () => {
    const origin = new URL((await link()).url).origin;
    expect(await answers(origin)).toBe(true);
    await pages.close();
    expect(pages.listening).toBe(false);
    expect(await answers(origin)).toBe(false);
  });

  it('answers on its loopback name only (another Host, as DNS rebinding sends, is refused) and serves the connect routes only', async () => {
    const { url } = await link();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { headers: { host: 'attacker.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
    // Nothing but the connect routes: an inherited property name is no route either.
    for (const path of ['/constructor', '/__proto__', '/mcp', '/connect/google/other']) {
      expect((await fetch(`${new URL(url).origin}${path}`)).status).toBe(404);
    }
  });

  it('a Web client (not Desktop) is refused by Google for an unregistered loopback port', async () => {
    emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [] });
    try {
      const end = await clickThrough(await (await browser.newContext()).newPage(), (await link()).url);
      expect(end.text).toContain('redirect_uri_mismatch');
      expect(await grants()).toEqual([]);
    } finally {
      emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [], type: 'desktop' });
    }
  });
});
