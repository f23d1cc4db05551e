import { describe, expect, it } from '@jest/globals';
import { UserFacingError } from '../common/user-facing-error.js';
import { outsideProperty, parseSitemapUrl, sitemapLine, toCount, toSitemapOut } from './sitemap-format.js';

describe('toCount', () => {
  it('turns Google int64 strings into numbers, absent into 0', () => {
    expect(toCount('12')).toBe(12);
    expect(toCount('0')).toBe(0);
    expect(toCount(7)).toBe(7);
    expect(toCount(undefined)).toBe(0);
    expect(toCount(null)).toBe(0);
    expect(toCount('')).toBe(0);
    expect(toCount('not a number')).toBe(0);
  });
});

describe('toSitemapOut', () => {
  it('maps the wire form to snake_case with numbers', () => {
    expect(
      toSitemapOut({
        path: 'https://example.com/s.xml',
        type: 'sitemap',
        isPending: false,
        isSitemapsIndex: true,
        lastSubmitted: '2026-01-01T00:00:00Z',
        lastDownloaded: '2026-01-02T00:00:00Z',
        warnings: '3',
        errors: '1',
        contents: [
          { type: 'web', submitted: '120', indexed: '0' },
          { type: 'image', submitted: '4' },
        ],
      }),
    ).toEqual({
      path: 'https://example.com/s.xml',
      type: 'sitemap',
      is_pending: false,
      is_sitemaps_index: true,
      last_submitted: '2026-01-01T00:00:00Z',
      last_downloaded: '2026-01-02T00:00:00Z',
      warnings: 3,
      errors: 1,
      contents: [
        // indexed is Google's deprecated field ("do not use"): no figure, whatever Google sent.
        { type: 'web', submitted: 120 },
        { type: 'image', submitted: 4 },
      ],
    });
  });

  it('fills what Google omits (proto3 drops defaults)', () => {
    expect(toSitemapOut({ path: 'https://example.com/a.xml' })).toEqual({
      path: 'https://example.com/a.xml',
      type: 'sitemap',
      is_pending: false,
      is_sitemaps_index: false,
      warnings: 0,
      errors: 0,
      contents: [],
    });
  });
});

describe('parseSitemapUrl', () => {
  it('accepts absolute http(s) URLs and keeps the trimmed string as sent', () => {
    expect(parseSitemapUrl('  https://Example.com/Sitemap.xml ').url).toBe('https://Example.com/Sitemap.xml');
    expect(parseSitemapUrl('http://example.com/s.xml?page=2').parsed.search).toBe('?page=2');
  });

  it.each([
    'sitemap.xml',
    '/sitemap.xml',
    'ftp://example.com/s.xml',
    'https://u:p@example.com/s.xml',
    'https://example.com./s.xml',
    'javascript:alert(1)',
  ])('refuses %s with a sentence saying nothing was sent', (bad) => {
    expect(() => parseSitemapUrl(bad)).toThrow(UserFacingError);
    expect(() => parseSitemapUrl(bad)).toThrow(/Nothing was sent to Google/);
  });

  it('names the argument it checks', () => {
    expect(() => parseSitemapUrl('x', 'sitemap_index')).toThrow(/^sitemap_index must be/);
  });
});

describe('outsideProperty', () => {
  it('follows Search Console scoping', () => {
    expect(outsideProperty(new URL('https://www.example.com/s.xml'), 'https://www.example.com/')).toBe(false);
    expect(outsideProperty(new URL('https://cdn.example.com/s.xml'), 'sc-domain:example.com')).toBe(false);
    expect(outsideProperty(new URL('https://cdn.example.net/s.xml'), 'sc-domain:example.com')).toBe(true);
    expect(outsideProperty(new URL('http://www.example.com/s.xml'), 'https://www.example.com/')).toBe(true);
  });
});

describe('text', () => {
  it('renders one line per sitemap with its state and counts', () => {
    const line = sitemapLine(
      toSitemapOut({
        path: 'https://e.com/i.xml',
        isSitemapsIndex: true,
        isPending: true,
        lastSubmitted: '2026-03-01T10:00:00Z',
        errors: '1',
        warnings: '2',
        contents: [{ type: 'web', submitted: '9' }],
      }),
    );
    expect(line).toBe(
      '- https://e.com/i.xml (sitemap index): pending (not processed yet); submitted 2026-03-01; never downloaded; 1 error, 2 warnings; web 9 submitted',
    );
  });
});
