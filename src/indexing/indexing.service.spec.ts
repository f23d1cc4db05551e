import { afterEach, describe, expect, it } from '@jest/globals';
import type { Config } from '../config/config.js';
import { FakeGoogle, googleError } from '../google/google-service.fake.js';
import { ledgerKit, type LedgerKit } from '../../test/support/quota-ledger-kit.js';
import { IndexingRecord } from './indexing-record.service.js';
import { IndexingService } from './indexing.service.js';

const JOB = 'https://e.com/j';
const CONFIG = {
  credential: {
    kind: 'service_account',
    key: { client_email: 'bot@demo-project.iam.gserviceaccount.com', private_key: '', project_id: 'demo-project' },
    origin: 'GSC_SERVICE_ACCOUNT_KEY',
  },
} as unknown as Config;
const projectScope = { kind: 'publish', project: 'demo-project' } as const;

let kit: LedgerKit;
afterEach(async () => {
  await kit?.dispose();
});

/** The service on a real ledger and record (SQLite in a temporary folder). */
function indexing(google: FakeGoogle): IndexingService {
  kit = ledgerKit('2026-03-02T18:00:00Z');
  return new IndexingService(google.service, new IndexingRecord(kit.store), kit.ledger, kit.clock, CONFIG);
}

describe('IndexingService.publish', () => {
  it('sends the URL and type to urlNotifications.publish and returns the notification', async () => {
    const google = new FakeGoogle().on('urlNotifications.publish', {
      urlNotificationMetadata: { url: JOB, latestUpdate: { type: 'URL_UPDATED', notifyTime: 't' } },
    });
    const published = await indexing(google).publish(JOB, 'URL_UPDATED', 'alice@corp.example');
    expect(published.metadata.latestUpdate?.notifyTime).toBe('t');
    expect(published.record).toEqual({
      url: JOB,
      type: 'URL_UPDATED',
      principal: 'alice@corp.example',
      outcome: 'accepted',
      google_notify_time: 't',
      sent_at: '2026-03-02T18:00:00.000Z',
    });
    expect(published.quota!.day).toMatchObject({ used: 1, limit: 200, remaining: 199 });
    expect(google.calls).toEqual([
      expect.objectContaining({
        op: expect.objectContaining({ method: 'urlNotifications.publish' }),
        args: [{ requestBody: { url: JOB, type: 'URL_UPDATED' } }],
      }),
    ]);
  });

  it('an answer without urlNotificationMetadata (Google sometimes sends one) is the URL alone', async () => {
    const google = new FakeGoogle()
      .on('urlNotifications.publish', {})
      .fail('urlNotifications.getMetadata', googleError('not_found', { status: 404 }));
    const service = indexing(google);
    const published = await service.publish(JOB, 'URL_UPDATED', 'local');
    expect(published.metadata).toEqual({ url: JOB });
    expect(published.sent.map((n) => [n.type, n.outcome, n.sent_at])).toEqual([['URL_UPDATED', 'accepted', '2026-03-02T18:00:00.000Z']]);
    kit.clock.advance(60_000);
    await service.publish(JOB, 'URL_DELETED', 'bob');
    const history = await service.history(JOB);
    expect(history.google).toBeUndefined(); // Google's 404, kept apart from this server's record
    expect(history.sent!.map((n) => `${n.type} by ${n.principal}`)).toEqual(['URL_DELETED by bob', 'URL_UPDATED by local']);
  });

  it.each([
    ['unavailable', { status: 500 }, /Google failed with HTTP 500 .* may or may not have recorded it/],
    ['unavailable', { status: 503 }, /HTTP 503/],
    ['network', { code: 'ECONNRESET' }, /The connection to Google failed .* may or may not have recorded it/],
    ['timeout', { code: 'TimeoutError' }, /Google did not answer in time \(GSC_GOOGLE_TIMEOUT_MS\) .* may or may not have recorded it/],
    ['malformed', { status: 200 }, /not a publish response .* may or may not have recorded it/],
  ] as const)('an unknown outcome (%s %j) says so and to check get_indexing_status first', async (kind, facts, says) => {
    const google = new FakeGoogle().fail('urlNotifications.publish', googleError(kind, { ...facts, outcome: 'unknown' }));
    const service = indexing(google);
    const attempt = service.publish(JOB, 'URL_DELETED', 'local');
    await expect(attempt).rejects.toThrow(says);
    await expect(attempt).rejects.toThrow(
      /URL_DELETED notification for https:\/\/e\.com\/j.*This server recorded the attempt\. Check with get_indexing_status .* before sending it again/,
    );
    expect((await new IndexingRecord(kit.store).of(JOB))!.map((n) => [n.type, n.outcome])).toEqual([['URL_DELETED', 'unknown']]);
    // Google may have counted it: the quota ledger keeps it.
    expect((await kit.ledger.snapshot(projectScope))!.day.used).toBe(1);
  });

  it('a failure that changed nothing keeps GoogleService’s sentence (a token endpoint 500 sent nothing)', async () => {
    const token = googleError('unavailable', { status: 500, phase: 'token' }, 'Google’s OAuth token endpoint failed.');
    await expect(indexing(new FakeGoogle().fail('urlNotifications.publish', token)).publish(JOB, 'URL_UPDATED', 'local')).rejects.toBe(
      token,
    );
    expect((await kit.ledger.snapshot(projectScope))!.day.used).toBe(0);
  });

  it('adds the owner rule to a permission refusal, keeping Google’s words', async () => {
    const google = new FakeGoogle().fail('urlNotifications.publish', googleError('permission', { status: 403 }, 'Permission denied.'));
    await expect(indexing(google).publish(JOB, 'URL_UPDATED', 'local')).rejects.toThrow(
      /^Permission denied\. The Indexing API accepts calls only from a verified Owner/,
    );
  });

  it.each(['scope', 'service_disabled'] as const)('leaves a %s refusal as GoogleService’s sentence', async (kind) => {
    const error = googleError(kind, { status: 403 });
    await expect(indexing(new FakeGoogle().fail('urlNotifications.publish', error)).publish(JOB, 'URL_UPDATED', 'local')).rejects.toBe(
      error,
    );
  });

  it('a quota refusal that names its window keeps GoogleService’s sentence and is remembered', async () => {
    const error = googleError('quota', { status: 429, quota: { window: 'day', limit: 'DefaultPublishRequestsPerDayPerProject' } });
    await expect(indexing(new FakeGoogle().fail('urlNotifications.publish', error)).publish(JOB, 'URL_UPDATED', 'local')).rejects.toBe(
      error,
    );
    expect((await kit.ledger.snapshot(projectScope))!).toMatchObject({ day: { used: 0 }, refusedToday: { likelyLimit: 'day' } });
  });
});

describe('IndexingService.metadata', () => {
  it('a 404 means Google has no notification history for the URL, not an error', async () => {
    const google = new FakeGoogle().fail('urlNotifications.getMetadata', googleError('not_found', { status: 404 }));
    expect(await indexing(google).metadata(JOB)).toBeUndefined();
  });

  it('asks getMetadata for the URL', async () => {
    const google = new FakeGoogle().on('urlNotifications.getMetadata', { url: JOB });
    expect(await indexing(google).metadata(JOB)).toEqual({ url: JOB });
    expect(google.calls[0]).toMatchObject({ op: { method: 'urlNotifications.getMetadata' }, args: [{ url: JOB }] });
  });

  it('passes other failures on', async () => {
    const google = new FakeGoogle().fail('urlNotifications.getMetadata', googleError('unavailable', { status: 500 }, 'boom'));
    await expect(indexing(google).metadata(JOB)).rejects.toThrow(/^boom$/);
  });
});
