// Renders the MCP Apps views in headless Chromium (Debian's chromium, driven by
// playwright-core) inside a host page built on ext-apps' AppBridge
// (views-host/host-page.ts). The view's HTML is the server's own resources/read
// answer, served from a separate "sandbox" origin under the default MCP Apps CSP,
// as hosts serve views; the view's tools/call and resources/read reach the
// server through a real MCP client given by the test.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
export const ARTIFACTS = resolve(HERE, '../../test-artifacts/views');

/** Debian's chromium package (installed by .ci/run when missing), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The CSP a host applies to a view that declares no origins (ext-apps McpUiResourceCsp:
 * empty or omitted lists → no network connections, no nested frames, base-uri 'self',
 * static resources from no other origin; inline script and style are how views ship).
 */
export const DEFAULT_VIEW_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; font-src 'self'; connect-src 'none'; frame-src 'none'; base-uri 'self'";

const HOST_ORIGIN = 'http://host.test';
const SANDBOX_ORIGIN = 'http://sandbox.test';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

let hostScript: Promise<string> | undefined;
function hostPageScript(): Promise<string> {
  return (hostScript ??= build({
    entryPoints: [join(HERE, 'views-host/host-page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'error',
  }).then((r) => r.outputFiles[0].text));
}

/** What the host page forwards to the server: a real MCP client's calls. */
export interface HostClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<unknown>;
  listTools(): Promise<{ tools: unknown[] }>;
}

export interface RenderedView {
  readonly page: Page;
  readonly frame: Frame;
  /** Requests the view made to any origin other than its own document (should be none). */
  readonly outsideRequests: string[];
  /** Errors the view's page reported (CSP violations, exceptions). */
  readonly consoleErrors: string[];
}

/**
 * Opens a host page, mounts the view with the linked tool's arguments and result
 * (as a host does after the model called the tool), and waits until the view
 * has drawn `ready` (a selector inside the view).
 */
export async function renderView(
  browser: Browser,
  options: {
    html: string;
    client: HostClient;
    toolArguments: Record<string, unknown>;
    toolResult: unknown;
    theme?: 'light' | 'dark';
    ready: string;
    /** false: the host declares no updateModelContext capability. */
    acceptsModelContext?: boolean;
  },
): Promise<RenderedView> {
  const page = await browser.newPage({ viewport: { width: 900, height: 1800 } });
  const outsideRequests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') {
      consoleErrors.push(m.text());
    }
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  const script = await hostPageScript();
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (url === `${HOST_ORIGIN}/`) {
      return route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html><body style="margin:16px;font-family:sans-serif"><script>${script}</script></body></html>`,
      });
    }
    if (url === `${SANDBOX_ORIGIN}/view.html`) {
      return route.fulfill({ contentType: 'text/html', headers: { 'content-security-policy': DEFAULT_VIEW_CSP }, body: options.html });
    }
    outsideRequests.push(url);
    return route.abort();
  });
  await page.exposeFunction('hostCallTool', (params: { name: string; arguments?: Record<string, unknown> }) =>
    options.client.callTool(params),
  );
  await page.exposeFunction('hostReadResource', (params: { uri: string }) => options.client.readResource(params));
  await page.exposeFunction('hostListTools', async () => (await options.client.listTools()).tools);
  await page.goto(`${HOST_ORIGIN}/`);
  await page.evaluate((mount) => (globalThis as unknown as { mountView(m: unknown): Promise<void> }).mountView(mount), {
    viewUrl: `${SANDBOX_ORIGIN}/view.html`,
    toolArguments: options.toolArguments,
    toolResult: options.toolResult,
    acceptsModelContext: options.acceptsModelContext ?? true,
    hostContext: {
      theme: options.theme ?? 'light',
      displayMode: 'inline',
      containerDimensions: { maxWidth: 860 },
      locale: 'en-US',
      platform: 'web',
    },
  });
  const frame = page.frames().find((f) => f.url().startsWith(SANDBOX_ORIGIN));
  if (!frame) {
    throw new Error('the view frame did not load');
  }
  await frame.waitForSelector(options.ready, { timeout: 15_000 });
  return { page, frame, outsideRequests, consoleErrors };
}

/** Saves a screenshot of the host page under test-artifacts/views/ and prints its path. */
export async function screenshot(view: RenderedView, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await view.page.screenshot({ path, fullPage: true });
  process.stdout.write(`screenshot: ${path}\n`);
  return path;
}
