import { describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { startEmulatorKit, useEmulatorKit } from '../../test/support/emulator-kit.js';
import { SCOPES } from './emulator-routing.js';

const NOW = new Date('2026-11-30T20:30:00Z');
const kit = useEmulatorKit({ now: () => NOW });

const lastApi = () => kit.emulator.apiRequests().at(-1)!;
const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    const e = err as { status: number; message: string; response: { data: { error: Record<string, unknown> } } };
    return { status: e.status, message: e.message, error: e.response.data.error };
  }
  throw new Error('expected the call to fail');
};

describe('sites', () => {
  it('lists every property with camelCase permission levels', async () => {
    const { data } = await kit.sc.sites.list();
    expect(data.siteEntry).toContainEqual({ siteUrl: 'https://www.example.com/', permissionLevel: 'siteOwner' });
    expect(data.siteEntry).toContainEqual({ siteUrl: 'sc-domain:example.org', permissionLevel: 'siteRestrictedUser' });
    expect(data.siteEntry).toContainEqual({ siteUrl: 'http://legacy.example.net/', permissionLevel: 'siteUnverifiedUser' });
    expect(lastApi()).toMatchObject({ method: 'GET', rawPath: '/webmasters/v3/sites', route: 'sites.list', status: 200 });
  });

  it('answers {} when there are no properties (Google omits empty arrays)', async () => {
    kit.emulator.state.sites.clear();
    const { data } = await kit.sc.sites.list();
    expect(data).toEqual({});
  });

  it('gets a property through a percent-encoded single path segment', async () => {
    const { data } = await kit.sc.sites.get({ siteUrl: 'https://www.example.com/' });
    expect(data).toEqual({ siteUrl: 'https://www.example.com/', permissionLevel: 'siteOwner' });
    expect(lastApi().rawPath).toBe('/webmasters/v3/sites/https%3A%2F%2Fwww.example.com%2F');
    expect(lastApi().params).toEqual({ siteUrl: 'https://www.example.com/' });

    await kit.sc.sites.get({ siteUrl: 'sc-domain:example.com' });
    expect(lastApi().rawPath).toBe('/webmasters/v3/sites/sc-domain%3Aexample.com');
  });

  it('refuses a near-miss spelling with the exact 403 Google sends', async () => {
    const e = await errorOf(kit.sc.sites.get({ siteUrl: 'https://www.example.com' }));
    expect(e.status).toBe(403);
    expect(e.message).toBe(
      "User does not have sufficient permission for site 'https://www.example.com'. See also: https://support.google.com/webmasters/answer/2451999.",
    );
    expect(e.error).toEqual({
      code: 403,
      message: e.message,
      errors: [
        { message: "User does not have sufficient permission for site 'https://www.example.com'.", domain: 'global', reason: 'forbidden' },
      ],
      status: 'PERMISSION_DENIED',
    });
  });

  it('keeps reserved characters inside one segment (no %2F splitting)', async () => {
    const odd = 'https://example.com/a b/ü?x=1#f';
    const e = await errorOf(kit.sc.sites.get({ siteUrl: odd }));
    expect(e.status).toBe(403);
    expect(lastApi().rawPath).toBe('/webmasters/v3/sites/https%3A%2F%2Fexample.com%2Fa%20b%2F%C3%BC%3Fx%3D1%23f');
    expect(lastApi().params.siteUrl).toBe(odd);
  });

  it('adds a property: unverified unless the caller owns a verification covering it', async () => {
    const add = await kit.sc.sites.add({ siteUrl: 'https://new.example.io/' });
    expect(add.status).toBe(200);
    expect(add.data).toBe('');
    expect(kit.emulator.state.sites.get('https://new.example.io/')).toBe('siteUnverifiedUser');

    // docs.example.com is verified by owner@example.com, not by this service account.
    await kit.sc.sites.add({ siteUrl: 'https://docs.example.com/' });
    expect(kit.emulator.state.sites.get('https://docs.example.com/')).toBe('siteOwner'); // covered by owned sc-domain:example.com

    kit.emulator.state.resources.set('dns://example.io', {
      id: 'dns%3A%2F%2Fexample.io',
      site: { type: 'INET_DOMAIN', identifier: 'example.io' },
      owners: [kit.key.client_email],
    });
    await kit.sc.sites.add({ siteUrl: 'sc-domain:example.io' });
    expect(kit.emulator.state.sites.get('sc-domain:example.io')).toBe('siteOwner');
  });

  it('refuses a URL-prefix property without its trailing slash', async () => {
    const e = await errorOf(kit.sc.sites.add({ siteUrl: 'https://new.example.io' }, { retry: false }));
    expect(e.status).toBe(400);
    expect(e.error.errors).toEqual([expect.objectContaining({ reason: 'invalidParameter' })]);
  });

  it('deletes a property (204, empty) and 404s when it is not listed', async () => {
    const del = await kit.sc.sites.delete({ siteUrl: SEED_PROPERTIES.blog });
    expect(del.status).toBe(204);
    expect(kit.emulator.state.sites.has(SEED_PROPERTIES.blog)).toBe(false);
    const e = await errorOf(kit.sc.sites.delete({ siteUrl: SEED_PROPERTIES.blog }, { retry: false }));
    expect(e.status).toBe(404);
    expect(e.error).toMatchObject({ code: 404, status: 'NOT_FOUND', errors: [{ reason: 'notFound', domain: 'global' }] });
  });

  it('needs the webmasters scope to add, readonly is not enough', async () => {
    const ro = kit.clients([SCOPES.webmastersReadonly]);
    await expect(ro.sc.sites.list()).resolves.toMatchObject({ status: 200 });
    const e = await errorOf(ro.sc.sites.add({ siteUrl: 'https://x.example.io/' }, { retry: false }));
    expect(e.status).toBe(403);
    expect(e.error).toMatchObject({
      message: 'Request had insufficient authentication scopes.',
      status: 'PERMISSION_DENIED',
      errors: [{ reason: 'insufficientPermissions', domain: 'global', message: 'Insufficient Permission' }],
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', domain: 'googleapis.com' },
      ],
    });
    expect(kit.emulator.state.sites.has('https://x.example.io/')).toBe(false);
  });
});

describe('sitemaps', () => {
  it('lists submitted sitemaps with int64 fields as strings', async () => {
    const { data } = await kit.sc.sitemaps.list({ siteUrl: SEED_PROPERTIES.owned });
    const paths = data.sitemap!.map((s) => s.path);
    expect(paths).toEqual(
      expect.arrayContaining(['https://www.example.com/sitemap_index.xml', 'https://www.example.com/news-sitemap.xml']),
    );
    expect(paths).not.toContain('https://www.example.com/post-sitemap.xml'); // a child, not submitted
    const news = data.sitemap!.find((s) => s.path!.endsWith('news-sitemap.xml'))!;
    expect(news).toMatchObject({ errors: '2', warnings: '4', isPending: false, isSitemapsIndex: false, type: 'sitemap' });
    // Counted from the seed world: the AMP launch story and the three blog posts (seed-world.ts).
    expect(news.contents).toEqual([
      { type: 'web', submitted: '4', indexed: '0' },
      { type: 'news', submitted: '4', indexed: '0' },
    ]);
    expect(typeof news.lastSubmitted).toBe('string');
    expect(lastApi().rawPath).toBe('/webmasters/v3/sites/https%3A%2F%2Fwww.example.com%2F/sitemaps');
  });

  it("lists an index's children with ?sitemapIndex=", async () => {
    const index = 'https://www.example.com/sitemap_index.xml';
    const { data } = await kit.sc.sitemaps.list({ siteUrl: SEED_PROPERTIES.owned, sitemapIndex: index });
    expect(data.sitemap!.map((s) => s.path).sort()).toEqual([
      'https://www.example.com/page-sitemap.xml',
      'https://www.example.com/post-sitemap.xml',
    ]);
    expect(lastApi().query).toEqual({ sitemapIndex: index });
  });

  it('answers {} for a property without sitemaps', async () => {
    const { data } = await kit.sc.sitemaps.list({ siteUrl: SEED_PROPERTIES.subPath });
    expect(data).toEqual({});
  });

  it('gets one sitemap (two encoded segments) and 404s an unknown one', async () => {
    const { data } = await kit.sc.sitemaps.get({ siteUrl: SEED_PROPERTIES.owned, feedpath: 'https://www.example.com/sitemap_index.xml' });
    expect(data).toMatchObject({ isSitemapsIndex: true, path: 'https://www.example.com/sitemap_index.xml' });
    expect(lastApi().rawPath).toBe(
      '/webmasters/v3/sites/https%3A%2F%2Fwww.example.com%2F/sitemaps/https%3A%2F%2Fwww.example.com%2Fsitemap_index.xml',
    );
    const e = await errorOf(
      kit.sc.sitemaps.get({ siteUrl: SEED_PROPERTIES.owned, feedpath: 'https://www.example.com/nope.xml' }, { retry: false }),
    );
    expect(e.status).toBe(404);
    expect(e.error.errors).toEqual([expect.objectContaining({ reason: 'notFound' })]);
  });

  it('submits (200, empty body) as pending, then deletes (204) and 404s the second delete', async () => {
    const feedpath = 'https://www.example.com/new-sitemap.xml';
    const submit = await kit.sc.sitemaps.submit({ siteUrl: SEED_PROPERTIES.owned, feedpath });
    expect(submit.status).toBe(200);
    expect(submit.data).toBe('');
    const { data } = await kit.sc.sitemaps.get({ siteUrl: SEED_PROPERTIES.owned, feedpath });
    expect(data).toMatchObject({ path: feedpath, isPending: true, lastSubmitted: NOW.toISOString(), errors: '0', warnings: '0' });

    const del = await kit.sc.sitemaps.delete({ siteUrl: SEED_PROPERTIES.owned, feedpath });
    expect(del.status).toBe(204);
    const e = await errorOf(kit.sc.sitemaps.delete({ siteUrl: SEED_PROPERTIES.owned, feedpath }, { retry: false }));
    expect(e.status).toBe(404);
  });

  it('lets a full user submit but not a restricted user; unverified users see nothing', async () => {
    await expect(
      kit.sc.sitemaps.submit({ siteUrl: SEED_PROPERTIES.fullUser, feedpath: 'https://shop.example.com/extra.xml' }),
    ).resolves.toMatchObject({ status: 200 });
    await expect(kit.sc.sitemaps.list({ siteUrl: SEED_PROPERTIES.restricted })).resolves.toMatchObject({ status: 200 });
    const e = await errorOf(
      kit.sc.sitemaps.submit({ siteUrl: SEED_PROPERTIES.restricted, feedpath: 'https://www.example.org/x.xml' }, { retry: false }),
    );
    expect(e.status).toBe(403);
    const u = await errorOf(kit.sc.sitemaps.list({ siteUrl: SEED_PROPERTIES.unverified }, { retry: false }));
    expect(u.status).toBe(403);
    expect(u.message).toContain("for site 'http://legacy.example.net/'");
    // ...but sites.get still answers for the unverified property.
    await expect(kit.sc.sites.get({ siteUrl: SEED_PROPERTIES.unverified })).resolves.toMatchObject({
      data: { permissionLevel: 'siteUnverifiedUser' },
    });
  });

  it('counts sites/sitemaps calls against the per-user minute and second quotas, with one body for both', async () => {
    let clock = NOW;
    const small = await startEmulatorKit({ now: () => clock, quotas: { otherPerMinutePerUser: 3, otherPerSecondPerUser: 2 } });
    try {
      await small.sc.sites.list();
      await small.sc.sites.list();
      const perSecond = await errorOf(small.sc.sites.list({}, { retry: false }));
      clock = new Date(NOW.getTime() + 1000);
      await small.sc.sites.list();
      const perMinute = await errorOf(small.sc.sites.list({}, { retry: false }));
      for (const e of [perSecond, perMinute]) {
        expect(e.status).toBe(429);
        expect(e.error).toEqual({
          code: 429,
          message: 'Rate Limit Exceeded',
          errors: [{ message: 'Rate Limit Exceeded', domain: 'usageLimits', reason: 'rateLimitExceeded' }],
          status: 'RESOURCE_EXHAUSTED',
        });
      }
      clock = new Date(NOW.getTime() + 60000);
      await expect(small.sc.sites.list()).resolves.toMatchObject({ status: 200 });
    } finally {
      await small.emulator.close();
    }
  });
});
