import { describe, expect, it } from '@jest/globals';
import { normalizeProperty, pageInProperty, parsePageUrl, PropertyError } from './property.js';

describe('normalizeProperty', () => {
  it('adds the trailing slash to URL-prefix properties', () => {
    expect(normalizeProperty('https://Example.com/shop')).toBe('https://example.com/shop/');
  });
  it('refuses a bare hostname and names both spellings', () => {
    expect(() => normalizeProperty('example.com')).toThrow(PropertyError);
    expect(() => normalizeProperty('example.com')).toThrow(/sc-domain:example\.com.*https:\/\/example\.com\//);
  });
});

describe('pageInProperty', () => {
  it('reads a domain property in any spelling Google or a person may use (Unicode, upper case)', () => {
    const page = parsePageUrl('https://shop.xn--bcher-kva.de/x');
    expect(pageInProperty(page, 'sc-domain:BÜCHER.de')).toBe(true);
    expect(pageInProperty(page, 'sc-domain:xn--bcher-kva.de')).toBe(true);
    expect(pageInProperty(page, 'sc-domain:bücher.com')).toBe(false);
    expect(pageInProperty(page, 'sc-domain:')).toBe(false);
  });
});
