import { describe, expect, it } from '@jest/globals';
import { FakeGoogle, googleError } from '../google/google-service.fake.js';
import { VerificationService } from '../verification/verification.service.js';
import { SitesService } from './sites.service.js';

const PROPERTY = 'https://www.example.com/';
const sites = (google: FakeGoogle) => new SitesService(google.service, new VerificationService(google.service));

describe('SitesService', () => {
  it('list: {} (Google omits an empty siteEntry) is no properties; entries keep their level', async () => {
    expect(await sites(new FakeGoogle().on('sites.list', {})).list()).toEqual([]);
    const google = new FakeGoogle().on('sites.list', { siteEntry: [{ siteUrl: PROPERTY, permissionLevel: 'siteFullUser' }] });
    expect(await sites(google).list()).toEqual([{ siteUrl: PROPERTY, permissionLevel: 'siteFullUser' }]);
    expect(google.calls[0]).toMatchObject({ op: { method: 'sites.list' }, args: [{}] });
  });

  it('get, add and delete send the property as siteUrl', async () => {
    const google = new FakeGoogle().on('sites.get', { siteUrl: PROPERTY, permissionLevel: 'siteOwner' });
    const service = sites(google);
    expect(await service.get(PROPERTY)).toEqual({ siteUrl: PROPERTY, permissionLevel: 'siteOwner' });
    await service.add(PROPERTY);
    await service.delete(PROPERTY);
    expect(google.calls.map((c) => [c.op.method, c.op.property, c.args])).toEqual([
      ['sites.get', PROPERTY, [{ siteUrl: PROPERTY }]],
      ['sites.add', PROPERTY, [{ siteUrl: PROPERTY }]],
      ['sites.delete', PROPERTY, [{ siteUrl: PROPERTY }]],
    ]);
  });

  it.each(['permission', 'not_found'] as const)(
    'setupStatus reads a %s refusal of sites.get as "not in this account" and fetches a token',
    async (kind) => {
      const google = new FakeGoogle()
        .fail('sites.get', googleError(kind, { status: kind === 'permission' ? 403 : 404 }))
        .on('webResource.list', {})
        .on('webResource.getToken', { method: 'META', token: '<meta name="google-site-verification" content="abc" />' });
      const status = await sites(google).setupStatus(PROPERTY);
      expect(status.site).toBeUndefined();
      expect(status.token?.method).toBe('META');
      expect(google.calls[2].args).toEqual([{ site: { type: 'SITE', identifier: PROPERTY }, verificationMethod: 'META' }]);
    },
  );

  it.each(['scope', 'service_disabled', 'quota', 'credential'] as const)(
    'setupStatus does not mistake a %s failure of sites.get for absence',
    async (kind) => {
      const error = googleError(kind, { status: 403 });
      const google = new FakeGoogle().fail('sites.get', error).on('webResource.list', {});
      await expect(sites(google).setupStatus(PROPERTY)).rejects.toBe(error);
    },
  );

  it('setupStatus keeps the token failure as text beside what it found', async () => {
    const google = new FakeGoogle()
      .on('sites.get', { siteUrl: PROPERTY, permissionLevel: 'siteUnverifiedUser' })
      .on('webResource.list', {})
      .fail('webResource.getToken', googleError('quota', { status: 403, quota: { window: 'day' } }, 'Google’s daily quota is exhausted.'));
    const status = await sites(google).setupStatus(PROPERTY);
    expect(status).toMatchObject({ site: { permissionLevel: 'siteUnverifiedUser' }, tokenError: 'Google’s daily quota is exhausted.' });
  });

  it('setupStatus asks for no token when a verified resource covers the property', async () => {
    const google = new FakeGoogle().on('sites.get', { siteUrl: PROPERTY, permissionLevel: 'siteFullUser' }).on('webResource.list', {
      items: [{ id: 'dns%3A%2F%2Fexample.com', site: { type: 'INET_DOMAIN', identifier: 'example.com' }, owners: ['a@example.com'] }],
    });
    const status = await sites(google).setupStatus(PROPERTY);
    expect(status.verifiedBy?.property).toBe('sc-domain:example.com');
    expect(google.ops.map((op) => op.method)).not.toContain('webResource.getToken');
  });
});
