import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { SCOPES } from './emulator-routing.js';
import { startEmulatorKit, type EmulatorKit, rejection as refused } from '../../test/support/emulator-kit.js';

let kit: EmulatorKit;

beforeAll(async () => {
  kit = await startEmulatorKit({ now: () => new Date('2026-11-30T20:30:00Z') });
});
afterAll(() => kit.emulator.close());
beforeEach(() => kit.emulator.reset());

const lastApi = () => kit.emulator.apiRequests().at(-1)!;
const rejection = (call: Promise<unknown>) =>
  refused(call).then(({ status, data }) => ({ status, error: data.error as Record<string, unknown> }));

describe('webResource.getToken', () => {
  it('returns a DNS TXT record for a domain', async () => {
    const { data } = await kit.sv.getToken({
      requestBody: { site: { type: 'INET_DOMAIN', identifier: 'example.io' }, verificationMethod: 'DNS_TXT' },
    });
    expect(data.method).toBe('DNS_TXT');
    expect(data.token).toMatch(/^google-site-verification=[A-Za-z0-9_-]{43}$/);
    expect(lastApi()).toMatchObject({ method: 'POST', rawPath: '/siteVerification/v1/token', route: 'webResource.getToken' });
  });

  it('returns a meta tag and a file name for sites, stable per caller', async () => {
    const site = { type: 'SITE', identifier: 'https://new.example.io/' };
    const meta = (await kit.sv.getToken({ requestBody: { site, verificationMethod: 'META' } })).data.token;
    expect(meta).toMatch(/^<meta name="google-site-verification" content="[A-Za-z0-9_-]+" \/>$/);
    expect((await kit.sv.getToken({ requestBody: { site, verificationMethod: 'META' } })).data.token).toBe(meta);
    expect((await kit.sv.getToken({ requestBody: { site, verificationMethod: 'FILE' } })).data.token).toMatch(/^google[0-9a-f]{16}\.html$/);
  });

  it.each([
    ['DNS_TXT on a SITE', { type: 'SITE', identifier: 'https://new.example.io/' }, 'DNS_TXT'],
    ['META on a domain', { type: 'INET_DOMAIN', identifier: 'example.io' }, 'META'],
    ['a SITE without its trailing slash', { type: 'SITE', identifier: 'https://new.example.io' }, 'META'],
    ['an unknown method', { type: 'INET_DOMAIN', identifier: 'example.io' }, 'SMOKE_SIGNAL'],
  ])('refuses %s with 400 invalidParameter', async (_name, site, verificationMethod) => {
    const e = await rejection(kit.sv.getToken({ requestBody: { site, verificationMethod } }));
    expect(e.status).toBe(400);
    expect(e.error.errors).toEqual([expect.objectContaining({ reason: 'invalidParameter', domain: 'global' })]);
  });
});

describe('webResource.insert', () => {
  const site = { type: 'INET_DOMAIN' as const, identifier: 'example.io' };

  it("fails with Google's exact 400 when the token was not placed", async () => {
    const e = await rejection(kit.sv.insert({ verificationMethod: 'DNS_TXT', requestBody: { site } }));
    expect(e.status).toBe(400);
    const message = 'The necessary verification token could not be found on your site.';
    expect(e.error).toMatchObject({ code: 400, message, errors: [{ domain: 'global', reason: 'badRequest', message }] });
    expect(kit.emulator.state.resources.has('dns://example.io')).toBe(false);
  });

  it('verifies once the token is placed, returning the percent-encoded id', async () => {
    kit.emulator.placeVerificationToken(site, 'DNS_TXT');
    const { data } = await kit.sv.insert({ verificationMethod: 'DNS_TXT', requestBody: { site } });
    expect(data).toEqual({ id: 'dns%3A%2F%2Fexample.io', site, owners: [kit.key.client_email] });
    expect(lastApi()).toMatchObject({
      rawPath: '/siteVerification/v1/webResource',
      query: { verificationMethod: 'DNS_TXT' },
      route: 'webResource.insert',
    });
  });

  it('makes the caller owner of the listed property it covers', async () => {
    const legacy = { type: 'SITE' as const, identifier: SEED_PROPERTIES.unverified };
    kit.emulator.placeVerificationToken(legacy, 'FILE');
    await kit.sv.insert({ verificationMethod: 'FILE', requestBody: { site: legacy } });
    const { data } = await kit.sc.sites.get({ siteUrl: SEED_PROPERTIES.unverified });
    expect(data.permissionLevel).toBe('siteOwner');
  });

  it('works with the verify_only scope, which cannot list', async () => {
    const vo = kit.clients([SCOPES.siteverificationVerifyOnly]);
    kit.emulator.placeVerificationToken(site, 'DNS_TXT');
    await expect(vo.sv.insert({ verificationMethod: 'DNS_TXT', requestBody: { site } })).resolves.toMatchObject({ status: 200 });
    const e = await rejection(vo.sv.list({}, { retry: false }));
    expect(e.status).toBe(403);
    expect(JSON.stringify(e.error)).toContain('ACCESS_TOKEN_SCOPE_INSUFFICIENT');
  });
});

describe('webResource get/list/update/patch/delete', () => {
  it('gets by the decoded id (sent encoded once) and 404s a double-encoded id', async () => {
    const { data } = await kit.sv.get({ id: 'dns://example.com' });
    expect(data.id).toBe('dns%3A%2F%2Fexample.com');
    expect(lastApi().rawPath).toBe('/siteVerification/v1/webResource/dns%3A%2F%2Fexample.com');
    expect(lastApi().params).toEqual({ id: 'dns://example.com' });

    const e = await rejection(kit.sv.get({ id: data.id }, { retry: false }));
    expect(lastApi().rawPath).toBe('/siteVerification/v1/webResource/dns%253A%252F%252Fexample.com');
    expect(e.status).toBe(404);
    expect(e.error).toMatchObject({ code: 404, errors: [{ reason: 'notFound' }] });

    const site = await kit.sv.get({ id: 'https://www.example.com/' });
    expect(site.data.id).toBe('https%3A%2F%2Fwww.example.com%2F');
  });

  it('lists {items} and {} when there are none', async () => {
    const { data } = await kit.sv.list();
    expect(data.items!.map((r) => r.id)).toContain('dns%3A%2F%2Fexample.com');
    kit.emulator.state.resources.clear();
    expect((await kit.sv.list()).data).toEqual({});
  });

  it('replaces owners with update and patch, and refuses an empty owner list', async () => {
    const id = 'https://blog.example.net/';
    const updated = await kit.sv.update({
      id,
      requestBody: { site: { type: 'SITE', identifier: id }, owners: ['a@example.com', 'b@example.com'] },
    });
    expect(updated.data.owners).toEqual(['a@example.com', 'b@example.com']);
    expect(lastApi()).toMatchObject({ method: 'PUT', route: 'webResource.update' });
    const patched = await kit.sv.patch({ id, requestBody: { owners: ['b@example.com'] } });
    expect(patched.data.owners).toEqual(['b@example.com']);
    const e = await rejection(kit.sv.patch({ id, requestBody: { owners: [] } }));
    expect(e.status).toBe(400);
    expect(kit.emulator.state.resources.get(id)!.owners).toEqual(['b@example.com']);
  });

  it('deleting a domain resource drops every property on that domain to unverified', async () => {
    const del = await kit.sv.delete({ id: 'dns://example.com' });
    expect(del.status).toBe(204);
    const sites = kit.emulator.state.sites;
    expect(sites.get(SEED_PROPERTIES.domain)).toBe('siteUnverifiedUser');
    expect(sites.get(SEED_PROPERTIES.owned)).toBe('siteUnverifiedUser');
    expect(sites.get(SEED_PROPERTIES.fullUser)).toBe('siteUnverifiedUser');
    expect(sites.get(SEED_PROPERTIES.blog)).toBe('siteOwner');
    expect((await rejection(kit.sv.get({ id: 'dns://example.com' }, { retry: false }))).status).toBe(404);
  });

  it('deleting a site resource drops only that property', async () => {
    await kit.sv.delete({ id: 'https://blog.example.net/' });
    expect(kit.emulator.state.sites.get(SEED_PROPERTIES.blog)).toBe('siteUnverifiedUser');
    expect(kit.emulator.state.sites.get(SEED_PROPERTIES.owned)).toBe('siteOwner');
  });
});
