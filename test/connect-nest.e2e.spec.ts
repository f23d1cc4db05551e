// The connect page inside a company's Nest app (PRODUCT.md §8a, §8d): the
// module mounted at `search-console/mcp` under the host's global prefix `api`,
// the host naming the person from its own session cookie (`principal(req)`),
// GSC_PUBLIC_URL naming where the app is reached (the global prefix is added,
// as for the MCP endpoint's protected-resource URL). Clicked through in headless
// Chromium against the Google emulator: the person the link was made for
// connects (also when the host spells them with the Kelvin sign), someone else
// gets 403 and nothing is stored, nobody signed in gets 401.
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { Browser, BrowserContext } from 'playwright-core';
import { ConnectRequests } from '../src/accounts/connect-requests.js';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SCOPES } from '../src/emulator/emulator-routing.js';
import { GoogleEmulator } from '../src/emulator/google-emulator.js';
import { SearchConsoleMcpModule } from '../src/search-console-mcp.module.js';
import { clickThrough, connectedEnv, GOOGLE_CLIENT, open } from './support/connect-kit.js';
import { freePort } from './support/raw-http.js';
import { launchChromium } from './support/views-browser.js';

const KATE = 'kate@corp.example';
const KELVIN_KATE = '\u212Aate@corp.example'; // "Kate" with the Kelvin sign: NFC would make it K, so it is refused

let emulator: GoogleEmulator;
let app: INestApplication;
let origin: string;
let browser: Browser;
let context: BrowserContext;

/** The host's own session: a cookie naming the person (what its auth middleware would have checked). */
function hostPrincipal(req: IncomingMessage): string | undefined {
  const match = /(?:^|;\s*)who=([^;]*)/.exec(req.headers.cookie ?? '');
  return match ? decodeURIComponent(match[1]) : undefined;
}

beforeAll(async () => {
  emulator = await GoogleEmulator.start();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const moduleRef = await Test.createTestingModule({
    imports: [
      SearchConsoleMcpModule.forRoot({
        settings: {
          ...connectedEnv(emulator),
          GSC_STATE_DIR: mkdtempSync(join(tmpdir(), 'gsc-connect-nest-')),
          GSC_PUBLIC_URL: origin,
        },
        path: 'search-console/mcp',
        principal: hostPrincipal,
      }),
    ],
  }).compile();
  app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  app.setGlobalPrefix('api');
  await app.listen(port, '127.0.0.1');
  emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [`${origin}/api/search-console/connect/google/callback`] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await emulator?.close();
});
beforeEach(async () => {
  await context?.close();
  context = await browser.newContext();
  for (const who of [KATE, 'mallory@corp.example']) {
    for (const grant of await grants(who)) {
      await app.get(GrantStore).remove(who, grant.googleSub);
    }
  }
});

const grants = (who: string) => app.get(GrantStore).list(who);
const link = () => app.get(ConnectRequests).create(KATE, [SCOPES.webmastersReadonly]);
const signedInAs = (who: string) => context.addCookies([{ name: 'who', value: encodeURIComponent(who), url: origin }]);

describe('connect page in a host Nest app (the host names the person)', () => {
  it('links live beside the MCP endpoint under the public URL and the global prefix, and Kate connects her Google account', async () => {
    const { url } = await link();
    expect(url).toMatch(new RegExp(`^${origin}/api/search-console/connect/google\\?request=[A-Za-z0-9_-]{32}$`));
    await signedInAs(KATE);
    const end = await clickThrough(await context.newPage(), url, { googleUser: 'alice@example.com' });
    expect(end.status).toBe(200);
    expect(end.text).toContain(`Connected alice@example.com to the Search Console server at ${origin}/api/search-console for ${KATE}.`);
    expect(end.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(end.headers['cache-control']).toBe('no-store');
    const [grant] = await grants(KATE);
    expect(grant).toMatchObject({ principal: KATE, googleEmail: 'alice@example.com' });
  });

  it('the host spelling Kate with the Kelvin sign is not Kate (a look-alike is never folded): 403, nothing stored', async () => {
    await signedInAs(KELVIN_KATE);
    const end = await open(await context.newPage(), (await link()).url);
    expect(end.status).toBe(403);
    expect(end.text).toContain('This link was made for someone else');
    expect(await grants(KATE)).toEqual([]);
  });

  it('someone else opening Kate’s link gets 403, and nothing is stored for anyone', async () => {
    await signedInAs('mallory@corp.example');
    const end = await open(await context.newPage(), (await link()).url);
    expect(end.status).toBe(403);
    expect(end.text).toContain('This link was made for someone else');
    expect(end.text).not.toContain(KATE);
    expect(end.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await grants(KATE)).toEqual([]);
    expect(await grants('mallory@corp.example')).toEqual([]);
  });

  it('a browser the host does not know gets 401 and nothing is stored; the link still works for Kate afterwards', async () => {
    const { url } = await link();
    const end = await open(await context.newPage(), url);
    expect(end.status).toBe(401);
    expect(end.text).toContain('could not tell who you are');
    expect(await grants(KATE)).toEqual([]);
    await signedInAs(KATE);
    const later = await clickThrough(await context.newPage(), url, { googleUser: 'alice@example.com' });
    expect(later.status).toBe(200);
    expect((await grants(KATE)).length).toBe(1);
  });
});
