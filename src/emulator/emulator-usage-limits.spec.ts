import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { rejection, startEmulatorKit, type EmulatorKit } from '../../test/support/emulator-kit.js';
import type { FaultPreset, RouteName } from './emulator-types.js';

const NOW = new Date('2026-11-30T20:30:00Z');
let kit: EmulatorKit;
let n: string; // the project number Google names for the kit's service account (project "emulator-project")

beforeAll(async () => {
  kit = await startEmulatorKit({ now: () => NOW });
  n = kit.emulator.projectNumber('emulator-project');
});
afterAll(() => kit.emulator.close());
beforeEach(() => kit.emulator.reset());

const JOB = 'https://www.example.com/jobs/senior-engineer';
const calls: Record<
  | 'sites.list'
  | 'searchanalytics.query'
  | 'urlInspection.index.inspect'
  | 'urlNotifications.publish'
  | 'urlNotifications.getMetadata'
  | 'webResource.list',
  () => Promise<unknown>
> = {
  'sites.list': () => kit.sc.sites.list({}, { retry: false }),
  'searchanalytics.query': () =>
    kit.sc.searchanalytics.query({ siteUrl: SEED_PROPERTIES.owned, requestBody: { startDate: '2026-11-01', endDate: '2026-11-02' } }),
  'urlInspection.index.inspect': () =>
    kit.sc.urlInspection.index.inspect({ requestBody: { inspectionUrl: 'https://www.example.com/', siteUrl: SEED_PROPERTIES.owned } }),
  'urlNotifications.publish': () => kit.idx.urlNotifications.publish({ requestBody: { url: JOB, type: 'URL_UPDATED' } }),
  'urlNotifications.getMetadata': () => kit.idx.urlNotifications.getMetadata({ url: JOB }, { retry: false }),
  'webResource.list': () => kit.sv.list({}, { retry: false }),
};
const failing = (route: keyof typeof calls) =>
  calls[route]().then(
    () => {
      throw new Error(`${route} succeeded`);
    },
    (e: { status: number; message: string; response: { data: any } }) => ({ status: e.status, message: e.message, data: e.response.data }),
  );

describe('SERVICE_DISABLED: an API not enabled in the project', () => {
  const expectedMessage = (title: string, service: string) =>
    `${title} has not been used in project ${n} before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/${service}/overview?project=${n} then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.`;

  it('answers a legacy route with errors[] usageLimits/accessNotConfigured and the ErrorInfo, LocalizedMessage and Help details', async () => {
    kit.emulator.injectFault({ route: 'sites.list', preset: 'service_disabled' });
    const e = await failing('sites.list');
    const message = expectedMessage('Google Search Console API', 'searchconsole.googleapis.com');
    const url = `https://console.developers.google.com/apis/api/searchconsole.googleapis.com/overview?project=${n}`;
    expect(e).toEqual({
      status: 403,
      message,
      data: {
        error: {
          code: 403,
          message,
          errors: [
            { message, domain: 'usageLimits', reason: 'accessNotConfigured', extendedHelp: 'https://console.developers.google.com' },
          ],
          status: 'PERMISSION_DENIED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'SERVICE_DISABLED',
              domain: 'googleapis.com',
              metadata: {
                activationUrl: url,
                consumer: `projects/${n}`,
                containerInfo: n,
                service: 'searchconsole.googleapis.com',
                serviceTitle: 'Google Search Console API',
              },
            },
            { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
            { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Google developers console API activation', url }] },
          ],
        },
      },
    });
    expect(n).toMatch(/^\d{12}$/);
  });

  it('answers a One Platform route (Indexing) without errors[], naming the Indexing API', async () => {
    kit.emulator.injectFault({ route: 'urlNotifications.publish', preset: 'service_disabled' });
    const e = await failing('urlNotifications.publish');
    expect(e.status).toBe(403);
    expect(e.data.error).not.toHaveProperty('errors');
    expect(e.data.error).toMatchObject({
      code: 403,
      message: expectedMessage('Web Search Indexing API', 'indexing.googleapis.com'),
      status: 'PERMISSION_DENIED',
    });
    expect(e.data.error.details[0]).toMatchObject({
      reason: 'SERVICE_DISABLED',
      metadata: { service: 'indexing.googleapis.com', consumer: `projects/${n}` },
    });
    expect(kit.emulator.state.notifications.get(JOB)!.latestUpdate!.notifyTime).not.toBe(NOW.toISOString()); // nothing was published
  });

  it('is an emulator option: every route of a switched-off API answers it, the other APIs work, reset() keeps the option', async () => {
    const off = await startEmulatorKit({ now: () => NOW, disabledServices: ['indexing.googleapis.com'] });
    try {
      for (const call of [
        () => off.idx.urlNotifications.publish({ requestBody: { url: JOB, type: 'URL_UPDATED' } }),
        () => off.idx.urlNotifications.getMetadata({ url: JOB }, { retry: false }),
      ]) {
        const e = await rejection(call());
        expect(e.status).toBe(403);
        expect(e.data.error.details[0].reason).toBe('SERVICE_DISABLED');
      }
      await expect(off.sc.sites.list()).resolves.toMatchObject({ status: 200 });
      off.emulator.setServiceEnabled('indexing.googleapis.com', true);
      await expect(off.idx.urlNotifications.publish({ requestBody: { url: JOB, type: 'URL_UPDATED' } })).resolves.toMatchObject({
        status: 200,
      });
      off.emulator.reset();
      expect(off.emulator.disabledServices()).toEqual(['indexing.googleapis.com']);
      // Authentication comes first: a bad token is still 401.
      const res = await fetch(`${off.emulator.url}/v3/urlNotifications/metadata?url=x`, { headers: { authorization: 'Bearer nope' } });
      expect(res.status).toBe(401);
    } finally {
      await off.emulator.close();
    }
  });

  it('can be switched over HTTP', async () => {
    const post = (body: unknown) =>
      fetch(`${kit.emulator.url}/__emulator/services`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(await (await post({ service: 'searchconsole.googleapis.com', enabled: false })).json()).toEqual({
      disabled: ['searchconsole.googleapis.com'],
    });
    expect((await failing('searchanalytics.query')).data.error.errors[0].reason).toBe('accessNotConfigured');
    expect((await failing('urlInspection.index.inspect')).data.error.details[0].reason).toBe('SERVICE_DISABLED');
    await expect(kit.idx.urlNotifications.publish({ requestBody: { url: JOB, type: 'URL_UPDATED' } })).resolves.toMatchObject({
      status: 200,
    });
    expect((await post({ service: 'searchconsole.googleapis.com' })).status).toBe(400);
    const number = await (await fetch(`${kit.emulator.url}/__emulator/project-number?project=emulator-project`)).json();
    expect(number).toEqual({ projectNumber: n });
  });

  it('also comes in the older "Access Not Configured" form, without status or details', async () => {
    kit.emulator.injectFault({ route: 'webResource.list', preset: 'access_not_configured' });
    const e = await failing('webResource.list');
    const url = `https://console.developers.google.com/apis/api/siteverification.googleapis.com/overview?project=${n}`;
    const message = `Access Not Configured. ${expectedMessage('Google Site Verification API', 'siteverification.googleapis.com')}`;
    expect(e.data).toEqual({
      error: { code: 403, message, errors: [{ message, domain: 'usageLimits', reason: 'accessNotConfigured', extendedHelp: url }] },
    });
  });
});

describe('403 that is quota, not permission', () => {
  const cases: Array<[FaultPreset, string, RegExp]> = [
    ['quota_exceeded', 'quotaExceeded', /^Quota exceeded$/],
    [
      'daily_limit_exceeded',
      'dailyLimitExceeded',
      /^Daily Limit Exceeded\. The quota will be reset at midnight Pacific Time \(PT\)\. .*quotas\?project=\d{12}$/,
    ],
    [
      'rate_limit_exceeded',
      'rateLimitExceeded',
      /^Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user' of service 'searchconsole\.googleapis\.com' for consumer 'project_number:\d{12}'\.$/,
    ],
    ['user_rate_limit_exceeded', 'userRateLimitExceeded', /^User Rate Limit Exceeded$/],
  ];

  it.each(cases)('%s: 403 with errors[].domain usageLimits and reason %s', async (preset, reason, message) => {
    kit.emulator.injectFault({ route: 'searchanalytics.query', preset });
    const e = await failing('searchanalytics.query');
    expect(e.status).toBe(403);
    expect(e.message).toMatch(message);
    expect(e.data.error.errors).toEqual([expect.objectContaining({ domain: 'usageLimits', reason, message: e.message })]);
  });

  it('rate_limit_exceeded carries the RATE_LIMIT_EXCEEDED ErrorInfo Google sends with it; the older forms carry none', async () => {
    kit.emulator.injectFault({ route: 'sites.list', preset: 'rate_limit_exceeded' });
    kit.emulator.injectFault({ route: 'sites.list', preset: 'daily_limit_exceeded' });
    const rate = await failing('sites.list');
    expect(rate.data.error).toMatchObject({
      status: 'PERMISSION_DENIED',
      details: [{ reason: 'RATE_LIMIT_EXCEEDED', metadata: { consumer: `projects/${n}` } }, { links: [{}] }],
    });
    const daily = await failing('sites.list');
    expect(daily.data.error).not.toHaveProperty('details');
    expect(daily.data.error.errors[0].extendedHelp).toBe(
      `https://console.developers.google.com/apis/api/searchconsole.googleapis.com/quotas?project=${n}`,
    );
  });

  it('on One Platform routes the reason is invisible: no errors[], status PERMISSION_DENIED', async () => {
    kit.emulator.injectFault({ route: 'urlInspection.index.inspect', preset: 'daily_limit_exceeded' });
    const e = await failing('urlInspection.index.inspect');
    expect(e.data.error).toEqual({ code: 403, message: expect.stringMatching(/^Daily Limit Exceeded/), status: 'PERMISSION_DENIED' });
  });

  it('keeps a custom message, and lasts `times`', async () => {
    kit.emulator.injectFault({ route: 'sites.list', preset: 'quota_exceeded', message: 'Quota exceeded for this site.', times: 2 });
    expect((await failing('sites.list')).data.error).toMatchObject({
      message: 'Quota exceeded for this site.',
      errors: [{ reason: 'quotaExceeded' }],
    });
    expect((await failing('sites.list')).status).toBe(403);
    await expect(kit.sc.sites.list()).resolves.toMatchObject({ status: 200 });
  });
});

describe('resource_exhausted: the route’s own 429', () => {
  const legacy = {
    code: 429,
    message: 'Rate Limit Exceeded',
    errors: [{ message: 'Rate Limit Exceeded', domain: 'usageLimits', reason: 'rateLimitExceeded' }],
    status: 'RESOURCE_EXHAUSTED',
  };
  const cases: Array<[keyof typeof calls & RouteName, (n: string) => unknown]> = [
    [
      'urlInspection.index.inspect',
      () => ({ code: 429, message: `Quota exceeded for ${SEED_PROPERTIES.owned}.`, status: 'RESOURCE_EXHAUSTED' }),
    ],
    ['searchanalytics.query', () => legacy],
    ['sites.list', () => legacy],
    ['webResource.list', () => legacy],
    [
      'urlNotifications.publish',
      (n) =>
        expect.objectContaining({
          message: `Quota exceeded for quota metric 'Publish requests' and limit 'Publish requests per day' of service 'indexing.googleapis.com' for consumer 'project_number:${n}'.`,
        }),
    ],
    [
      'urlNotifications.getMetadata',
      () => expect.objectContaining({ message: expect.stringContaining("limit 'Metadata requests per minute'") }),
    ],
  ];

  it.each(cases)('%s', async (route, body) => {
    kit.emulator.injectFault({ route, preset: 'resource_exhausted' });
    const e = await failing(route);
    expect(e.status).toBe(429);
    expect(e.data.error).toEqual(body(n));
  });
});
