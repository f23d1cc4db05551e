// Google misbehaving, end to end: real MCP clients → the real HTTP server →
// the real Google client libraries → the emulator answering what Google really
// answers (PRODUCT §9a), injected where the emulator does not produce it itself.
// Google's own bodies through raw HTTP (truncated JSON, resets, the token
// endpoint's texts) are the table in src/google/google.service.spec.ts.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Clock } from '../src/common/clock.js';
import { StderrLogger } from '../src/common/stderr-logger.js';
import { CONFIG, type Config, loadConfig } from '../src/config/config.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { serviceDisabledBody } from '../src/emulator/emulator-usage-limits.js';
import { type RunningHttpServer, startHttpServer } from '../src/http-server.js';
import { connectHttp, type TestClient, text } from './support/clients.js';
import { isolatedEnv } from './support/env.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { ManualClock } from './support/manual-clock.js';
import { useStack } from './support/stack.js';
import { type ConnectedGoogle, OAUTH_CLIENT, saveGrant, startConnectedGoogle } from './support/connected-kit.js';
import { GrantStore } from '../src/accounts/grant-store.js';

const OWNED = SEED_PROPERTIES.owned; // https://www.example.com/
const JOB = 'https://www.example.com/jobs/staff-engineer';

// Google's SERVICE_DISABLED body as the emulator builds it (src/emulator/emulator-usage-limits.ts cites the captures).
const SERVICE_DISABLED = serviceDisabledBody('classic', 'searchconsole.googleapis.com', '123456789012');
const usageLimits = (reason: string, message: string) => ({
  error: { code: 403, message, errors: [{ message, domain: 'usageLimits', reason }] },
});

// The servers wait on a test clock: each backoff between attempts is recorded, not waited for, and the
// schedule it asked for is asserted — 250 ms, then ×3 per attempt, each within Google's advised ±20 % jitter.
const clock = new ManualClock(new Date());
const onTheClock: [unknown, unknown][] = [[Clock, clock]];
beforeEach(() => {
  clock.waits.length = 0;
});
function expectBackoff(attempts: number): void {
  expect(clock.waits).toHaveLength(attempts - 1);
  clock.waits.forEach((ms, i) => {
    expect(ms).toBeGreaterThanOrEqual(250 * 3 ** i * 0.8);
    expect(ms).toBeLessThanOrEqual(250 * 3 ** i * 1.2);
  });
}

describe('Google faults through the whole server', () => {
  const { google, client, legacy } = useStack({ overrides: onTheClock });
  const requests = (route: string) => google.emulator.requests.filter((r) => r.route === route);

  describe('a 200 that is not the answer is an error, never an empty or default result', () => {
    it.each([
      [
        'get_site',
        { site_url: OWNED },
        'sites.get',
        [{ siteUrl: OWNED, permissionLevel: 'siteOwner' }],
        /not a sites\.get response \(a JSON array\)/,
      ],
      ['get_site', { site_url: OWNED }, 'sites.get', {}, /not a sites\.get response \(a JSON object without siteUrl\)/],
      ['list_sites', {}, 'sites.list', [], /not a sites\.list response \(a JSON array\)/],
      ['list_sites', {}, 'sites.list', '<html>Sign in</html>', /not a sites\.list response/],
      ['list_verified_sites', {}, 'webResource.list', [], /not a webResource\.list response \(a JSON array\)/],
      ['list_sitemaps', { site_url: OWNED }, 'sitemaps.list', { sitemap: 'none' }, /whose sitemap is not a list/],
    ])('%s with %s answering %j', async (tool, args, route, body, says) => {
      google.emulator.injectFault({ route, status: 200, body, times: Infinity });
      const result = await client.call(tool, args);
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(says);
      expect(text(result)).toMatch(/Nothing was changed\./);
      expect(text(result)).not.toMatch(/no properties|siteUnverifiedUser|owns nothing/i);
      expect(requests(route)).toHaveLength(2);
      expectBackoff(2);
    });
  });

  describe('403s that are not a missing permission', () => {
    it('SERVICE_DISABLED names the API, the project and where to enable it, and is not sent again', async () => {
      google.emulator.injectFault({ route: 'searchanalytics.query', status: 403, body: SERVICE_DISABLED, times: Infinity });
      const result = await client.call('query_search_analytics', { site_url: OWNED, period: 'last7days' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /the Google Search Console API \(searchconsole\.googleapis\.com\) is not enabled in the Google Cloud project 123456789012/,
      );
      expect(text(result)).toMatch(
        /Enable it at https:\/\/console\.developers\.google\.com\/apis\/api\/searchconsole\.googleapis\.com\/overview\?project=123456789012 /,
      );
      expect(text(result)).not.toMatch(/add it as a user|Users and permissions/);
      expect(requests('searchanalytics.query')).toHaveLength(1);
      expect(requests('sites.list')).toHaveLength(0);
    });

    it('usageLimits dailyLimitExceeded is the daily quota', async () => {
      google.emulator.injectFault({
        route: 'webResource.getToken',
        status: 403,
        body: usageLimits('dailyLimitExceeded', 'Daily Limit Exceeded'),
        times: Infinity,
      });
      const result = await client.call('get_verification_token', { site_url: OWNED });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /^Google's daily quota is exhausted, so it refused to get a .* verification token for https:\/\/www\.example\.com\/: "Daily Limit Exceeded"/,
      );
      expect(text(result)).toMatch(/resets at midnight Pacific Time/);
      expect(requests('webResource.getToken')).toHaveLength(1);
    });

    it('usageLimits quotaExceeded on a sitemap submission stops the rest of the batch as quota', async () => {
      google.emulator.injectFault({
        route: 'sitemaps.submit',
        status: 403,
        body: usageLimits('quotaExceeded', 'Quota exceeded'),
        times: Infinity,
      });
      const urls = [1, 2, 3, 4, 5, 6].map((i) => `https://www.example.com/s${i}.xml`);
      const result = await client.call('submit_sitemaps', { site_url: OWNED, sitemap_urls: urls });
      const said = text(result);
      expect(said).toMatch(/Google's quota is exhausted/);
      expect(said).toMatch(/Not sent: Google's quota was exhausted by an earlier submission/);
      expect(said).not.toMatch(/lack of permission/);
    });

    it('a real missing permission still gets the permission advice', async () => {
      const result = await legacy.call('get_site', { site_url: 'https://forbidden.example/' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/lacks the permission needed on https:\/\/forbidden\.example\//);
    });
  });

  // Each of Google's named 403 (and 429) bodies, as the emulator sends them on a legacy surface (errors[] with
  // usageLimits reasons) and on the One Platform ones (no errors[]), gets the sentence of its kind — never the
  // "add it as a user" advice of a missing permission.
  describe('every named body gets the sentence of its kind, on every surface', () => {
    const TOOLS = {
      'sites.get': ['get_site', { site_url: OWNED }],
      'urlInspection.index.inspect': ['inspect_url', { site_url: OWNED, url: OWNED }],
      'urlNotifications.publish': ['request_indexing', { url: `${OWNED}jobs/any` }],
      'webResource.getToken': ['get_verification_token', { site_url: OWNED }],
    } as const;
    const SAYS = {
      service_disabled:
        /^Google refused to .* because the .* API \([a-z]+\.googleapis\.com\) is not enabled in the Google Cloud project \d{12} .* Enable it at https:\/\/console\.developers\.google\.com\/apis\/api\/[a-z]+\.googleapis\.com\/overview\?project=\d{12} /,
      access_not_configured:
        /is not enabled in the Google Cloud project \d{12} .* Enable it at https:\/\/console\.developers\.google\.com\/apis\/api\//,
      quota_exceeded:
        /^Google's quota is exhausted, so it refused to .* Google's answer does not say which limit was hit\. .* If it was a per-minute limit, retry in 60 seconds; if it was a daily one, it resets at midnight Pacific Time/,
      daily_limit_exceeded:
        /^Google's daily quota is exhausted, so it refused to .*; the count resets at midnight Pacific Time, in about \d+ (hours?|minutes?)\. Retry then/,
      rate_limit_exceeded:
        /^Google's per-user rate limit is exhausted: the credential \(gsc-test@demo-project\.iam\.gserviceaccount\.com\) sent too many requests in a short time/,
      user_rate_limit_exceeded:
        /^Google's per-user rate limit is exhausted: the credential \(gsc-test@demo-project\.iam\.gserviceaccount\.com\) sent too many requests in a short time/,
    } as const;
    // Where the quota ledger counts (URL Inspection, Indexing publish), an unsaid window is told as the likely one.
    const LEDGER_QUOTA =
      /^Google's daily quota is most likely exhausted, so it refused to .* Google's answer does not say which limit was hit\. .*[Tt]he daily limit resets at midnight Pacific Time/;
    const LEDGER_ROUTES: readonly string[] = ['urlInspection.index.inspect', 'urlNotifications.publish'];
    const cases = Object.entries(SAYS).flatMap(([preset, says]) => Object.keys(TOOLS).map((route) => [preset, route, says] as const));

    it.each(cases)('%s on %s', async (preset, route, says) => {
      google.emulator.injectFault({ route, preset: preset as keyof typeof SAYS, times: Infinity });
      const [tool, args] = TOOLS[route as keyof typeof TOOLS];
      const result = await client.call(tool, args);
      expect(result.isError).toBe(true);
      const said = text(result);
      expect(said).toMatch(preset === 'quota_exceeded' && LEDGER_ROUTES.includes(route) ? LEDGER_QUOTA : says);
      expect(said).toMatch(/Nothing was changed\./);
      expect(said).not.toMatch(/add it as a user|Users and permissions|lacks the permission/);
      // A disabled API, a daily limit or a limit Google does not name (it may be the daily one) is not sent again; nor is an Indexing publish, ever.
      if (
        preset.includes('disabled') ||
        preset.includes('not_configured') ||
        preset === 'daily_limit_exceeded' ||
        preset === 'quota_exceeded' ||
        route === 'urlNotifications.publish'
      ) {
        expect(requests(route)).toHaveLength(1);
        expect(clock.waits).toEqual([]);
      } else {
        // A per-minute rate limit on a method that may be sent again: the bounded attempts, backing off.
        expect(preset).toMatch(/^(user_)?rate_limit_exceeded$/);
        expect(requests(route)).toHaveLength(4);
        expectBackoff(4);
      }
    });

    it('a real missing permission on a One Platform surface still gets the permission advice', async () => {
      const result = await client.call('inspect_url', { site_url: 'https://www.example.org/', url: 'https://www.example.org/x' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /You do not own this site, or the inspected URL is not part of this property\..* lacks the permission needed on https:\/\/www\.example\.org\//,
      );
    });
  });

  describe("Google's real quota body", () => {
    it('a URL Inspection 429 names both limits, says which is likely, and does not claim to know which', async () => {
      google.emulator.injectFault({
        route: 'urlInspection.index.inspect',
        status: 429,
        times: Infinity,
        body: { error: { code: 429, message: `Quota exceeded for ${OWNED}.`, status: 'RESOURCE_EXHAUSTED' } },
      });
      const result = await client.call('inspect_url', { site_url: OWNED, url: OWNED });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/600 inspections per minute and 2 000 per day per property/);
      expect(text(result)).not.toMatch(/per-minute quota is exhausted|daily quota is exhausted/);
    });
  });
});

// Each token case needs a server that holds no access token yet.
describe('the token endpoint', () => {
  let google: TestGoogle;
  beforeAll(async () => {
    google = await startGoogle();
  });
  afterAll(() => google.emulator.close());
  beforeEach(() => google.emulator.reset());
  const requests = (route: string) => google.emulator.requests.filter((r) => r.route === route);
  const listSitesOnAFreshServer = async () => {
    const server = await startInProcess(google.env, onTheClock);
    const client = await connectHttp(server.url, { revision: '2026-07-28' });
    try {
      return await client.call('list_sites');
    } finally {
      await client.close();
      await server.close();
    }
  };

  it('invalid_grant is a sentence about the key, asked for once', async () => {
    google.emulator.injectFault({
      route: 'token',
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' },
      times: Infinity,
    });
    const result = await listSitesOnAFreshServer();
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^Google's OAuth token endpoint refused the service account gsc-test@demo-project\.iam\.gserviceaccount\.com from GSC_SERVICE_ACCOUNT_KEY/,
    );
    expect(text(result)).toMatch(/Create a new JSON key/);
    expect(text(result)).not.toMatch(/Correct the arguments/);
    expect(requests('token')).toHaveLength(1);
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });

  describe('an OAuth user credential', () => {
    const CLIENT_ID = '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com';
    const listSitesAs = async (env: Record<string, string>) => {
      google.emulator.registerRefreshToken({
        clientId: CLIENT_ID,
        clientSecret: 'GOCSPX-right',
        refreshToken: '1//the-current-token',
        user: 'owner@example.com',
        scopes: ['https://www.googleapis.com/auth/webmasters'],
      });
      const server = await startInProcess({
        GSC_API_ROOT_URL: google.emulator.url,
        GSC_OAUTH_TOKEN_URL: google.emulator.tokenUrl,
        GSC_CLIENT_ID: CLIENT_ID,
        ...env,
      });
      const client = await connectHttp(server.url, { revision: '2025-11-25' });
      try {
        return await client.call('list_sites');
      } finally {
        await client.close();
        await server.close();
      }
    };

    it('invalid_grant "Token has been expired or revoked." is a sentence about the refresh token, naming the scopes to ask for', async () => {
      const result = await listSitesAs({ GSC_CLIENT_SECRET: 'GOCSPX-right', GSC_REFRESH_TOKEN: '1//a-revoked-token' });
      expect(result.isError).toBe(true);
      const said = text(result);
      expect(said).toMatch(
        /^Google's OAuth token endpoint refused the OAuth credential \(OAuth client 123456789012-.*\) from GSC_CLIENT_ID\/GSC_CLIENT_SECRET\/GSC_REFRESH_TOKEN/,
      );
      expect(said).toMatch(/"invalid_grant: Token has been expired or revoked\."/);
      expect(said).toMatch(/The refresh token was revoked .* or it expired/);
      expect(said).toMatch(
        /Create a new refresh token for this OAuth client with the scopes https:\/\/www\.googleapis\.com\/auth\/webmasters, https:\/\/www\.googleapis\.com\/auth\/indexing, https:\/\/www\.googleapis\.com\/auth\/siteverification, set it in GSC_REFRESH_TOKEN/,
      );
      expect(said).not.toMatch(/Correct the arguments/);
      expect(requests('token')).toHaveLength(1);
      expect(google.emulator.apiRequests()).toHaveLength(0);
    });

    it('invalid_client (a wrong secret) is a sentence about the OAuth client', async () => {
      const result = await listSitesAs({ GSC_CLIENT_SECRET: 'GOCSPX-wrong', GSC_REFRESH_TOKEN: '1//the-current-token' });
      expect(text(result)).toMatch(/The client secret in GSC_CLIENT_SECRET does not match GSC_CLIENT_ID, or the OAuth client was deleted/);
      expect(text(result)).not.toMatch(/GSC_CLIENT_SECRET=|GOCSPX-wrong/);
      expect(google.emulator.apiRequests()).toHaveLength(0);
    });
  });

  it('a failing token endpoint is asked at most 4 times for one call (it was 16)', async () => {
    google.emulator.injectFault({ route: 'token', status: 503, times: Infinity });
    const result = await listSitesOnAFreshServer();
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Google's OAuth token endpoint failed with HTTP 503/);
    expect(text(result)).toMatch(/Nothing was sent to Google, so nothing was changed\./);
    expect(requests('token')).toHaveLength(4);
    expectBackoff(4);
  });
});

describe('domain-wide delegation without the scopes (the emulator refuses it itself)', () => {
  const { google, client } = useStack({ env: { GSC_IMPERSONATE: 'delegate@example.com' } });

  it('names the subject and exactly the scopes a Workspace admin must allow, from the registered tools', async () => {
    const result = await client.call('list_sites');
    expect(result.isError).toBe(true);
    const said = text(result);
    expect(said).toMatch(/"unauthorized_client: /);
    expect(said).toMatch(/acting as delegate@example\.com \(GSC_IMPERSONATE\)/);
    const scopes = /with exactly these OAuth scopes: (.+?)\. Or narrow/.exec(said)?.[1].split(', ');
    expect(scopes?.sort()).toEqual(
      [
        'https://www.googleapis.com/auth/indexing',
        'https://www.googleapis.com/auth/siteverification',
        'https://www.googleapis.com/auth/webmasters',
      ].sort(),
    );
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });
});

describe('a Google that does not answer (GSC_GOOGLE_TIMEOUT_MS)', () => {
  const TIMEOUT_MS = 300;
  let google: TestGoogle;
  let server: InProcessServer;
  let client: TestClient;
  const withDeadline = (config: Config): Config => ({ ...config, google: { ...config.google, timeoutMs: TIMEOUT_MS } });
  const requests = (route: string) => google.emulator.requests.filter((r) => r.route === route);

  beforeAll(async () => {
    google = await startGoogle();
    const config = withDeadline(loadConfig(isolatedEnv({ GSC_HTTP_PORT: '0', ...google.env }), { forceHttp: true }));
    server = await startInProcess(google.env, [[CONFIG, config], ...onTheClock]);
    client = await connectHttp(server.url, { revision: '2026-07-28' });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await google?.emulator.close();
  });
  beforeEach(() => google.emulator.reset());

  it('a read is sent twice, then answered with the deadline sentence', async () => {
    google.emulator.setLatency('sites.list', 60_000);
    const result = await client.call('list_sites');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^Google did not answer within 0\.3 s \(GSC_GOOGLE_TIMEOUT_MS\) while trying to list the Search Console properties, after 2 attempts\. Nothing was changed\./,
    );
    expect(requests('sites.list')).toHaveLength(2);
    expectBackoff(2);
  });

  it('a sitemap submission is sent once and its outcome called unknown', async () => {
    google.emulator.setLatency('sitemaps.submit', 60_000);
    const result = await client.call('submit_sitemap', { site_url: OWNED, sitemap_url: 'https://www.example.com/new.xml' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/It is not known whether Google applied the change/);
    expect(requests('sitemaps.submit')).toHaveLength(1);
  });

  it('an Indexing notification is sent once; the person is told to check before sending again', async () => {
    google.emulator.setLatency('urlNotifications.publish', 60_000);
    const result = await client.call('request_indexing', { url: JOB });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^Google did not answer in time \(GSC_GOOGLE_TIMEOUT_MS\) while sending the URL_UPDATED notification .* may or may not have recorded it\. It was sent once and not retried/,
    );
    expect(requests('urlNotifications.publish')).toHaveLength(1);
  });

  it('a token endpoint that hangs: nothing reaches the API', async () => {
    google.emulator.setLatency('token', 60_000);
    const fresh = await startInProcess(google.env, [
      [CONFIG, withDeadline(loadConfig(isolatedEnv({ GSC_HTTP_PORT: '0', ...google.env }), { forceHttp: true }))],
      ...onTheClock,
    ]);
    const other = await connectHttp(fresh.url, { revision: '2025-11-25' });
    try {
      const result = await other.call('list_sites');
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^Google's OAuth token endpoint did not answer within 0\.3 s \(GSC_GOOGLE_TIMEOUT_MS\)/);
      expect(requests('token')).toHaveLength(2);
      expectBackoff(2);
      expect(google.emulator.apiRequests()).toHaveLength(0);
    } finally {
      await other.close();
      await fresh.close();
    }
  });

  it('graceful shutdown is not held by a hung Google: the running call ends with the deadline sentence', async () => {
    const logger = new StderrLogger();
    logger.setLogLevels(['error']);
    const config = withDeadline(loadConfig(isolatedEnv({ GSC_HTTP_PORT: '0', ...google.env }), { forceHttp: true }));
    const running: RunningHttpServer = await startHttpServer(config, logger);
    const caller = await connectHttp(`${running.origin}/mcp`, { revision: '2026-07-28' });
    google.emulator.setLatency('sites.list', 60_000);
    const listing = caller.call('list_sites');
    while (requests('sites.list').length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const stopped = running.stop();
    const result = await listing;
    await stopped;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/did not answer within 0\.3 s/);
    await caller.close().catch(() => undefined);
  });
});

// Issue 29 break 6: the token endpoint's error_description (or an API error) that echoes a secret was copied into tool results.
describe('an answer that echoes a secret (the emulator quoting what it was sent)', () => {
  const ECHO = 'Token has been expired or revoked. (refresh_token={form.refresh_token} client_secret={form.client_secret})';
  const leaked = (seen: string, secrets: readonly string[]) =>
    secrets.filter((s) => seen.includes(s) || seen.includes(encodeURIComponent(s)));

  describe('an OAuth user credential (GSC_CLIENT_SECRET, GSC_REFRESH_TOKEN)', () => {
    let google: TestGoogle;
    let server: InProcessServer;
    const CLIENT_ID = '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com';
    const SECRET = 'GOCSPX-echoed-secret-0123';
    const REFRESH = '1//0echoed-refresh-token-0123';
    beforeAll(async () => {
      google = await startGoogle();
      google.emulator.registerRefreshToken({
        clientId: CLIENT_ID,
        clientSecret: SECRET,
        refreshToken: REFRESH,
        user: 'owner@example.com',
        scopes: ['https://www.googleapis.com/auth/webmasters'],
      });
      server = await startInProcess({
        GSC_API_ROOT_URL: google.emulator.url,
        GSC_OAUTH_TOKEN_URL: google.emulator.tokenUrl,
        GSC_CLIENT_ID: CLIENT_ID,
        GSC_CLIENT_SECRET: SECRET,
        GSC_REFRESH_TOKEN: REFRESH,
      });
    });
    afterAll(async () => {
      await server?.close();
      await google?.emulator.close();
    });

    it('the tool result keeps the error code and says [redacted] where the refresh token and client secret were', async () => {
      google.emulator.injectFault({ route: 'token', status: 400, reason: 'invalid_grant', message: ECHO, times: Infinity });
      const client = await connectHttp(server.url, { revision: '2026-07-28' });
      try {
        const result = await client.call('list_sites');
        expect(result.isError).toBe(true);
        expect(text(result)).toContain(
          '"invalid_grant: Token has been expired or revoked. (refresh_token=[redacted] client_secret=[redacted])"',
        );
        expect(text(result)).toMatch(/The refresh token was revoked/); // still read as invalid_grant "expired or revoked"
        expect(leaked(JSON.stringify(result), [SECRET, REFRESH])).toEqual([]);
        // /admin/ready asks the token endpoint too; an answer that is bare text (gaxios makes it the message) is redacted the same way.
        google.emulator.clearFaults();
        google.emulator.injectFault({ route: 'token', status: 400, body: `Bad request for ${REFRESH} of ${SECRET}` });
        const ready = await (await fetch(`${server.origin}/admin/ready`)).text();
        expect(ready).toContain('Bad request for [redacted] of [redacted]');
        expect(leaked(ready, [SECRET, REFRESH])).toEqual([]);
      } finally {
        google.emulator.clearFaults();
        await client.close();
      }
    });

    it('an API error quoting the access token the request carried says [redacted] instead', async () => {
      google.emulator.injectFault({
        route: 'sites.get',
        status: 403,
        reason: 'forbidden',
        message: 'The token {bearer} cannot read this site',
      });
      const client = await connectHttp(server.url, { revision: '2026-07-28' });
      try {
        const result = await client.call('get_site', { site_url: OWNED });
        expect(text(result)).toContain('The token [redacted] cannot read this site');
        expect(text(result)).not.toMatch(/ya29\./);
      } finally {
        await client.close();
      }
    });
  });

  describe("a person's connected grant (GSC_GOOGLE_OAUTH_CLIENT_SECRET, the grant's refresh token)", () => {
    let google: ConnectedGoogle;
    let server: InProcessServer;
    beforeAll(async () => {
      google = await startConnectedGoogle();
      server = await startInProcess(google.env);
    });
    afterAll(async () => {
      await server?.close();
      await google?.close();
    });

    it('the refresh that fails puts neither the refresh token nor the client secret in the answer, the audit trail or /admin', async () => {
      const grant = await google.mint('alice@example.com');
      await saveGrant(server.app.get(GrantStore, { strict: false }), 'local', grant);
      google.emulator.injectFault({
        route: 'token',
        status: 400,
        reason: 'invalid_request',
        message: ECHO,
        times: Infinity,
        bodyMatches: { grant_type: 'refresh_token' },
      });
      const client = await connectHttp(server.url, { revision: '2026-07-28' });
      try {
        const result = await client.call('list_sites');
        expect(result.isError).toBe(true);
        expect(text(result)).toContain(
          '"invalid_request: Token has been expired or revoked. (refresh_token=[redacted] client_secret=[redacted])"',
        );
        const seen = [
          JSON.stringify(result),
          await (await fetch(`${server.origin}/admin/audit`)).text(),
          await (await fetch(`${server.origin}/admin/accounts`)).text(),
        ].join('\n');
        expect(leaked(seen, [grant.refreshToken, OAUTH_CLIENT.clientSecret])).toEqual([]);
      } finally {
        google.emulator.clearFaults();
        await client.close();
      }
    });
  });
});
