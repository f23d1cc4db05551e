import { describe, expect, it } from '@jest/globals';
import { UserFacingError } from '../common/user-facing-error.js';
import { GoogleApiError } from '../google/google-error.js';
import type { GoogleService } from '../google/google.service.js';
import { SitemapsService } from './sitemaps.service.js';

/** A GoogleService whose sitemaps.submit answers from a table, recording the calls. */
function fakeGoogle(outcome: (feedpath: string) => Error | undefined) {
  const sent: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const google = {
    call: async (_op: unknown, request: () => Promise<{ data: unknown }>) => (await request()).data,
    searchconsole: () => ({
      sitemaps: {
        submit: async ({ feedpath }: { feedpath: string }) => {
          sent.push(feedpath);
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight--;
          const error = outcome(feedpath);
          if (error) throw error;
          return { data: '' };
        },
      },
    }),
  };
  return { google: google as unknown as GoogleService, sent, maxInFlight: () => maxInFlight };
}

const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://e.com/s${i}.xml`);

describe('SitemapsService.submitMany', () => {
  it('submits each once, in bounded concurrency, results in input order', async () => {
    const fake = fakeGoogle(() => undefined);
    const results = await new SitemapsService(fake.google).submitMany('https://e.com/', urls(10), 4);
    expect(results.map((r) => r.sitemap_url)).toEqual(urls(10));
    expect(results.every((r) => r.submitted)).toBe(true);
    expect([...fake.sent].sort()).toEqual([...urls(10)].sort());
    expect(fake.maxInFlight()).toBeLessThanOrEqual(4);
    expect(fake.maxInFlight()).toBeGreaterThan(1);
  });

  it('keeps going after one failure', async () => {
    const fake = fakeGoogle((p) => (p.endsWith('s3.xml') ? new GoogleApiError('Google refused (HTTP 400).', 400, 'invalidParameter', undefined, undefined) : undefined));
    const results = await new SitemapsService(fake.google).submitMany('https://e.com/', urls(8), 4);
    expect(results.filter((r) => !r.submitted)).toEqual([{ sitemap_url: 'https://e.com/s3.xml', submitted: false, error: 'Google refused (HTTP 400).' }]);
    expect(fake.sent).toHaveLength(8);
  });

  it('stops sending after the quota is exhausted and says why for the rest', async () => {
    const fake = fakeGoogle((p) => (p.endsWith('s0.xml') ? new GoogleApiError('quota', 429, 'rateLimitExceeded', 'minute', 60) : undefined));
    const results = await new SitemapsService(fake.google).submitMany('https://e.com/', urls(10), 1);
    expect(fake.sent).toEqual(['https://e.com/s0.xml']);
    expect(results[0]).toMatchObject({ submitted: false, error: 'quota' });
    for (const r of results.slice(1)) expect(r).toMatchObject({ submitted: false, error: expect.stringMatching(/^Not sent: Google's quota was exhausted/) });
  });

  it('stops after a permission refusal on the property', async () => {
    const fake = fakeGoogle(() => new GoogleApiError('forbidden', 403, 'forbidden', undefined, undefined));
    const results = await new SitemapsService(fake.google).submitMany('https://e.com/', urls(10), 2);
    expect(fake.sent.length).toBeLessThanOrEqual(2);
    expect(results.filter((r) => r.error?.startsWith('Not sent: Google refused an earlier submission'))).toHaveLength(10 - fake.sent.length);
  });

  it('lets unexpected (non user-facing) errors through', async () => {
    const fake = fakeGoogle(() => new TypeError('bug'));
    await expect(new SitemapsService(fake.google).submitMany('https://e.com/', urls(2), 2)).rejects.toThrow(TypeError);
  });

  it('treats a plain UserFacingError as one failed entry', async () => {
    const fake = fakeGoogle((p) => (p.endsWith('s1.xml') ? new UserFacingError('no') : undefined));
    const results = await new SitemapsService(fake.google).submitMany('https://e.com/', urls(3), 2);
    expect(results.map((r) => r.submitted)).toEqual([true, false, true]);
  });
});
