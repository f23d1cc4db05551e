import { describe, expect, it } from '@jest/globals';
import { decodeResourceId } from '../property/resource-id.js';
import { defaultMethod, methodMismatch, placementFor } from './verification-methods.js';
import { toVerifiedResource } from '../property/verification-resource.js';

describe('verification methods', () => {
  it('defaults to DNS_TXT for domain properties and META for URL-prefix ones', () => {
    expect(defaultMethod('sc-domain:example.com')).toBe('DNS_TXT');
    expect(defaultMethod('https://www.example.com/')).toBe('META');
  });

  it('refuses page methods for domains and DNS for URL-prefix properties', () => {
    expect(methodMismatch('sc-domain:example.com', 'DNS_CNAME')).toBeUndefined();
    expect(methodMismatch('sc-domain:example.com', 'FILE')).toMatch(/only through DNS/);
    expect(methodMismatch('https://www.example.com/', 'TAG_MANAGER')).toBeUndefined();
    expect(methodMismatch('https://www.example.com/', 'DNS_TXT')).toMatch(/sc-domain:www\.example\.com/);
  });

  it('puts the TXT record at the apex of the property domain', () => {
    expect(placementFor('sc-domain:shop.example.com', 'DNS_TXT', 'google-site-verification=abc')).toMatchObject({
      type: 'TXT',
      name: 'shop.example.com.',
      value: 'google-site-verification=abc',
    });
  });

  it('splits the CNAME token into record name and target', () => {
    expect(placementFor('sc-domain:example.com', 'DNS_CNAME', 'abc123 gv-xyz.dv.googlehosted.com')).toMatchObject({
      type: 'CNAME',
      name: 'abc123.example.com.',
      value: 'gv-xyz.dv.googlehosted.com',
    });
  });

  it('keeps a full meta tag and builds one from a bare token', () => {
    const tag = '<meta name="google-site-verification" content="abc" />';
    expect(placementFor('https://www.example.com/', 'META', tag).value).toBe(tag);
    expect(placementFor('https://www.example.com/', 'META', 'abc').value).toBe(tag);
  });

  it('serves the FILE at the property root with Google’s required content', () => {
    expect(placementFor('https://www.example.com/shop/', 'FILE', 'google123.html')).toMatchObject({
      type: 'FILE',
      name: 'google123.html',
      value: 'google-site-verification: google123.html',
    });
    expect(placementFor('https://www.example.com/shop/', 'FILE', 'google123.html').location).toContain(
      'https://www.example.com/shop/google123.html',
    );
  });
});

describe('resources', () => {
  it('maps INET_DOMAIN to sc-domain: and keeps the id as Google sent it', () => {
    expect(
      toVerifiedResource({
        id: 'dns%3A%2F%2Fexample.com',
        site: { type: 'INET_DOMAIN', identifier: 'Example.com' },
        owners: ['a@example.com'],
      }),
    ).toEqual({
      id: 'dns%3A%2F%2Fexample.com',
      type: 'INET_DOMAIN',
      identifier: 'Example.com',
      property: 'sc-domain:example.com',
      owners: ['a@example.com'],
    });
  });

  it('has no property for kinds Search Console does not have', () => {
    expect(toVerifiedResource({ id: 'x', site: { type: 'ANDROID_APP', identifier: 'com.example.app' } }).property).toBeUndefined();
  });

  it('decodes a percent-encoded id once and leaves a decoded one alone', () => {
    expect(decodeResourceId('dns%3A%2F%2Fexample.com')).toBe('dns://example.com');
    expect(decodeResourceId('dns://example.com')).toBe('dns://example.com');
  });
});
