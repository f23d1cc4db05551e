import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { OAuth2Client } from 'google-auth-library';
import { createAPIRequest } from 'googleapis-common';
import { IndexingClient } from './indexing.client.js';
import { reply, ScriptedGoogle } from './scripted-google.fake.js';

// The raw requests @googleapis/indexing 6.0.1 sent for the same calls (recorded
// before it was replaced; briefs/google.md §1.2, §5.3): same verbs, paths,
// query encoding and JSON body.
const URL_WITH_EVERYTHING = 'https://e.com/a b/ü?x=1&y=#f';

describe('IndexingClient (the two Indexing v3 methods on googleapis-common)', () => {
  let google: ScriptedGoogle;
  let client: IndexingClient;
  beforeAll(async () => {
    google = await ScriptedGoogle.start();
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: 'ya29.static', expiry_date: Date.now() + 3_600_000 });
    client = new IndexingClient({ auth, rootUrl: `${google.url}/`, retry: false }, createAPIRequest);
  });
  afterAll(() => google.close());
  beforeEach(() => google.reset());

  it('publish: POST /v3/urlNotifications:publish with the notification as JSON', async () => {
    google.api(
      reply.json(200, {
        urlNotificationMetadata: { url: URL_WITH_EVERYTHING, latestUpdate: { type: 'URL_UPDATED', notifyTime: '2026-12-01T08:00:00Z' } },
      }),
    );
    const { data } = await client.urlNotifications.publish({ requestBody: { url: URL_WITH_EVERYTHING, type: 'URL_UPDATED' } });
    expect(data.urlNotificationMetadata?.latestUpdate?.notifyTime).toBe('2026-12-01T08:00:00Z');
    expect(google.apiRequests()).toEqual([
      { method: 'POST', path: '/v3/urlNotifications:publish', body: JSON.stringify({ url: URL_WITH_EVERYTHING, type: 'URL_UPDATED' }) },
    ]);
  });

  it('getMetadata: GET /v3/urlNotifications/metadata with the URL percent-encoded in the query', async () => {
    google.api(reply.json(200, { url: URL_WITH_EVERYTHING }));
    const { data } = await client.urlNotifications.getMetadata({ url: URL_WITH_EVERYTHING });
    expect(data).toEqual({ url: URL_WITH_EVERYTHING });
    expect(google.apiRequests()).toEqual([
      { method: 'GET', path: '/v3/urlNotifications/metadata?url=https%3A%2F%2Fe.com%2Fa%20b%2F%C3%BC%3Fx%3D1%26y%3D%23f', body: '' },
    ]);
  });

  it('sends the bearer token and rejects with a GaxiosError carrying Google’s body', async () => {
    google.api(reply.json(404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } }));
    const failure = (await client.urlNotifications.getMetadata({ url: 'https://e.com/never' }).catch((e: unknown) => e)) as {
      status: number;
      response: { data: unknown };
    };
    expect(failure.status).toBe(404);
    expect(failure.response.data).toEqual({ error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
  });

  it('takes per-call options like the generated client (a rootUrl with a path keeps it)', async () => {
    await client.urlNotifications.getMetadata({ url: 'https://e.com/' }, { rootUrl: `${google.url}/prefix/` });
    expect(google.apiRequests()[0].path).toBe('/prefix/v3/urlNotifications/metadata?url=https%3A%2F%2Fe.com%2F');
  });
});
