// For the connect-page specs (PRODUCT.md §8d): the settings that point a
// connected server at the Google emulator, and a small driver that clicks a
// connect link through in a headless Chromium page the spec owns (so that it
// can keep the browser's cookies, replay an answer or switch browsers): the
// company IdP's login form when it appears, then the emulator's consent page.
import type { Page, Response } from 'playwright-core';
import type { GoogleEmulator } from '../../src/emulator/google-emulator.js';

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
