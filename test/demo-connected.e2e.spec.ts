// `npm run demo -- --connected` as a newcomer meets it: the demo process (the
// built dist/demo.js with its own emulator inside), an official 2026-07-28 MCP
// client, and headless Chromium clicking the connect link through the
// emulator's consent page as alice or bob. Each then sees their own properties.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { DEFAULT_GOOGLE_USERS } from '../src/emulator/emulator-oauth.js';
import { SEED_SITES } from '../src/emulator/emulator-seed.js';
import { connectInBrowser } from './support/connect-browser.js';
import { isolatedEnv } from './support/env.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';
import { launchChromium } from './support/views-browser.js';

const DEMO = resolve(import.meta.dirname, '../dist/demo.js');
const INFO = { name: 'gsc-demo-newcomer', version: '1.0.0' };
const CONNECT_LINK = /https?:\/\/[^\s"'<>)]+\/connect\/google\?request=[^\s"'<>).,]+/;

interface Site {
  site_url: string;
  permission_level: string;
  /** Connected mode: list_sites names the Google account each entry is seen through. */
  google_account: string;
}

/** What one emulator Google account sees of the seeded world: its own levels on the properties that exist. */
function seenBy(email: string): Site[] {
  const user = DEFAULT_GOOGLE_USERS.find((u) => u.email === email)!;
  return SEED_SITES.filter((s) => user.sites[s.siteUrl]).map((s) => ({
    site_url: s.siteUrl,
    permission_level: user.sites[s.siteUrl],
    google_account: email,
  }));
}

const sorted = (sites: Site[]) => [...sites].sort((a, b) => a.site_url.localeCompare(b.site_url));

async function startConnectedDemo(): Promise<HttpBinary> {
  // GSC_STATE_DIR empty: the demo's own throw-away folder, as `npm run demo` on a fresh machine.
  const demo = await spawnHttpBinary({ GSC_STATE_DIR: '' }, [DEMO, '--connected']);
  for (let i = 0; i < 200 && !demo.stderr().includes('Press Ctrl+C'); i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  return demo;
}

/** A connected demo and a 2026-07-28 client without URL elicitation, for one describe block. */
function useConnectedDemo(): { demo: HttpBinary; client: Client } {
  const on = {} as { demo: HttpBinary; client: Client };
  beforeAll(async () => {
    on.demo = await startConnectedDemo();
    on.client = await connectClient(on.demo.url);
  });
  afterAll(async () => {
    await on.client?.close();
    await on.demo?.stop();
  });
  return on;
}

type ElicitParams = { mode?: string; url?: string; message?: string };

async function connectClient(
  url: string,
  elicit?: (params: ElicitParams) => Promise<{ action: 'accept' | 'decline' | 'cancel' }>,
): Promise<Client> {
  const capabilities = elicit ? { elicitation: { url: {} } } : {};
  const client = new Client(INFO, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  if (elicit) {
    client.setRequestHandler('elicitation/create', async (request) => elicit(request.params as ElicitParams));
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: { sites?: Site[] };
}

async function listSites(client: Client): Promise<ToolAnswer> {
  return (await client.callTool({ name: 'list_sites', arguments: {} })) as ToolAnswer;
}

const textOf = (answer: ToolAnswer) => answer.content.map((c) => c.text ?? '').join('\n');

/** Every request the demo's own emulator answered (its control API, at the URL the demo printed). */
async function googleCalls(demo: HttpBinary): Promise<{ route: string; principal?: string }[]> {
  const emulator = /Google emulator: +(http:\/\/\S+)/.exec(demo.stderr())![1];
  return (await (await fetch(`${emulator}/__emulator/requests`)).json()) as { route: string; principal?: string }[];
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('npm run demo -- --connected, a client without URL elicitation, alice clicking the link', () => {
  const on = useConnectedDemo();

  it('prints the MCP URL, the claude line, the connect steps and what each emulator account sees', () => {
    const out = on.demo.stderr();
    expect(out).toContain(`MCP endpoint (Streamable HTTP, 2025-11-25 and 2026-07-28):  ${on.demo.url}`);
    expect(out).toContain(`claude mcp add --transport http gsc-demo ${on.demo.url}`);
    expect(out).toContain(`${on.demo.origin}/connect/google?request=`);
    for (const user of DEFAULT_GOOGLE_USERS) {
      const line = out.split('\n').find((l) => l.trimStart().startsWith(user.email));
      expect(line).toBeDefined();
      for (const site of seenBy(user.email)) {
        expect(line).toContain(site.site_url);
      }
    }
    expect(out).toMatch(/carol@example\.org +no properties/);
    expect(out).toContain('"Search Console MCP (demo)" asks');
    expect(out).toContain(`The page says "Connected <account> to the Search Console server at ${on.demo.origin} for you, the local user".`);
  });

  it('answers the first Google call with a link and nothing from Google; after alice connects, the same call lists her properties only', async () => {
    const first = await listSites(on.client);
    expect(first.isError).toBe(true);
    expect(await googleCalls(on.demo)).toEqual([]);
    expect(first.structuredContent?.sites).toBeUndefined();
    const link = CONNECT_LINK.exec(textOf(first))?.[0];
    expect(link).toBeDefined();
    const parsed = new URL(link!);
    expect(parsed.origin).toBe(on.demo.origin);
    // The link names a request, never the principal, an e-mail or a token.
    expect([...parsed.searchParams.keys()]).toEqual(['request']);
    expect(link).not.toMatch(/local(?!host)|alice|example\.com|token|secret/i);

    const page = await connectInBrowser(link!, { googleUser: 'alice@example.com', browser, screenshot: 'demo-connected-alice' });
    expect(page.steps).toEqual(['consent']);
    // Google is asked for the registered tools' scopes and the account's identity, nothing else.
    expect([...page.offeredScopes].sort()).toEqual(
      [
        'email',
        'openid',
        'https://www.googleapis.com/auth/indexing',
        'https://www.googleapis.com/auth/siteverification',
        'https://www.googleapis.com/auth/webmasters',
      ].sort(),
    );
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Connected alice@example.com to the Search Console server at ${on.demo.origin} for you, the local user.`);

    const again = await listSites(on.client);
    expect(again.isError).toBeFalsy();
    // The one Search Console call went out as alice's Google account.
    expect((await googleCalls(on.demo)).filter((c) => c.route === 'sites.list').map((c) => c.principal)).toEqual(['alice@example.com']);
    expect(sorted(again.structuredContent?.sites ?? [])).toEqual(sorted(seenBy('alice@example.com')));
    const bobsOwn = seenBy('bob@example.net').filter((b) => !seenBy('alice@example.com').some((a) => a.site_url === b.site_url));
    expect(bobsOwn.length).toBeGreaterThan(0);
    for (const site of bobsOwn) {
      expect(again.structuredContent?.sites?.map((s) => s.site_url)).not.toContain(site.site_url);
    }
  });
});

describe('npm run demo -- --connected, a client with URL elicitation, bob connecting from the dialog', () => {
  let demo: HttpBinary;
  let client: Client;
  const asked: ElicitParams[] = [];
  beforeAll(async () => {
    demo = await startConnectedDemo();
    // The person opens the URL the client shows and finishes in the browser before answering the dialog.
    client = await connectClient(demo.url, async (params) => {
      asked.push(params);
      if (params.mode !== 'url' || !params.url) {
        return { action: 'decline' };
      }
      const page = await connectInBrowser(params.url, { googleUser: 'bob@example.net', browser, screenshot: 'demo-connected-bob' });
      return { action: page.text.includes('Connected bob@example.net to the Search Console server at') ? 'accept' : 'cancel' };
    });
  });
  afterAll(async () => {
    await client?.close();
    await demo?.stop();
  });

  it('asks with a URL elicitation to the connect page, and the call goes on as bob once he connected', async () => {
    const answer = await listSites(client);
    expect(asked).toHaveLength(1);
    expect(asked[0].mode).toBe('url');
    expect(asked[0].url).toMatch(new RegExp(`^${demo.origin.replace(/[.]/g, '\\.')}/connect/google\\?request=`));
    expect(answer.isError).toBeFalsy();
    expect(sorted(answer.structuredContent?.sites ?? [])).toEqual(sorted(seenBy('bob@example.net')));
    expect(answer.structuredContent?.sites?.map((s) => s.site_url)).not.toContain('https://shop.example.com/');
    expect((await googleCalls(demo)).filter((c) => c.route === 'sites.list').map((c) => c.principal)).toEqual(['bob@example.net']);
  });

  it("serves the grant to the same person on the other revision: a 2025-11-25 client sees bob's properties without being asked", async () => {
    const v1 = new V1Client(INFO, { capabilities: {} });
    await v1.connect(new V1HttpTransport(new URL(demo.url)));
    try {
      const answer = (await v1.callTool({ name: 'list_sites', arguments: {} })) as ToolAnswer;
      expect(answer.isError).toBeFalsy();
      expect(sorted(answer.structuredContent?.sites ?? [])).toEqual(sorted(seenBy('bob@example.net')));
      expect(asked).toHaveLength(1);
    } finally {
      await v1.close();
    }
  });
});

// What a person reads on the way (PRODUCT.md §3a): the consent page names the app and each permission in words,
// with the scope URL as small print, and the account chosen; the pages after it say which server the account
// was connected to and for whom, and that a permission left unticked is that account's only. Screenshots go to
// test-artifacts/connect/ (demo-consent, demo-denied, demo-connected-unticked, demo-connected).
describe('npm run demo -- --connected, the pages a person reads on the way', () => {
  const on = useConnectedDemo();
  const link = async () => CONNECT_LINK.exec(textOf(await listSites(on.client)))![0];

  it("the consent page: the app's display name, each permission in words over its scope URL, and the account chosen", async () => {
    const page = await connectInBrowser(await link(), {
      googleUser: 'bob@example.net',
      deny: true,
      browser,
      consentScreenshot: 'demo-consent',
      screenshot: 'demo-denied',
    });
    const consent = page.consentText.replace(/\s+/g, ' ');
    expect(consent).toContain('Choose an account to continue to Search Console MCP (demo)');
    expect(consent).toContain('Search Console MCP (demo) wants to access your Google Account');
    expect(consent).toContain('Signing in as bob@example.net');
    expect(consent).not.toContain('Signing in as alice@example.com');
    for (const [words, scope] of [
      ['View and manage Search Console data for your verified sites', 'https://www.googleapis.com/auth/webmasters'],
      ['Submit data to Google for indexing', 'https://www.googleapis.com/auth/indexing'],
      ['Manage the list of sites and domains you control', 'https://www.googleapis.com/auth/siteverification'],
      ['See your primary Google Account email address', 'email'],
      ['Associate you with your personal info on Google', 'openid'],
    ]) {
      expect(consent).toContain(`${words} ${scope}`);
    }
    // The client id is small print, never the app's name.
    expect(consent).not.toMatch(/continue to \d{12}-/);
    expect(consent).toMatch(/OAuth client 000000000000-\S+\.apps\.googleusercontent\.com/);
    // Cancel: nothing connected, and the page says so.
    expect(page.text).toContain('Nothing was connected');
    expect(page.text).toContain('You declined at Google, so nothing was stored and no Google account is connected.');
  });

  it('a permission left unticked: the page says that account did not grant it, and that another connected account that did still serves its tools', async () => {
    const page = await connectInBrowser(await link(), {
      googleUser: 'carol@example.org',
      untick: ['https://www.googleapis.com/auth/webmasters'],
      browser,
      screenshot: 'demo-connected-unticked',
    });
    expect(page.text).toContain(`Connected carol@example.org to the Search Console server at ${on.demo.origin} for you, the local user.`);
    expect(page.text).toContain(
      'carol@example.org did not grant “View and manage Search Console data for your verified sites” (https://www.googleapis.com/auth/webmasters). ' +
        'The tools that need it run only through another Google account you connected that granted it, and leave your tool list when none did; ' +
        'to use them as carol@example.org, connect it again and allow it.',
    );
    expect(page.text).toContain(
      'carol@example.org granted: “Submit data to Google for indexing”, “Manage the list of sites and domains you control”.',
    );
  });

  it('allowed: the page names the account, the server and the person, and what was granted', async () => {
    const page = await connectInBrowser(await link(), { googleUser: 'alice@example.com', browser, screenshot: 'demo-connected' });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Connected alice@example.com to the Search Console server at ${on.demo.origin} for you, the local user.`);
    expect(page.text).toContain('alice@example.com granted: “View and manage Search Console data for your verified sites”');
    expect(page.text).not.toContain('did not grant');
  });
});

describe('npm run demo with an argument it does not know', () => {
  it('says so in one line naming the one it takes, and exits 1 before starting anything', () => {
    const run = spawnSync(process.execPath, [DEMO, '--conected'], {
      env: isolatedEnv({ GSC_HTTP_PORT: '0' }),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'google-search-console-mcp: unknown demo argument --conected; the demo takes --connected (npm run demo -- --connected)\n',
    );
  });
});
