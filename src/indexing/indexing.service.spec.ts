import { describe, expect, it } from '@jest/globals';
import { GoogleApiError, type GoogleOperation } from '../google/google-error.js';
import type { GoogleService } from '../google/google.service.js';
import { IndexingService } from './indexing.service.js';

/** A GoogleService that records the operations asked for and fails with the given error. */
function fakeGoogle(failure?: GoogleApiError, data: unknown = {}) {
  const ops: GoogleOperation[] = [];
  const google = {
    call: async (op: GoogleOperation) => {
      ops.push(op);
      if (failure) throw failure;
      return data;
    },
  };
  return { google: google as unknown as GoogleService, ops };
}

const err = (status: number | undefined, message = 'Google said no.', quota?: 'minute' | 'day') => new GoogleApiError(message, status, undefined, quota, undefined);

describe('IndexingService.publish', () => {
  it('is sent as a non-retried write', async () => {
    const fake = fakeGoogle(undefined, { urlNotificationMetadata: { url: 'https://e.com/j', latestUpdate: { type: 'URL_UPDATED', notifyTime: 't' } } });
    const meta = await new IndexingService(fake.google).publish('https://e.com/j', 'URL_UPDATED');
    expect(meta.latestUpdate?.notifyTime).toBe('t');
    expect(fake.ops).toEqual([expect.objectContaining({ retry: false, write: true })]);
  });

  it.each([
    [500, /Google failed with HTTP 500 .* may or may not have recorded it/],
    [503, /HTTP 503/],
    [undefined, /The connection to Google failed .* may or may not have recorded it/],
  ])('a %s outcome is unknown: says so and to check get_indexing_status first', async (status, says) => {
    const fake = fakeGoogle(err(status));
    const attempt = new IndexingService(fake.google).publish('https://e.com/j', 'URL_DELETED');
    await expect(attempt).rejects.toThrow(says);
    await expect(attempt).rejects.toThrow(/URL_DELETED notification for https:\/\/e\.com\/j.*Check with get_indexing_status .* before sending it again/);
  });

  it('adds the owner rule to a 403 and the daily publish quota to a 429, keeping Google’s words', async () => {
    await expect(new IndexingService(fakeGoogle(err(403, 'Permission denied.')).google).publish('https://e.com/j', 'URL_UPDATED')).rejects.toThrow(
      /^Permission denied\. The Indexing API accepts calls only from a verified Owner/,
    );
    await expect(new IndexingService(fakeGoogle(err(429, 'Quota.', 'day')).google).publish('https://e.com/j', 'URL_UPDATED')).rejects.toThrow(
      /^Quota\. The Indexing API allows 200 publish requests/,
    );
  });

  it('leaves a scope refusal as Google’s scope sentence', async () => {
    const scope = new GoogleApiError('lacks the OAuth scope', 403, 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', undefined, undefined);
    await expect(new IndexingService(fakeGoogle(scope).google).publish('https://e.com/j', 'URL_UPDATED')).rejects.toBe(scope);
  });
});

describe('IndexingService.metadata', () => {
  it('a 404 means never notified, not an error', async () => {
    expect(await new IndexingService(fakeGoogle(err(404)).google).metadata('https://e.com/j')).toBeUndefined();
  });

  it('is a retried read', async () => {
    const fake = fakeGoogle(undefined, { url: 'https://e.com/j' });
    await new IndexingService(fake.google).metadata('https://e.com/j');
    expect(fake.ops).toEqual([expect.objectContaining({ retry: true, write: false })]);
  });

  it('passes other failures on', async () => {
    await expect(new IndexingService(fakeGoogle(err(500, 'boom')).google).metadata('https://e.com/j')).rejects.toThrow(/^boom$/);
  });
});
