// A person clicking a connect link (PRODUCT.md §8d) in headless Chromium
// (Debian's chromium, driven by playwright-core): the server's connect page,
// the company IdP's login form when one appears, the Google emulator's consent
// page (choose an account, untick scopes, Allow or Cancel), and the page the
// flow ends on. Nothing here knows the server's routes: it follows the links
// and redirects as a browser does and reacts to what each page shows.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page, Response } from 'playwright-core';
import { launchChromium } from './views-browser.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const CONNECT_ARTIFACTS = resolve(HERE, '../../test-artifacts/connect');

/** The emulator's consent form posts here (src/emulator/oauth.routes.ts CONSENT_PATH). */
const CONSENT_FORM = 'form[action="/o/oauth2/v2/auth/consent"]';
/** Field names a login form may use for the person (the test IdP's, and common ones). */
const LOGIN_FIELDS = ['username', 'login', 'email', 'user', 'sub'];
/** Pages a flow may pass through before it ends (login, consent, and a margin for redirects that render a page). */
const MAX_STEPS = 6;

export interface ConnectInBrowserOptions {
  /** The person to log in as when the IdP shows a login form (a form appearing without it fails the call). */
  readonly idpUser?: string;
  /** The password to type when the login form has a password field. */
  readonly idpPassword?: string;
  /** The emulator Google account to choose on the consent page. */
  readonly googleUser?: string;
  /** Scopes to untick on the consent page (full scope URLs, as the page lists them). */
  readonly untick?: readonly string[];
  /** Click Cancel instead of Allow. */
  readonly deny?: boolean;
  /** Reuse this browser (a fresh context each call, so no cookies carry over); otherwise one is launched and closed. */
  readonly browser?: Browser;
  /** The screenshot's file name (without .png) under test-artifacts/connect/. */
  readonly screenshot?: string;
  /** Also a screenshot of the consent page, once the account is chosen and the scopes unticked, before answering it. */
  readonly consentScreenshot?: string;
}

export interface ConnectInBrowserResult {
  /** HTTP status of the page the flow ended on (the last non-redirect document the browser loaded). */
  readonly status: number;
  readonly title: string;
  /** The visible text of that page. */
  readonly text: string;
  readonly url: string;
  /** Which pages the driver acted on, in order: `login`, `consent`. */
  readonly steps: readonly ('login' | 'consent')[];
  /** The scopes the consent page offered (empty when it never appeared). */
  readonly offeredScopes: readonly string[];
  /** The consent page's visible text just before it was answered ('' when it never appeared). */
  readonly consentText: string;
  /** Path of the screenshot of the final page. */
  readonly screenshot: string;
}

/**
 * Opens `url` in a fresh browser context and clicks through as a person would:
 * logs in at the IdP when a login form appears, then on the Google emulator's
 * consent page picks `googleUser`, unticks `untick` and clicks Allow (or Cancel
 * with `deny`), and returns the page the flow ends on.
 */
export async function connectInBrowser(url: string, options: ConnectInBrowserOptions = {}): Promise<ConnectInBrowserResult> {
  const browser = options.browser ?? (await launchChromium());
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    let last = await page.goto(url);
    const steps: ('login' | 'consent')[] = [];
    let offeredScopes: string[] = [];
    let consentText = '';
    for (let i = 0; i < MAX_STEPS; i++) {
      if (await page.locator(CONSENT_FORM).count()) {
        offeredScopes = await page
          .locator(`${CONSENT_FORM} input[name="scope"]`)
          .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value));
        last = await submit(page, async () => {
          await choose(page, options);
          consentText = (await page.locator('body').innerText()).trim();
          if (options.consentScreenshot) {
            mkdirSync(CONNECT_ARTIFACTS, { recursive: true });
            await page.screenshot({ path: join(CONNECT_ARTIFACTS, `${options.consentScreenshot}.png`), fullPage: true });
          }
          await page
            .locator(CONSENT_FORM)
            .getByRole('button', { name: options.deny ? 'Cancel' : 'Allow', exact: true })
            .click();
        });
        steps.push('consent');
        continue;
      }
      const login = await loginField(page);
      if (login) {
        if (options.idpUser === undefined) {
          throw new Error(`connectInBrowser: ${page.url()} shows a login form but no idpUser was given`);
        }
        last = await submit(page, () => logIn(page, login, options));
        steps.push('login');
        continue;
      }
      break;
    }
    const name = options.screenshot ?? `connect-${Date.now()}`;
    mkdirSync(CONNECT_ARTIFACTS, { recursive: true });
    const screenshot = join(CONNECT_ARTIFACTS, `${name}.png`);
    await page.screenshot({ path: screenshot, fullPage: true });
    return {
      status: last?.status() ?? 0,
      title: await page.title(),
      text: (await page.locator('body').innerText()).trim(),
      url: page.url(),
      steps,
      offeredScopes,
      consentText,
      screenshot,
    };
  } finally {
    await context.close();
    if (!options.browser) {
      await browser.close();
    }
  }
}

/** Runs `act` (a click that submits a form) and waits for the document it leads to, past any redirects. */
async function submit(page: Page, act: () => Promise<void>): Promise<Response | null> {
  const landed = page.waitForResponse(
    (r) => r.request().isNavigationRequest() && r.frame() === page.mainFrame() && (r.status() < 300 || r.status() >= 400),
    { timeout: 15_000 },
  );
  await act();
  const response = await landed;
  await page.waitForLoadState('load');
  return response;
}

/** On the consent page: the account and the scopes, as told; answering it is the caller's. */
async function choose(page: Page, options: ConnectInBrowserOptions): Promise<void> {
  const form = page.locator(CONSENT_FORM);
  if (options.googleUser !== undefined) {
    const account = form.locator(`input[name="user"][value="${cssString(options.googleUser)}"]`);
    if (!(await account.count())) {
      const offered = await form
        .locator('input[name="user"]')
        .evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value));
      throw new Error(`connectInBrowser: the consent page offers no account ${options.googleUser} (it offers ${offered.join(', ')})`);
    }
    await account.check();
  }
  for (const scope of options.untick ?? []) {
    const box = form.locator(`input[name="scope"][value="${cssString(scope)}"]`);
    if (!(await box.count())) {
      throw new Error(`connectInBrowser: the consent page does not ask for ${scope}`);
    }
    await box.uncheck();
  }
}

/** The login form's field for the person, when the page shows one. */
async function loginField(page: Page): Promise<string | undefined> {
  for (const name of LOGIN_FIELDS) {
    const selector = `form input[name="${name}"]:not([type="hidden"])`;
    if (await page.locator(selector).count()) {
      return selector;
    }
  }
  if (await page.locator('form input[type="password"]').count()) {
    return 'form input[type="text"], form input[type="email"]';
  }
  return undefined;
}

async function logIn(page: Page, field: string, options: ConnectInBrowserOptions): Promise<void> {
  const user = options.idpUser ?? '';
  const input = page.locator(field).first();
  const type = await input.getAttribute('type');
  if (type === 'radio') {
    // An account picker: the person's entry among several.
    await page.locator(`${field}[value="${cssString(user)}"]`).check();
  } else {
    await input.fill(user);
  }
  const password = page.locator('form input[type="password"]');
  if (await password.count()) {
    await password.first().fill(options.idpPassword ?? 'password');
  }
  const form = input.locator('xpath=ancestor::form[1]');
  const button = form.locator('button[type="submit"], button:not([type]), input[type="submit"]');
  await button.first().click();
}

function cssString(value: string): string {
  return value.replace(/["\\]/g, '\\$&');
}
