// The quota ledger end to end (PRODUCT §5a, §9a): Google's real 429 bodies from
// the emulator through the real client libraries, the ledger in the state
// store read as gsc://quota and GET /admin/quota, right across a Pacific
// midnight (one manual clock for the emulator and the server) and across two
// server processes sharing one store (SQLite folder, and Redis).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Clock } from '../src/common/clock.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { GOOGLE_QUOTA_LIMITS, QUOTA_LIMITS } from '../src/quota/quota-limits.js';
import { connectHttp, type TestClient, text } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';
import { ManualClock } from './support/manual-clock.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { type InProcessServer, startInProcess } from './support/server.js';

const OWNED = SEED_PROPERTIES.owned; // https://www.example.com/
const DOMAIN = SEED_PROPERTIES.domain; // sc-domain:example.com
const pages = (prefix: string, n: number, site = OWNED) =>
  Array.from({ length: n }, (_, i) => `${site.startsWith('sc-domain:') ? 'https://shop.example.com/' : site}${prefix}-${i + 1}`);

async function readQuota(client: TestClient): Promise<any> {
  const result = await client.raw.readResource({ uri: 'gsc://quota' });
  expect(result.contents[0]).toMatchObject({ uri: 'gsc://quota', mimeType: 'application/json' });
  return JSON.parse(result.contents[0].text);
}

const inspectionOf = (quota: any, property: string) => quota.inspection.find((q: any) => q.property === property);

describe('gsc://quota and GET /admin/quota', () => {
  let google: TestGoogle;
  let server: InProcessServer;
  let client: TestClient;
  let legacy: TestClient;
  beforeAll(async () => {
    google = await startGoogle();
    server = await startInProcess(google.env);
    client = await connectHttp(server.url, { revision: '2026-07-28' });
    legacy = await connectHttp(server.url, { revision: '2025-11-25' });
  });
  afterAll(async () => {
    await client?.close();
    await legacy?.close();
    await server?.close();
    await google?.emulator.close();
  });

  it('is served beside the exports template by the shared resource handlers; unknown and malformed URIs are protocol errors', async () => {
    for (const c of [client, legacy]) {
      const { resources } = await c.raw.listResources();
      expect(resources.find((r: any) => r.uri === 'gsc://quota')).toMatchObject({
        name: 'quota',
        title: expect.any(String),
        description: expect.stringMatching(/quota/i),
        mimeType: 'application/json',
      });
      const { resourceTemplates } = await c.raw.listResourceTemplates();
      expect(resourceTemplates).toEqual([
        expect.objectContaining({ name: 'exports', uriTemplate: 'gsc://exports/{file}', title: expect.any(String) }),
      ]);
      await expect(c.raw.readResource({ uri: 'gsc://nothing-here' })).rejects.toThrow(/not found/i);
      await expect(c.raw.readResource({ uri: 'gsc://exports/0123abcd.csv' })).rejects.toThrow(/not found/i);
      await expect(c.raw.readResource({ uri: 'not a uri' })).rejects.toThrow(/invalid/i);
    }
  });

  it('is listed as a resource, and counts what this server sent, per property and per project', async () => {
    for (const c of [client, legacy]) {
      const { resources } = await c.raw.listResources();
      expect(resources.map((r: any) => r.uri)).toContain('gsc://quota');
    }
    const empty = await readQuota(client);
    expect(empty).toMatchObject({
      ledger: 'available',
      inspection: [],
      indexing_publish: [{ project: 'Google Cloud project demo-project', day: { used: 0, limit: 200, remaining: 200 } }],
    });
    expect(empty.note).toMatch(/other clients of the same property or project spend the same quota/);

    const batch = await client.call('inspect_urls', { site_url: OWNED, urls: pages('counted', 3) });
    expect(batch.structuredContent!.quota_remaining).toMatchObject({
      property: OWNED,
      day: { used: 3, limit: 2000, remaining: 1997 },
      minute: { limit: 600 },
      lower_bound: true,
    });
    expect(text(batch)).toMatch(
      /URL inspections of https:\/\/www\.example\.com\/ left by this server's own count: 1 997 of 2 000 today and \d+ of 600 this minute \(the day resets at midnight Pacific Time, \S+, in about \d+ (hours?|minutes?)\); other clients of the property spend the same quota, so Google may allow fewer\./,
    );
    await client.call('inspect_url', { site_url: DOMAIN, url: 'https://shop.example.com/checkout/error' });
    await client.call('request_indexing', { url: `${OWNED}jobs/staff-engineer` });

    const quota = await readQuota(legacy);
    expect(inspectionOf(quota, OWNED)).toMatchObject({ day: { used: 3, remaining: 1997 }, lower_bound: true });
    expect(inspectionOf(quota, OWNED).minute.used).toBeLessThanOrEqual(3);
    expect(inspectionOf(quota, DOMAIN)).toMatchObject({ day: { used: 1 } });
    expect(quota.indexing_publish).toEqual([
      expect.objectContaining({ project: 'Google Cloud project demo-project', day: expect.objectContaining({ used: 1, remaining: 199 }) }),
    ]);
    expect(Date.parse(quota.day_resets_at)).toBeGreaterThan(Date.parse(quota.now));

    const admin: any = await (await fetch(`${server.origin}/admin/quota`)).json();
    expect(admin.inspection).toEqual(quota.inspection);
    const one: any = await (await fetch(`${server.origin}/admin/quota?property=${encodeURIComponent(DOMAIN)}`)).json();
    expect(one.inspection.map((q: any) => q.property)).toEqual([DOMAIN]);
    expect((await fetch(`${server.origin}/admin/quota?property=`)).status).toBe(400);
  });

  it('a caller sees only the properties GSC_ALLOWED_SITES lets it touch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsc-state-'));
    const open = await startInProcess({ ...google.env, GSC_STATE_DIR: dir });
    const narrow = await startInProcess({ ...google.env, GSC_STATE_DIR: dir, GSC_ALLOWED_SITES: OWNED });
    const a = await connectHttp(open.url, { revision: '2026-07-28' });
    const b = await connectHttp(narrow.url, { revision: '2026-07-28' });
    try {
      await a.call('inspect_url', { site_url: OWNED, url: OWNED });
      await a.call('inspect_url', { site_url: DOMAIN, url: 'https://shop.example.com/checkout/error' });
      expect((await readQuota(a)).inspection.map((q: any) => q.property)).toEqual([DOMAIN, OWNED].sort());
      expect((await readQuota(b)).inspection.map((q: any) => q.property)).toEqual([OWNED]);
    } finally {
      await a.close();
      await b.close();
      await open.close();
      await narrow.close();
    }
  });
});

describe("inspect_urls and Google's real 429 (the same body for every limit)", () => {
  // One manual clock for Google and the server: the batch's one wait is recorded, not waited for.
  const clock = new ManualClock(new Date());
  let google: TestGoogle;
  let server: InProcessServer;
  let client: TestClient;
  beforeAll(async () => {
    google = await startGoogle({ now: () => clock.now(), quotas: { inspectionPerDayPerProperty: 4 } });
    server = await startInProcess(google.env, [[Clock, clock]]);
    client = await connectHttp(server.url, { revision: '2026-07-28' });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await google?.emulator.close();
  });
  const inspections = () => google.emulator.apiRequests().filter((r) => r.route === 'urlInspection.index.inspect');

  it('stops after one bounded wait and one probe, lists what it did not inspect, and names both limits with their reset times', async () => {
    const urls = pages('limited', 20);
    const result = await client.call('inspect_urls', { site_url: OWNED, urls });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    const sent = inspections();
    expect(sent.filter((r) => r.status === 200)).toHaveLength(4);
    // Refusals: at most those in flight when the first came back (10 lanes) and the one probe after the wait.
    expect(sent.filter((r) => r.status === 429).length).toBeLessThanOrEqual(11);
    expect(out.results).toHaveLength(4);
    expect(out.not_inspected).toHaveLength(16);
    expect(out.stop_reason).toBe('quota');
    expect(out.quota).toMatchObject({ likely_limit: 'day', basis: 'rates' });
    expect(out.quota.waited_seconds).toBeGreaterThan(0);
    expect(out.quota.waited_seconds).toBeLessThanOrEqual(60);
    // One wait, the one the answer tells.
    expect(clock.waits).toEqual([Math.round(out.quota.waited_seconds * 1000)]);
    const said = text(result);
    expect(said).toContain(
      `If it was the per-minute limit (600), it clears by ${out.quota.minute_resets_at}, within a minute; the daily limit resets at midnight Pacific Time (${out.quota.day_resets_at}, in about`,
    );
    expect(said).toMatch(
      /This server counted \d+ inspections of https:\/\/www\.example\.com\/ in the current minute and 4 today \(lower bounds: other clients of the property count too\)/,
    );
    expect(said).toMatch(/Google refused again after this batch waited \d+(\.\d)? s once\./);
    // The ledger counted exactly what Google answered, and remembers the refusal.
    expect(out.quota_remaining).toMatchObject({ day: { used: 4, remaining: 0 }, google_refused_at: expect.any(String) });

    // The next batch knows Google refused today: one probe, no wait, nothing else sent.
    google.emulator.clearLog();
    const again = await client.call('inspect_urls', { site_url: OWNED, urls: pages('again', 5) });
    expect(inspections()).toHaveLength(1);
    expect(again.structuredContent).toMatchObject({ stop_reason: 'quota', quota: { likely_limit: 'day', waited_seconds: 0 } });
    expect(clock.waits).toHaveLength(1);
    // In a later minute the earlier refusal is the reason; in the same minute, the rates argument.
    expect(['refused_earlier', 'rates']).toContain(again.structuredContent!.quota.basis);
    expect(again.structuredContent!.not_inspected).toHaveLength(5);
    expect(text(again)).toMatch(/Google had refused this property earlier today, and refused again\./);
  });
});

describe('inspect_urls within the daily budget this server counts', () => {
  let google: TestGoogle;
  let server: InProcessServer;
  let client: TestClient;
  beforeAll(async () => {
    google = await startGoogle();
    // A small limit stands in for Google's 2 000, which the emulator would need 2 000 inspections to reach.
    server = await startInProcess(google.env, [[QUOTA_LIMITS, { ...GOOGLE_QUOTA_LIMITS, inspectionPerDay: 7 }]]);
    client = await connectHttp(server.url, { revision: '2025-11-25' });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await google?.emulator.close();
  });
  beforeEach(() => google.emulator.reset());

  it('inspects only what is left, sends nothing for the rest, and says why', async () => {
    await client.call('inspect_url', { site_url: OWNED, url: OWNED });
    const result = await client.call('inspect_urls', { site_url: OWNED, urls: pages('budget', 10) });
    expect(google.emulator.apiRequests().filter((r) => r.route === 'urlInspection.index.inspect')).toHaveLength(7);
    const out = result.structuredContent!;
    expect(out.results).toHaveLength(6);
    expect(out.not_inspected).toHaveLength(4);
    expect(out).toMatchObject({ stop_reason: 'daily_budget', quota_remaining: { day: { used: 7, limit: 7, remaining: 0 } } });
    expect(out.quota).toBeUndefined(); // Google never refused: this server's own count decided
    expect(text(result)).toMatch(
      /Not inspected, because the daily URL-inspection quota of https:\/\/www\.example\.com\/ is used up by this server's own count \(7 inspections today; .*\): .*\. Nothing was sent to Google for them; retry them tomorrow, after midnight Pacific Time/,
    );

    const single = await client.call('inspect_url', { site_url: OWNED, url: `${OWNED}one-more` });
    expect(single.isError).toBe(true);
    expect(text(single)).toMatch(
      /^Did not inspect https:\/\/www\.example\.com\/one-more: this server has already sent 7 URL inspections of https:\/\/www\.example\.com\/ today .* Nothing was sent to Google\./,
    );
    expect(google.emulator.apiRequests().filter((r) => r.route === 'urlInspection.index.inspect')).toHaveLength(7);
  });
});

describe('across a Pacific midnight (one manual clock for Google and the server)', () => {
  // 23:59:00 PST on 2026-03-02 is 07:59:00 UTC on 2026-03-03.
  const clock = new ManualClock('2026-03-03T07:59:00Z');
  let google: TestGoogle;
  let server: InProcessServer;
  let client: TestClient;
  beforeAll(async () => {
    google = await startGoogle({ now: () => clock.now(), quotas: { inspectionPerDayPerProperty: 3 } });
    server = await startInProcess(google.env, [[Clock, clock]]);
    client = await connectHttp(server.url, { revision: '2026-07-28' });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await google?.emulator.close();
  });

  it('the day before counts and refuses as that day; after midnight both start again', async () => {
    const before = await client.call('inspect_urls', { site_url: OWNED, urls: pages('late', 5) });
    expect(before.structuredContent).toMatchObject({
      stop_reason: 'quota',
      quota_remaining: { day: { used: 3, resets_at: '2026-03-03T08:00:00.000Z' } },
    });
    expect(before.structuredContent!.results).toHaveLength(3);
    expect(clock.waits).toHaveLength(1); // the batch's one bounded wait, on the manual clock (still 23:59 PST)
    const quotaBefore = await readQuota(client);
    expect(quotaBefore.day_resets_at).toBe('2026-03-03T08:00:00.000Z');
    expect(inspectionOf(quotaBefore, OWNED)).toMatchObject({ day: { used: 3, remaining: 0 }, google_refused_at: expect.any(String) });

    clock.advance(90_000); // 00:00:30 PST on 2026-03-03
    const quotaAfter = await readQuota(client);
    expect(quotaAfter.day_resets_at).toBe('2026-03-04T08:00:00.000Z');
    expect(quotaAfter.inspection).toEqual([]); // a new day: nothing counted, nothing refused

    google.emulator.clearLog();
    const after = await client.call('inspect_urls', { site_url: OWNED, urls: pages('early', 3) });
    expect(after.structuredContent).toMatchObject({
      not_inspected: [],
      quota_remaining: { day: { used: 3, remaining: 1997, resets_at: '2026-03-04T08:00:00.000Z' } },
    });
    expect(after.structuredContent!.stop_reason).toBeUndefined();
    expect(google.emulator.apiRequests().map((r) => r.status)).toEqual([200, 200, 200]);
  });
});

describe.each(['SQLite folder', 'Redis'] as const)('two server processes sharing one state store (%s)', (kind) => {
  let google: TestGoogle;
  let redis: RedisServer | undefined;
  let servers: HttpBinary[] = [];
  beforeAll(async () => {
    google = await startGoogle({ quotas: { inspectionPerDayPerProperty: 30 } });
    redis = kind === 'Redis' ? await startRedisServer() : undefined;
    const state: Record<string, string> = redis
      ? { GSC_REDIS_URL: redis.url }
      : { GSC_STATE_DIR: mkdtempSync(join(tmpdir(), 'gsc-shared-state-')) };
    servers = await Promise.all([0, 1].map(() => spawnHttpBinary({ ...google.env, ...state })));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await redis?.stop();
    await google?.emulator.close();
  });

  it('count every inspection either sent, once, even when Google refuses some of them', async () => {
    const clients = await Promise.all(servers.map((s) => connectHttp(s.url, { revision: '2026-07-28' })));
    try {
      // 2 × 20 at once against a property Google lets inspect 30 times today.
      const results = await Promise.all(
        clients.map((c, i) => c.call('inspect_urls', { site_url: OWNED, urls: pages(`process-${i}`, 20) })),
      );
      const answered = google.emulator.apiRequests().filter((r) => r.route === 'urlInspection.index.inspect' && r.status === 200).length;
      expect(answered).toBe(30);
      expect(results.reduce((n, r) => n + r.structuredContent!.results.length, 0)).toBe(30);
      for (const server of servers) {
        const quota: any = await (await fetch(`${server.origin}/admin/quota`)).json();
        expect(quota.inspection.find((q: any) => q.property === OWNED).day.used).toBe(30);
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
