import { describe, expect, it } from '@jest/globals';
import { FakeGoogle, googleError } from '../google/google-service.fake.js';
import { IndexingService } from './indexing.service.js';

const JOB = 'https://e.com/j';

describe('IndexingService.publish', () => {
  it('sends the URL and type to urlNotifications.publish and returns the notification', async () => {
    const google = new FakeGoogle().on('urlNotifications.publish', { urlNotificationMetadata: { url: JOB, latestUpdate: { type: 'URL_UPDATED', notifyTime: 't' } } });
    const meta = await new IndexingService(google.service).publish(JOB, 'URL_UPDATED');
    expect(meta.latestUpdate?.notifyTime).toBe('t');
    expect(google.calls).toEqual([expect.objectContaining({ op: expect.objectContaining({ method: 'urlNotifications.publish' }), args: [{ requestBody: { url: JOB, type: 'URL_UPDATED' } }] })]);
  });

  it('an answer without urlNotificationMetadata (Google sometimes sends one) is the URL alone', async () => {
    const google = new FakeGoogle().on('urlNotifications.publish', {});
    expect(await new IndexingService(google.service).publish(JOB, 'URL_UPDATED')).toEqual({ url: JOB });
  });

  it.each([
    ['unavailable', { status: 500 }, /Google failed with HTTP 500 .* may or may not have recorded it/],
    ['unavailable', { status: 503 }, /HTTP 503/],
    ['network', { code: 'ECONNRESET' }, /The connection to Google failed .* may or may not have recorded it/],
    ['timeout', { code: 'TimeoutError' }, /Google did not answer in time \(GSC_GOOGLE_TIMEOUT_MS\) .* may or may not have recorded it/],
    ['malformed', { status: 200 }, /not a publish response .* may or may not have recorded it/],
  ] as const)('an unknown outcome (%s %j) says so and to check get_indexing_status first', async (kind, facts, says) => {
    const google = new FakeGoogle().fail('urlNotifications.publish', googleError(kind, { ...facts, outcome: 'unknown' }));
    const attempt = new IndexingService(google.service).publish(JOB, 'URL_DELETED');
    await expect(attempt).rejects.toThrow(says);
    await expect(attempt).rejects.toThrow(/URL_DELETED notification for https:\/\/e\.com\/j.*Check with get_indexing_status .* before sending it again/);
  });

  it('a failure that changed nothing keeps GoogleService’s sentence (a token endpoint 500 sent nothing)', async () => {
    const token = googleError('unavailable', { status: 500, phase: 'token' }, 'Google’s OAuth token endpoint failed.');
    await expect(new IndexingService(new FakeGoogle().fail('urlNotifications.publish', token).service).publish(JOB, 'URL_UPDATED')).rejects.toBe(token);
  });

  it('adds the owner rule to a permission refusal, keeping Google’s words', async () => {
    const google = new FakeGoogle().fail('urlNotifications.publish', googleError('permission', { status: 403 }, 'Permission denied.'));
    await expect(new IndexingService(google.service).publish(JOB, 'URL_UPDATED')).rejects.toThrow(/^Permission denied\. The Indexing API accepts calls only from a verified Owner/);
  });

  it.each(['scope', 'quota', 'service_disabled'] as const)('leaves a %s refusal as GoogleService’s sentence', async (kind) => {
    const error = googleError(kind, { status: 403 });
    await expect(new IndexingService(new FakeGoogle().fail('urlNotifications.publish', error).service).publish(JOB, 'URL_UPDATED')).rejects.toBe(error);
  });
});

describe('IndexingService.metadata', () => {
  it('a 404 means Google has no notification history for the URL, not an error', async () => {
    const google = new FakeGoogle().fail('urlNotifications.getMetadata', googleError('not_found', { status: 404 }));
    expect(await new IndexingService(google.service).metadata(JOB)).toBeUndefined();
  });

  it('asks getMetadata for the URL', async () => {
    const google = new FakeGoogle().on('urlNotifications.getMetadata', { url: JOB });
    expect(await new IndexingService(google.service).metadata(JOB)).toEqual({ url: JOB });
    expect(google.calls[0]).toMatchObject({ op: { method: 'urlNotifications.getMetadata' }, args: [{ url: JOB }] });
  });

  it('passes other failures on', async () => {
    const google = new FakeGoogle().fail('urlNotifications.getMetadata', googleError('unavailable', { status: 500 }, 'boom'));
    await expect(new IndexingService(google.service).metadata(JOB)).rejects.toThrow(/^boom$/);
  });
});
