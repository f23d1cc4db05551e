import { describe, expect, it } from '@jest/globals';
import { normalizeProperty, PropertyError } from './property.js';

describe('normalizeProperty', () => {
  it('adds the trailing slash to URL-prefix properties', () => {
    expect(normalizeProperty('https://Example.com/shop')).toBe('https://example.com/shop/');
  });
  it('refuses a bare hostname and names both spellings', () => {
    expect(() => normalizeProperty('example.com')).toThrow(PropertyError);
    expect(() => normalizeProperty('example.com')).toThrow(/sc-domain:example\.com.*https:\/\/example\.com\//);
  });
});
