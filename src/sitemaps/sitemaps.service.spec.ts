import { describe, expect, it } from '@jest/globals';
import { UserFacingError } from '../common/user-facing-error.js';
import { FakeGoogle, googleError } from '../google/google-service.fake.js';
import { SitemapsService } from './sitemaps.service.js';

/** A FakeGoogle whose sitemaps.submit answers from a table after a short delay, recording concurrency. */
function submitting(outcome: (feedpath: string) => Error | undefined) {
  const sent: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const google = new FakeGoogle().on('sitemaps.submit', async ({ feedpath }: { feedpath: string }) => {
    sent.push(feedpath);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    inFlight--;
    const error = outcome(feedpath);
    if (error) {
      throw error;
    }
    return '';
  });
  return { google, service: new SitemapsService(google.service), sent, maxInFlight: () => maxInFlight };
}

const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://e.com/s${i}.xml`);

describe('SitemapsService.submitMany', () => {
  it('submits each once, in bounded concurrency, results in input order', async () => {
    const fake = submitting(() => undefined);
    const results = await fake.service.submitMany('https://e.com/', urls(10), { concurrency: 4 });
    expect(results.map((r) => r.sitemap_url)).toEqual(urls(10));
    expect(results.every((r) => r.submitted)).toBe(true);
    expect([...fake.sent].sort()).toEqual([...urls(10)].sort());
    expect(fake.maxInFlight()).toBeLessThanOrEqual(4);
    expect(fake.maxInFlight()).toBeGreaterThan(1);
    expect(fake.google.calls[0].args).toEqual([{ siteUrl: 'https://e.com/', feedpath: 'https://e.com/s0.xml' }]);
  });

  it('keeps going after one failure', async () => {
    const fake = submitting((p) =>
      p.endsWith('s3.xml') ? googleError('invalid', { status: 400 }, 'Google refused (HTTP 400).') : undefined,
    );
    const results = await fake.service.submitMany('https://e.com/', urls(8), { concurrency: 4 });
    expect(results.filter((r) => !r.submitted)).toEqual([
      { sitemap_url: 'https://e.com/s3.xml', submitted: false, error: 'Google refused (HTTP 400).' },
    ]);
    expect(fake.sent).toHaveLength(8);
  });

  it('stops sending after the quota is exhausted and says why for the rest', async () => {
    const fake = submitting((p) =>
      p.endsWith('s0.xml') ? googleError('quota', { status: 429, quota: { window: 'minute' }, retryAfterSeconds: 60 }, 'quota') : undefined,
    );
    const results = await fake.service.submitMany('https://e.com/', urls(10), { concurrency: 1 });
    expect(fake.sent).toEqual(['https://e.com/s0.xml']);
    expect(results[0]).toMatchObject({ submitted: false, error: 'quota' });
    for (const r of results.slice(1)) {
      expect(r).toMatchObject({ submitted: false, error: expect.stringMatching(/^Not sent: Google's quota was exhausted/) });
    }
  });

  it.each([
    ['permission', /^Not sent: Google refused an earlier submission in this batch for lack of permission/],
    ['scope', /^Not sent: Google refused an earlier submission in this batch for lack of permission/],
    ['service_disabled', /^Not sent: .*Search Console API is not enabled/],
    ['credential', /^Not sent: Google rejected the access token of the credential on an earlier submission/],
  ] as const)('stops after a %s refusal, since the rest would be refused the same way', async (kind, says) => {
    const fake = submitting(() => googleError(kind, { status: 403 }));
    const results = await fake.service.submitMany('https://e.com/', urls(10), { concurrency: 2 });
    expect(fake.sent.length).toBeLessThanOrEqual(2);
    expect(results.filter((r) => says.test(r.error ?? ''))).toHaveLength(10 - fake.sent.length);
  });

  it('lets unexpected (non user-facing) errors through', async () => {
    const fake = submitting(() => new TypeError('bug'));
    await expect(fake.service.submitMany('https://e.com/', urls(2), { concurrency: 2 })).rejects.toThrow(TypeError);
  });

  it('treats a plain UserFacingError as one failed entry', async () => {
    const fake = submitting((p) => (p.endsWith('s1.xml') ? new UserFacingError('no') : undefined));
    const results = await fake.service.submitMany('https://e.com/', urls(3), { concurrency: 2 });
    expect(results.map((r) => r.submitted)).toEqual([true, false, true]);
  });
});

describe('SitemapsService reads', () => {
  it('list: an empty answer ({}: Google omits empty lists) is no sitemaps', async () => {
    const google = new FakeGoogle().on('sitemaps.list', {});
    expect(await new SitemapsService(google.service).list('https://e.com/')).toEqual([]);
    expect(google.calls[0].args).toEqual([{ siteUrl: 'https://e.com/' }]);
  });

  it('list with an index passes sitemapIndex', async () => {
    const google = new FakeGoogle().on('sitemaps.list', { sitemap: [{ path: 'https://e.com/a.xml' }] });
    expect(await new SitemapsService(google.service).list('https://e.com/', 'https://e.com/index.xml')).toEqual([
      { path: 'https://e.com/a.xml' },
    ]);
    expect(google.calls[0].args).toEqual([{ siteUrl: 'https://e.com/', sitemapIndex: 'https://e.com/index.xml' }]);
  });

  it('get: a 404 says the property has no such submission', async () => {
    const google = new FakeGoogle().fail('sitemaps.get', googleError('not_found', { status: 404 }));
    await expect(new SitemapsService(google.service).get('https://e.com/', 'https://e.com/x.xml')).rejects.toThrow(
      /^https:\/\/e\.com\/ has no sitemap known to Search Console as https:\/\/e\.com\/x\.xml\. Nothing was changed\./,
    );
  });
});
