import { describe, expect, it } from '@jest/globals';
import { UserFacingError } from '../common/user-facing-error.js';
import { FakeGoogle, googleError } from '../google/google-service.fake.js';
import { VerificationService } from './verification.service.js';

const DOMAIN = 'sc-domain:example.com';
const RESOURCE = { id: 'dns%3A%2F%2Fexample.com', site: { type: 'INET_DOMAIN', identifier: 'example.com' }, owners: ['a@example.com'] };

describe('VerificationService', () => {
  it('token: asks for the default method of the property and says where the record goes', async () => {
    const google = new FakeGoogle().on('webResource.getToken', { method: 'DNS_TXT', token: 'google-site-verification=abc' });
    const token = await new VerificationService(google.service).token(DOMAIN);
    expect(token).toMatchObject({
      method: 'DNS_TXT',
      token: 'google-site-verification=abc',
      record: { type: 'TXT', value: 'google-site-verification=abc' },
    });
    expect(google.calls[0].args).toEqual([{ site: { type: 'INET_DOMAIN', identifier: 'example.com' }, verificationMethod: 'DNS_TXT' }]);
  });

  it('token: an answer without a token is an error, not an empty token', async () => {
    const google = new FakeGoogle().on('webResource.getToken', { method: 'DNS_TXT' });
    await expect(new VerificationService(google.service).token(DOMAIN)).rejects.toThrow(
      /^Google returned no DNS_TXT token for sc-domain:example\.com\. Nothing was changed\./,
    );
  });

  it('token: refuses a method that cannot verify the property before anything is sent', async () => {
    const google = new FakeGoogle();
    await expect(new VerificationService(google.service).token(DOMAIN, 'META')).rejects.toThrow(UserFacingError);
    expect(google.calls).toHaveLength(0);
  });

  it('verify: Google’s 400 (token not found) becomes the "not there yet" sentence; other failures pass', async () => {
    const notFound = googleError('invalid', {
      status: 400,
      googleMessage: 'The necessary verification token could not be found on your site.',
    });
    const failing = new VerificationService(new FakeGoogle().fail('webResource.insert', notFound).service);
    await expect(failing.verify(DOMAIN, 'DNS_TXT')).rejects.toThrow(
      /^Google could not verify ownership of sc-domain:example\.com with DNS_TXT: "The necessary verification token could not be found on your site\."\. .*Nothing was changed\./,
    );
    const disabled = googleError('service_disabled', { status: 403 });
    await expect(
      new VerificationService(new FakeGoogle().fail('webResource.insert', disabled).service).verify(DOMAIN, 'DNS_TXT'),
    ).rejects.toBe(disabled);
  });

  it('replaceOwners PUTs the whole resource with the new owners; patchOwners sends only the owners', async () => {
    const google = new FakeGoogle()
      .on('webResource.update', { ...RESOURCE, owners: ['b@example.com'] })
      .on('webResource.patch', { ...RESOURCE, owners: ['c@example.com'] });
    const service = new VerificationService(google.service);
    const current = { id: RESOURCE.id, type: 'INET_DOMAIN', identifier: 'example.com', property: DOMAIN, owners: ['a@example.com'] };
    expect((await service.replaceOwners('dns://example.com', current, ['b@example.com'])).owners).toEqual(['b@example.com']);
    expect((await service.patchOwners('dns://example.com', ['c@example.com'], DOMAIN)).owners).toEqual(['c@example.com']);
    expect(google.calls.map((c) => [c.op.method, c.args])).toEqual([
      ['webResource.update', ['dns://example.com', { id: RESOURCE.id, site: RESOURCE.site, owners: ['b@example.com'] }]],
      ['webResource.patch', ['dns://example.com', { owners: ['c@example.com'] }]],
    ]);
  });
});
