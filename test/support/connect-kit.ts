// For the connect-page specs (PRODUCT.md §8d): the settings that point a
// connected server at the Google emulator, and a small driver that clicks a
// connect link through in a headless Chromium page the spec owns (so that it
// can keep the browser's cookies, replay an answer or switch browsers): the
// company IdP's login form when it appears, then the emulator's consent page.
import { randomBytes } from 'node:crypto';
import type { Browser, Page, Response } from 'playwright-core';
import type { GoogleEmulator } from '../../src/emulator/google-emulator.js';
import { startRedisServer } from './redis-server.js';
import { type InProcessServer, startInProcess } from './server.js';
import type { TestIssuer } from './test-issuer.js';

/** A Google OAuth client id of the shape the configuration accepts. */
export const GOOGLE_CLIENT = {
  clientId: '123456789012-connecttestclient000000000000000.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-connect-test-secret',
};

/** Connected accounts against the emulator: no shared credential. */
export function connectedEnv(emulator: GoogleEmulator): Record<string, string> {
  return {
    GSC_API_ROOT_URL: emulator.url,
    GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
    GSC_OAUTH_AUTHORIZE_URL: `${emulator.url}/o/oauth2/v2/auth`,
    GSC_OAUTH_REVOKE_URL: `${emulator.url}/revoke`,
    GSC_GOOGLE_OAUTH_CLIENT_ID: GOOGLE_CLIENT.clientId,
    GSC_GOOGLE_OAUTH_CLIENT_SECRET: GOOGLE_CLIENT.clientSecret,
  };
}

/** The connect page's client at the company IdP (the test issuer registers it). */
export const IDP_CLIENT = { id: 'gsc-connect-page', secret: 'idp-client-secret-for-tests' };

/**
 * The standalone server in OAuth resource-server mode with connected accounts:
 * access tokens from `issuer` for `audience`, the connect page logging browsers
 * in there, Google's answers from the emulator coming back to it.
 */
export async function startIdpConnected(emulator: GoogleEmulator, issuer: TestIssuer, audience: string): Promise<InProcessServer> {
  const server = await startInProcess({
    ...connectedEnv(emulator),
    GSC_AUTH_ISSUER: issuer.issuer,
    GSC_AUTH_AUDIENCE: audience,
    GSC_AUTH_CLIENT_ID: IDP_CLIENT.id,
    GSC_AUTH_CLIENT_SECRET: IDP_CLIENT.secret,
  });
  issuer.registerLoginClient(IDP_CLIENT.id, IDP_CLIENT.secret, [`${server.origin}/connect/idp/callback`]);
  emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [`${server.origin}/connect/google/callback`] });
  return server;
}

export interface ClickThrough {
  /** The name to type on the company IdP's login form, when one appears. */
  readonly idpUser?: string;
  /** The emulator Google account to choose on the consent page. */
  readonly googleUser?: string;
  /** Scopes to untick on the consent page. */
  readonly untick?: readonly string[];
  /** Cancel instead of Allow on Google's consent page (Google's one button that says no). */
  readonly deny?: boolean;
  /** Cancel instead of Sign in on the company IdP's login form. */
  readonly cancelSignIn?: boolean;
  /** Stop on the consent page without answering it. */
  readonly stopAtConsent?: boolean;
}

export interface Landed {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  readonly url: string;
}

const CONSENT_FORM = 'form[action="/o/oauth2/v2/auth/consent"]';
const LOGIN_FIELD = 'form input[name="username"]';

/** Opens `url` in `page` and clicks through login and consent as told; returns the page the flow ends on. */
export async function clickThrough(page: Page, url: string, options: ClickThrough = {}): Promise<Landed> {
  let response = await page.goto(url);
  for (let step = 0; step < 4; step++) {
    if (await page.locator(LOGIN_FIELD).count()) {
      if (options.cancelSignIn) {
        response = await landing(page, () => page.getByRole('button', { name: 'Cancel' }).click());
        continue;
      }
      if (options.idpUser === undefined) {
        throw new Error(`a login form appeared at ${page.url()} but no idpUser was given`);
      }
      await page.locator(LOGIN_FIELD).fill(options.idpUser);
      response = await landing(page, () => page.getByRole('button', { name: 'Sign in' }).click());
      continue;
    }
    if (await page.locator(CONSENT_FORM).count()) {
      if (options.stopAtConsent) {
        break;
      }
      if (options.googleUser) {
        await page.locator(`${CONSENT_FORM} input[name="user"][value="${options.googleUser}"]`).check();
      }
      for (const scope of options.untick ?? []) {
        await page.locator(`${CONSENT_FORM} input[name="scope"][value="${scope}"]`).uncheck();
      }
      response = await landing(page, () => page.getByRole('button', { name: options.deny ? 'Cancel' : 'Allow', exact: true }).click());
      continue;
    }
    break;
  }
  return landed(page, response);
}

/** The same browser (its cookies) opening `url` once more: what a replayed answer meets. */
export async function open(page: Page, url: string): Promise<Landed> {
  return landed(page, await page.goto(url));
}

async function landing(page: Page, act: () => Promise<void>): Promise<Response | null> {
  const document = page.waitForResponse(
    (r) => r.request().isNavigationRequest() && r.frame() === page.mainFrame() && (r.status() < 300 || r.status() >= 400),
    { timeout: 15_000 },
  );
  await act();
  const response = await document;
  await page.waitForLoadState('load');
  return response;
}

async function landed(page: Page, response: Response | null): Promise<Landed> {
  if (!response) {
    throw new Error(`no document loaded at ${page.url()}`);
  }
  return {
    status: response.status(),
    headers: await response.allHeaders(),
    text: (await page.locator('body').innerText()).trim(),
    url: page.url(),
  };
}

/** A person opening `url` in a browser of their own (a fresh context of `browser`, closed after), clicking as told. */
export async function clickThroughIn(browser: Browser, url: string, options: ClickThrough = {}): Promise<Landed> {
  const context = await browser.newContext();
  try {
    return await clickThrough(await context.newPage(), url, options);
  } finally {
    await context.close();
  }
}

/** Resolves once `check` holds, polling briefly; fails the test after a while. */
export async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

export interface ReplicaPair {
  /** Serves the connect pages: the emulator sends Google's answers here. */
  readonly serving: InProcessServer;
  /** Makes the links, naming `serving` as its public URL (as both would name their load balancer). */
  readonly asking: InProcessServer;
  /** Stops both and Redis, and points the emulator's client back at `home`'s callback. */
  readonly close: () => Promise<void>;
}

/** Two replicas of the connected server sharing a Redis of their own and one grant key. */
export async function replicasSharingRedis(emulator: GoogleEmulator, home: string): Promise<ReplicaPair> {
  const redis = await startRedisServer();
  const shared = {
    ...connectedEnv(emulator),
    GSC_REDIS_URL: redis.url,
    GSC_GRANT_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  };
  const serving = await startInProcess(shared);
  const asking = await startInProcess({ ...shared, GSC_PUBLIC_URL: serving.origin });
  emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [`${serving.origin}/connect/google/callback`] });
  return {
    serving,
    asking,
    close: async () => {
      emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [`${home}/connect/google/callback`] });
      await asking.close();
      await serving.close();
      await redis.stop();
    },
  };
}
