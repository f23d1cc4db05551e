import { describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { SCOPES } from './emulator-routing.js';
import { rejection, startEmulatorKit, useEmulatorKit } from '../../test/support/emulator-kit.js';

const NOW = new Date('2026-11-30T20:30:00Z');
const kit = useEmulatorKit({ now: () => NOW });

describe('urlNotifications.publish', () => {
  it('publishes URL_UPDATED for an owned URL, answering without latestUpdate as Google now does, and records it', async () => {
    const url = 'https://www.example.com/jobs/new-role';
    const { data } = await kit.idx.urlNotifications.publish({ requestBody: { url, type: 'URL_UPDATED' } });
    expect(data).toEqual({ urlNotificationMetadata: { url } });
    expect(kit.emulator.state.notifications.get(url)).toEqual({
      url,
      latestUpdate: { url, type: 'URL_UPDATED', notifyTime: NOW.toISOString() },
    });
    expect(kit.emulator.apiRequests().at(-1)).toMatchObject({
      method: 'POST',
      rawPath: '/v3/urlNotifications:publish',
      route: 'urlNotifications.publish',
      body: { url, type: 'URL_UPDATED' },
      status: 200,
    });
  });

  it('in history mode echoes the metadata, keeping the latest update and the latest removal side by side', async () => {
    kit.emulator.setIndexingBehaviour({ forgetful: false });
    const url = 'https://www.example.com/jobs/senior-engineer';
    const { data } = await kit.idx.urlNotifications.publish({ requestBody: { url, type: 'URL_DELETED' } });
    expect(data.urlNotificationMetadata!.latestRemove).toEqual({ url, type: 'URL_DELETED', notifyTime: NOW.toISOString() });
    expect(data.urlNotificationMetadata!.latestUpdate!.type).toBe('URL_UPDATED');
  });

  it('echoes the metadata when asked to, even while getMetadata forgets', async () => {
    kit.emulator.setIndexingBehaviour({ publishEchoesMetadata: true });
    const url = 'https://www.example.com/jobs/echo';
    const { data } = await kit.idx.urlNotifications.publish({ requestBody: { url, type: 'URL_UPDATED' } });
    expect(data.urlNotificationMetadata!.latestUpdate).toEqual({ url, type: 'URL_UPDATED', notifyTime: NOW.toISOString() });
    expect((await rejection(kit.idx.urlNotifications.getMetadata({ url }, { retry: false }))).status).toBe(404);
  });

  it('refuses a full user (owner required) and a URL under no property, but accepts one an owned property covers', async () => {
    const expected = {
      status: 403,
      data: { error: { code: 403, message: 'Permission denied. Failed to verify the URL ownership.', status: 'PERMISSION_DENIED' } },
    };
    // A full-user property with no owned property above it.
    kit.emulator.state.sites.set('https://store.example.net/', 'siteFullUser');
    expect(
      await rejection(kit.idx.urlNotifications.publish({ requestBody: { url: 'https://store.example.net/x', type: 'URL_UPDATED' } })),
    ).toEqual(expected);
    expect(
      await rejection(kit.idx.urlNotifications.publish({ requestBody: { url: 'https://other.test/x', type: 'URL_UPDATED' } })),
    ).toEqual(expected);
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

const NOT_FOUND = { status: 404, data: { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } } };

describe('urlNotifications.getMetadata', () => {
  it('forgets by default: 404 right after a successful publish, and for the seeded history too', async () => {
    const url = 'https://www.example.com/jobs/just-sent';
    await kit.idx.urlNotifications.publish({ requestBody: { url, type: 'URL_UPDATED' } });
    expect(await rejection(kit.idx.urlNotifications.getMetadata({ url }, { retry: false }))).toEqual(NOT_FOUND);
    expect(
      await rejection(kit.idx.urlNotifications.getMetadata({ url: 'https://www.example.com/jobs/senior-engineer' }, { retry: false })),
    ).toEqual(NOT_FOUND);
    expect(kit.emulator.indexingBehaviour()).toEqual({ forgetful: true, metadataLagMs: Infinity, publishEchoesMetadata: false });
  });

  it('in history mode returns metadata for a notified URL, with the url as an encoded query parameter', async () => {
    kit.emulator.setIndexingBehaviour({ forgetful: false });
    const url = 'https://www.example.com/jobs/senior-engineer';
    const { data } = await kit.idx.urlNotifications.getMetadata({ url });
    expect(data.url).toBe(url);
    expect(data.latestUpdate!.type).toBe('URL_UPDATED');
    const req = kit.emulator.apiRequests().at(-1)!;
    expect(req.rawPath).toBe('/v3/urlNotifications/metadata');
    expect(req.query).toEqual({ url });
  });

  it('with a lag, forgets a notification for that long and then shows it; older history shows at once', async () => {
    let clock = NOW;
    const lagging = await startEmulatorKit({ now: () => clock, indexing: { metadataLagMs: 60000 } });
    try {
      const url = 'https://www.example.com/jobs/lagging';
      const { data } = await lagging.idx.urlNotifications.publish({ requestBody: { url, type: 'URL_UPDATED' } });
      expect(data).toEqual({ urlNotificationMetadata: { url } });
      const meta = (u: string) => lagging.idx.urlNotifications.getMetadata({ url: u }, { retry: false });
      expect(await rejection(meta(url))).toEqual(NOT_FOUND);
      await expect(meta('https://www.example.com/jobs/closed-role')).resolves.toMatchObject({
        data: { latestRemove: { type: 'URL_DELETED' } },
      });
      clock = new Date(NOW.getTime() + 60000);
      await expect(meta(url)).resolves.toMatchObject({
        data: { url, latestUpdate: { type: 'URL_UPDATED', notifyTime: NOW.toISOString() } },
      });
      // A new notification hides the URL again for the lag.
      await lagging.idx.urlNotifications.publish({ requestBody: { url, type: 'URL_DELETED' } });
      expect(await rejection(meta(url))).toEqual(NOT_FOUND);
    } finally {
      await lagging.emulator.close();
    }
  });

  it('answers 404 NOT_FOUND for a URL never notified, in every mode', async () => {
    kit.emulator.setIndexingBehaviour({ forgetful: false });
    expect(await rejection(kit.idx.urlNotifications.getMetadata({ url: 'https://www.example.com/never' }, { retry: false }))).toEqual(
      NOT_FOUND,
    );
  });

  it('takes its behaviour over HTTP too, and reset() returns to the start options', async () => {
    const post = (body: unknown) =>
      fetch(`${kit.emulator.url}/__emulator/indexing`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const res = await post({ forgetful: false });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ forgetful: false, metadataLagMs: 'Infinity', publishEchoesMetadata: true });
    await expect(kit.idx.urlNotifications.getMetadata({ url: 'https://www.example.com/jobs/senior-engineer' })).resolves.toMatchObject({
      status: 200,
    });
    expect((await post({ forgetful: 'no' })).status).toBe(400);
    kit.emulator.reset();
    expect(kit.emulator.indexingBehaviour().forgetful).toBe(true);
  });
});

describe('indexing quotas', () => {
  const projectNumber = () => kit.emulator.projectNumber('emulator-project');

  it('answers publishPerDay and metadataPerMinute with the Service Infrastructure 429 that names the limit', async () => {
    let clock = new Date('2026-11-30T20:30:00Z');
    const small = await startEmulatorKit({ now: () => clock, quotas: { publishPerDay: 2, metadataPerMinute: 1 } });
    try {
      const publish = () =>
        small.idx.urlNotifications.publish({ requestBody: { url: 'https://www.example.com/jobs/a', type: 'URL_UPDATED' } });
      await publish();
      await publish();
      const e = await rejection(publish());
      const n = projectNumber();
      expect(e).toEqual({
        status: 429,
        data: {
          error: {
            code: 429,
            message: `Quota exceeded for quota metric 'Publish requests' and limit 'Publish requests per day' of service 'indexing.googleapis.com' for consumer 'project_number:${n}'.`,
            status: 'RESOURCE_EXHAUSTED',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'RATE_LIMIT_EXCEEDED',
                domain: 'googleapis.com',
                metadata: expect.objectContaining({
                  service: 'indexing.googleapis.com',
                  consumer: `projects/${n}`,
                  quota_limit: 'DefaultPublishRequestsPerDayPerProject',
                  quota_limit_value: '2',
                }),
              },
              {
                '@type': 'type.googleapis.com/google.rpc.Help',
                links: [{ description: 'Request a higher quota limit.', url: expect.any(String) }],
              },
            ],
          },
        },
      });
      clock = new Date('2026-12-01T08:00:01Z'); // just past Pacific midnight
      await expect(publish()).resolves.toMatchObject({ status: 200 });

      const meta = () => small.idx.urlNotifications.getMetadata({ url: 'https://www.example.com/jobs/a' }, { retry: false });
      expect((await rejection(meta())).status).toBe(404); // forgetful, but counted
      const m = await rejection(meta());
      expect(m.data).toMatchObject({
        error: {
          code: 429,
          message: expect.stringContaining("limit 'Metadata requests per minute'"),
          details: [{ metadata: { quota_limit_value: '1' } }, {}],
        },
      });
    } finally {
      await small.emulator.close();
    }
  });

  it('counts publish and getMetadata together against indexingPerMinute', async () => {
    const small = await startEmulatorKit({ now: () => NOW, quotas: { indexingPerMinute: 2 } });
    try {
      await small.idx.urlNotifications.publish({ requestBody: { url: 'https://www.example.com/jobs/a', type: 'URL_UPDATED' } });
      await rejection(small.idx.urlNotifications.getMetadata({ url: 'https://www.example.com/jobs/a' }, { retry: false }));
      const e = await rejection(
        small.idx.urlNotifications.publish({ requestBody: { url: 'https://www.example.com/jobs/b', type: 'URL_UPDATED' } }),
      );
      expect(e.status).toBe(429);
      expect(e.data.error.message).toContain("limit 'Requests per minute'");
      expect(e.data.error.details[0].metadata.quota_limit).toBe('DefaultRequestsPerMinutePerProject');
    } finally {
      await small.emulator.close();
    }
  });
});
