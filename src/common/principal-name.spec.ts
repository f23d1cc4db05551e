import { describe, expect, it } from '@jest/globals';
import { canonicalPrincipal, checkPrincipal, escapedPrincipal, lowerAscii, principalRefusal } from './principal-name.js';

describe('canonicalPrincipal', () => {
  it.each([
    ['an ASCII address, lower-cased', 'Kate@Corp.Example', 'kate@corp.example'],
    ['a composed accent, kept', 'Jos\u00e9@corp.example', 'jos\u00e9@corp.example'],
    ['an Å written as one letter, kept (not ASCII)', '\u00c5sa@corp.example', '\u00c5sa@corp.example'],
    ['a Cyrillic look-alike, itself', '\u041Aate@corp.example', '\u041Aate@corp.example'],
    ['a dotted capital I, itself (Unicode would fold it onto i)', '\u0130na@corp.example', '\u0130na@corp.example'],
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
  ])('refuses %s as not plain', (_what, raw) => {
    expect(canonicalPrincipal(raw)).toBeUndefined();
    expect(checkPrincipal(raw)).toEqual({ ok: false, problem: 'not_plain' });
  });

  // Issue 29, break 1: NFC made the Kelvin-sign Kate into kate — her rule, sessions, exports, approvals and Google account.
  it.each([
    ['the Kelvin sign (NFC: K)', '\u212Aate@corp.example', 'kate@corp.example'],
    ['the Angstrom sign (NFC: \u00c5)', '\u212Bsa@corp.example', '\u00c5sa@corp.example'],
    ['the Ohm sign (NFC: \u03a9)', '\u2126mega@corp.example', '\u03a9mega@corp.example'],
    ['a decomposed accent (NFC composes it)', 'jose\u0301@corp.example', 'jos\u00e9@corp.example'],
    ['a full-width letter (NFKC: K)', '\uFF2Bate@corp.example', 'kate@corp.example'],
    ['a ligature (NFKC: fi)', '\uFB01nance@corp.example', 'finance@corp.example'],
    ['a long s (NFKC: s)', '\u017Fam@corp.example', 'sam@corp.example'],
    ['a superscript digit in a sub (NFKC: 2)', 'user\u00B2', 'user2'],
    ['the Kelvin sign in a domain', 'kate@\u212Aorp.example', 'kate@korp.example'],
  ])('refuses a principal with %s, and never folds it onto its look-alike', (_what, raw, lookAlike) => {
    expect(checkPrincipal(raw)).toEqual({ ok: false, problem: 'not_normalized' });
    expect(canonicalPrincipal(raw)).toBeUndefined();
    // The spelling it would have become is another principal, unharmed.
    expect(checkPrincipal(lookAlike).ok).toBe(true);
  });

  it('lower-cases A to Z only', () => {
    expect(lowerAscii('ÀBÇ-\u212A-Z')).toBe('ÀbÇ-\u212A-z');
  });

  it('escapes a refused spelling to ASCII, so the Kelvin-sign Kate never reads as Kate, and caps it', () => {
    expect(escapedPrincipal('\u212Aate@corp.example')).toBe('\\u{212A}ate@corp.example');
    expect(escapedPrincipal('a\\b\n\u{1F600}')).toBe('a\\u{5C}b\\u{A}\\u{1F600}');
    expect(escapedPrincipal('k'.repeat(400))).toBe(`${'k'.repeat(120)}…`);
  });

  it('says why in one sentence of RFC 6750 error_description characters, naming no value', () => {
    for (const problem of ['not_plain', 'not_normalized'] as const) {
      const sentence = principalRefusal(problem, 'the access token principal claim');
      expect(sentence).toMatch(/^the access token principal claim /);
      expect(sentence).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
    }
  });
});
