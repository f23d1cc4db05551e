import { describe, expect, it } from '@jest/globals';
import { canonicalPrincipal, lowerAscii } from './principal-name.js';

describe('canonicalPrincipal', () => {
  it.each([
    ['an ASCII address, lower-cased', 'Kate@Corp.Example', 'kate@corp.example'],
    ['the Kelvin sign, NFC\u2019s K', '\u212Aate@corp.example', 'kate@corp.example'],
    ['the Angstrom sign, NFC\u2019s \u00c5 (kept: not ASCII)', '\u212Bsa@corp.example', '\u00c5sa@corp.example'],
    ['a decomposed accent, composed', 'jose\u0301@corp.example', 'jos\u00e9@corp.example'],
    ['a Cyrillic look-alike, itself', '\u041Aate@corp.example', '\u041Aate@corp.example'],
    ['a dotted capital I, itself (Unicode would fold it onto i)', '\u0130na@corp.example', '\u0130na@corp.example'],
    ['a long s, itself', '\u017Fam@corp.example', '\u017Fam@corp.example'],
    ['an opaque sub, as written', '00uAbC|Okta', '00uAbC|Okta'],
    ['a host user id with an inner space', 'Jane Doe', 'Jane Doe'],
  ])('%s', (_what, raw, canonical) => {
    expect(canonicalPrincipal(raw)).toBe(canonical);
    expect(canonicalPrincipal(canonical)).toBe(canonical); // idempotent: stored principals compare as they are
  });

  it.each([
    ['empty', ''],
    ['a leading space', ' kate@corp.example'],
    ['a line break', 'kate@corp.example\nadmin'],
    ['a tab', 'kate\t@corp.example'],
    ['a right-to-left override', '\u202Eelpmaxe.proc@etak'],
    ['a right-to-left mark', 'kate@corp.example\u200F'],
    ['a zero-width space', 'ka\u200Bte@corp.example'],
    ['a zero-width joiner', 'ka\u200Dte@corp.example'],
    ['a soft hyphen', 'ka\u00ADte@corp.example'],
    ['a byte-order mark', '\uFEFFkate@corp.example'],
    ['a no-break space', 'kate\u00A0@corp.example'],
    ['an ideographic space', 'kate\u3000@corp.example'],
    ['a line separator', 'kate\u2028@corp.example'],
    ['a private-use character', 'kate\uE000@corp.example'],
    ['a lone surrogate', 'kate\uD800@corp.example'],
    ['an unassigned code point', 'kate\u0378@corp.example'],
    ['over 320 characters', `${'k'.repeat(320)}@corp.example`],
  ])('refuses %s', (_what, raw) => {
    expect(canonicalPrincipal(raw)).toBeUndefined();
  });

  it('lower-cases A to Z only', () => {
    expect(lowerAscii('ÀBÇ-\u212A-Z')).toBe('ÀbÇ-\u212A-z');
  });
});
