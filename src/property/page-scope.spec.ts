import { describe, expect, it } from '@jest/globals';
import { normalizeProperty, parsePageUrl, PropertyError } from './property.js';
import { isPageAllowed, isPropertyAllowed } from './site-allowlist.js';

// [page URL, allowed property, allowed?] — what a browser would fetch must lie
// inside the allowed property, by Search Console's own scoping rules.
const PAGES: [string, string, boolean][] = [
  // Domain property: every subdomain, both schemes, any port and path.
  ['https://example.com/', 'sc-domain:example.com', true],
  ['http://example.com/a', 'sc-domain:example.com', true],
  ['https://www.example.com/a/b?x=1#f', 'sc-domain:example.com', true],
  ['https://deep.sub.example.com/', 'sc-domain:example.com', true],
  ['https://example.com:8443/', 'sc-domain:example.com', true],
  ['HTTPS://EXAMPLE.COM/Path', 'sc-domain:example.com', true],
  ['https://WWW.Example.Com/', 'sc-domain:example.com', true],
  ['https://%65xample.com/', 'sc-domain:example.com', true],
  ['https://example.com./', 'sc-domain:example.com', false],
  ['https://example.com.evil.test/', 'sc-domain:example.com', false],
  ['https://evil-example.com/', 'sc-domain:example.com', false],
  ['https://evilexample.com/', 'sc-domain:example.com', false],
  ['https://example.com@evil.test/', 'sc-domain:example.com', false],
  ['https://user:pass@example.com/', 'sc-domain:example.com', false],
  ['https://evil.test/example.com', 'sc-domain:example.com', false],
  ['https://evil.test/?u=https://example.com/', 'sc-domain:example.com', false],
  ['https://evil.test#@example.com/', 'sc-domain:example.com', false],
  ['https://example.co/', 'sc-domain:example.com', false],
  ['ftp://example.com/file', 'sc-domain:example.com', false],
  ['javascript:alert(1)//example.com', 'sc-domain:example.com', false],
  ['//example.com/', 'sc-domain:example.com', false],
  ['example.com/page', 'sc-domain:example.com', false],
  ['https://examp%6ce.com.evil.test/', 'sc-domain:example.com', false],
  ['https://xn--exmple-cua.com/', 'sc-domain:example.com', false],
  ['https://exämple.com/', 'sc-domain:example.com', false],
  ['https://bücher.example.com/', 'sc-domain:example.com', true],
  // A domain property spelled in Unicode or upper case (as a list from elsewhere may spell it) covers the punycoded host.
  ['https://xn--bcher-kva.de/x', 'sc-domain:BÜCHER.de', true],
  // Parsers disagree on a backslash before "@" (WHATWG reads it as "/"): refused as ambiguous.
  ['https://example.com\\@evil.test/', 'sc-domain:example.com', false],
  ['https://sub.example.com/', 'sc-domain:sub.example.com', true],
  ['https://example.com/', 'sc-domain:sub.example.com', false],
  ['https://other.example.com/', 'sc-domain:sub.example.com', false],
  // IDN domain properties are stored punycoded.
  ['https://xn--bcher-kva.de/', 'sc-domain:bücher.de', true],
  ['https://bücher.de/x', 'sc-domain:bücher.de', true],
  // URL-prefix property with a path.
  ['https://example.com/shop/', 'https://example.com/shop/', true],
  ['https://example.com/shop/item', 'https://example.com/shop/', true],
  ['https://example.com/shop/a/b/c?q=1', 'https://example.com/shop/', true],
  ['https://example.com/shopping', 'https://example.com/shop/', false],
  ['https://example.com/shop', 'https://example.com/shop/', false],
  ['https://example.com/Shop/item', 'https://example.com/shop/', false],
  ['http://example.com/shop/item', 'https://example.com/shop/', false],
  ['https://www.example.com/shop/item', 'https://example.com/shop/', false],
  ['https://example.com:8443/shop/item', 'https://example.com/shop/', false],
  ['https://example.com:443/shop/item', 'https://example.com/shop/', true],
  ['https://EXAMPLE.com/shop/item', 'https://example.com/shop/', true],
  ['https://example.com/shop/../admin', 'https://example.com/shop/', false],
  ['https://example.com/shop/%2e%2e/admin', 'https://example.com/shop/', false],
  ['https://example.com/shop/./item', 'https://example.com/shop/', true],
  ['https://example.com/%73hop/item', 'https://example.com/shop/', true],
  ['https://example.com/shop%2Fitem', 'https://example.com/shop/', false],
  ['https://example.com/other/../shop/item', 'https://example.com/shop/', true],
  ['https://example.com./shop/item', 'https://example.com/shop/', false],
  ['https://example.com@evil.test/shop/item', 'https://example.com/shop/', false],
  ['https://evil.test/shop/item', 'https://example.com/shop/', false],
  // URL-prefix property at the root of a host.
  ['https://www.example.com/', 'https://www.example.com/', true],
  ['https://www.example.com/any/page', 'https://www.example.com/', true],
  ['https://example.com/', 'https://www.example.com/', false],
  ['https://m.www.example.com/', 'https://www.example.com/', false],
  ['http://www.example.com/', 'https://www.example.com/', false],
  ['https://www.example.com.evil.test/', 'https://www.example.com/', false],
  // Ports are part of a URL-prefix property.
  ['http://localhost:8080/a', 'http://localhost:8080/', true],
  ['http://localhost:8081/a', 'http://localhost:8080/', false],
  ['http://localhost/a', 'http://localhost:8080/', false],
  // IP literals.
  ['http://127.0.0.1/a', 'http://127.0.0.1/', true],
  ['http://0x7f.0.0.1/a', 'http://127.0.0.1/', true],
  ['http://2130706433/a', 'http://127.0.0.1/', true],
  ['http://127.0.0.2/a', 'http://127.0.0.1/', false],
];

describe('page URL ⊂ allowed property', () => {
  it.each(PAGES)('%s within %s → %s', (page, property, expected) => {
    let allowed: boolean;
    try {
      allowed = isPageAllowed(parsePageUrl(page), [normalizeProperty(property)]);
    } catch (error) {
      if (!(error instanceof PropertyError)) {
        throw error;
      }
      allowed = false;
    }
    expect(allowed).toBe(expected);
  });

  it('has a corpus of at least 60 cases', () => expect(PAGES.length).toBeGreaterThanOrEqual(60));
});

// [property asked for, allowlist entry, allowed?]
const PROPERTIES: [string, string, boolean][] = [
  ['sc-domain:example.com', 'sc-domain:example.com', true],
  ['SC-DOMAIN:Example.COM', 'sc-domain:example.com', true],
  ['https://www.example.com/', 'sc-domain:example.com', true],
  ['https://example.com/shop', 'sc-domain:example.com', true],
  ['sc-domain:shop.example.com', 'sc-domain:example.com', true],
  ['sc-domain:example.com', 'https://example.com/', false],
  ['sc-domain:example.com', 'sc-domain:shop.example.com', false],
  ['https://example.com/', 'https://example.com/shop/', false],
  ['https://example.com/shop/eu/', 'https://example.com/shop', true],
  ['https://example.com/shopping/', 'https://example.com/shop', false],
  ['sc-domain:example.com.evil.test', 'sc-domain:example.com', false],
  ['sc-domain:evilexample.com', 'sc-domain:example.com', false],
  ['https://example.com.evil.test/', 'sc-domain:example.com', false],
  ['http://example.com/', 'https://example.com/', false],
];

describe('property ⊂ allowlist', () => {
  it.each(PROPERTIES)('%s against %s → %s', (property, entry, expected) => {
    expect(isPropertyAllowed(normalizeProperty(property), [normalizeProperty(entry)])).toBe(expected);
  });
});

describe('normalizeProperty', () => {
  it.each([
    ['https://Example.com', 'https://example.com/'],
    ['https://example.com/shop', 'https://example.com/shop/'],
    ['https://example.com:443/', 'https://example.com/'],
    ['http://example.com:8080', 'http://example.com:8080/'],
    ['sc-domain:EXAMPLE.com', 'sc-domain:example.com'],
    ['  sc-domain: example.com ', 'sc-domain:example.com'],
    ['sc-domain:bücher.de', 'sc-domain:xn--bcher-kva.de'],
    ['https://Bücher.DE', 'https://xn--bcher-kva.de/'],
    // One spelling per folder (found by the resolution fuzz): percent-encoded letters decoded, other escapes in upper-case hex.
    ['https://example.com/%66r', 'https://example.com/fr/'],
    ['https://example.com/caf%c3%a9', 'https://example.com/caf%C3%A9/'],
    ['https://example.com/café', 'https://example.com/caf%C3%A9/'],
    ['https://example.com/%7Euser', 'https://example.com/~user/'],
    ['https://example.com/a%2fb', 'https://example.com/a%2Fb/'],
  ])('%s → %s', (input, expected) => expect(normalizeProperty(input)).toBe(expected));

  it.each([
    ['example.com', /bare hostname.*"sc-domain:example\.com".*"https:\/\/example\.com\/"/],
    ['www.example.com/shop', /bare hostname/],
    ['sc-domain:https://example.com/', /not a domain property/],
    ['sc-domain:example.com.', /ends in a dot/],
    ['sc-domain:localhost', /not a registrable domain/],
    ['https://user@example.com/', /user name or password/],
    ['https://example.com/?a=1', /query or fragment/],
    ['ftp://example.com/', /only http and https/],
    ['https://example.com./', /trailing dot/],
    ['', /empty/],
  ])('refuses %s', (input, message) => expect(() => normalizeProperty(input)).toThrow(message));
});
