import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { SCOPES } from './emulator-routing.js';
import { rejection, startEmulatorKit, type EmulatorKit } from './emulator-test-kit.js';

const NOW = new Date('2026-11-30T20:30:00Z');
let kit: EmulatorKit;

beforeAll(async () => {
  kit = await startEmulatorKit({ now: () => NOW });
});
afterAll(() => kit.emulator.close());
beforeEach(() => kit.emulator.reset());


describe('urlNotifications.publish', () => {
  it('publishes URL_UPDATED for an owned URL and records the raw path', async () => {
    const url = 'https://www.example.com/jobs/new-role';
    const { data } = await kit.idx.urlNotifications.publish({ requestBody: { url, type: 'URL_UPDATED' } });
    expect(data).toEqual({
      urlNotificationMetadata: { url, latestUpdate: { url, type: 'URL_UPDATED', notifyTime: NOW.toISOString() } },
    });
    expect(kit.emulator.apiRequests().at(-1)).toMatchObject({
      method: 'POST',
      rawPath: '/v3/urlNotifications:publish',
      route: 'urlNotifications.publish',
      body: { url, type: 'URL_UPDATED' },
      status: 200,
    });
  });

  it('keeps the latest update and the latest removal side by side', async () => {
    const url = 'https://www.example.com/jobs/senior-engineer';
    const { data } = await kit.idx.urlNotifications.publish({ requestBody: { url, type: 'URL_DELETED' } });
    expect(data.urlNotificationMetadata!.latestRemove).toEqual({ url, type: 'URL_DELETED', notifyTime: NOW.toISOString() });
    expect(data.urlNotificationMetadata!.latestUpdate!.type).toBe('URL_UPDATED');
  });

  it('refuses a full user (owner required) and a URL under no property, but accepts one an owned property covers', async () => {
    const expected = {
      status: 403,
      data: { error: { code: 403, message: 'Permission denied. Failed to verify the URL ownership.', status: 'PERMISSION_DENIED' } },
    };
    // A full-user property with no owned property above it.
    kit.emulator.state.sites.set('https://store.example.net/', 'siteFullUser');
    expect(await rejection(kit.idx.urlNotifications.publish({ requestBody: { url: 'https://store.example.net/x', type: 'URL_UPDATED' } })))
      .toEqual(expected);
    expect(await rejection(kit.idx.urlNotifications.publish({ requestBody: { url: 'https://other.test/x', type: 'URL_UPDATED' } })))
      .toEqual(expected);
    expect(kit.emulator.state.sites.get(SEED_PROPERTIES.fullUser)).toBe('siteFullUser');
    // shop.example.com is only a full-user property, but the owned sc-domain:example.com covers it.
    await expect(
      kit.idx.urlNotifications.publish({ requestBody: { url: 'https://shop.example.com/x', type: 'URL_UPDATED' } }),
    ).resolves.toMatchObject({ status: 200 });
  });

  it('refuses an invalid type with INVALID_ARGUMENT', async () => {
    const e = await rejection(kit.idx.urlNotifications.publish({ requestBody: { url: 'https://www.example.com/a', type: 'URL_UPDATE' } }));
    expect(e.status).toBe(400);
    expect((e.data as { error: { status: string; message: string } }).error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringContaining("Invalid value at 'url_notification.type'"),
    });
  });

  it('needs the indexing scope', async () => {
    const wm = kit.clients([SCOPES.webmasters]);
    const e = await rejection(wm.idx.urlNotifications.publish({ requestBody: { url: 'https://www.example.com/a', type: 'URL_UPDATED' } }));
    expect(e.status).toBe(403);
    expect(JSON.stringify(e.data)).toContain('ACCESS_TOKEN_SCOPE_INSUFFICIENT');
    expect(e.data).not.toHaveProperty('error.errors');
  });
});

describe('urlNotifications.getMetadata', () => {
  it('returns metadata for a notified URL with the url as an encoded query parameter', async () => {
    const url = 'https://www.example.com/jobs/senior-engineer';
    const { data } = await kit.idx.urlNotifications.getMetadata({ url });
    expect(data.url).toBe(url);
    expect(data.latestUpdate!.type).toBe('URL_UPDATED');
    const req = kit.emulator.apiRequests().at(-1)!;
    expect(req.rawPath).toBe('/v3/urlNotifications/metadata');
    expect(req.query).toEqual({ url });
  });

  it('answers 404 NOT_FOUND for a URL never notified', async () => {
    const e = await rejection(kit.idx.urlNotifications.getMetadata({ url: 'https://www.example.com/never' }, { retry: false }));
    expect(e).toEqual({ status: 404, data: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } } });
  });
});

describe('indexing quotas', () => {
  it('allows publishPerDay publishes per project per Pacific day, and metadataPerMinute reads', async () => {
    let clock = new Date('2026-11-30T20:30:00Z');
    const small = await startEmulatorKit({ now: () => clock, quotas: { publishPerDay: 2, metadataPerMinute: 1 } });
    try {
      const publish = () =>
        small.idx.urlNotifications.publish({ requestBody: { url: 'https://www.example.com/jobs/a', type: 'URL_UPDATED' } });
      await publish();
      await publish();
      const e = await rejection(publish());
      expect(e.status).toBe(429);
      expect(e.data).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('per day') } });
      clock = new Date('2026-12-01T08:00:01Z'); // just past Pacific midnight
      await expect(publish()).resolves.toMatchObject({ status: 200 });

      const meta = () => small.idx.urlNotifications.getMetadata({ url: 'https://www.example.com/jobs/a' }, { retry: false });
      await meta();
      const m = await rejection(meta());
      expect(m.data).toMatchObject({ error: { code: 429, message: expect.stringContaining('per minute') } });
    } finally {
      await small.emulator.close();
    }
  });
});
