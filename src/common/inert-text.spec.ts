import { describe, expect, it } from '@jest/globals';
import { inert } from './inert-text.js';

describe('inert', () => {
  it('shows line breaks, control, bidi and zero-width characters as escapes', () => {
    expect(inert('https://e.com/a\u202eb\n.xml')).toBe('https://e.com/a\\u202eb\\u000a.xml');
    expect(inert('a\u200bb\u2066c\u0000d\u061ce')).toBe('a\\u200bb\\u2066c\\u0000d\\u061ce');
  });

  it('leaves ordinary text, including non-Latin scripts, alone', () => {
    expect(inert('bücher – 本 "quoted"')).toBe('bücher – 本 "quoted"');
  });

  it('caps the length and says how much was cut', () => {
    expect(inert('x'.repeat(25), 10)).toBe(`${'x'.repeat(10)}… (15 more characters)`);
  });
});
