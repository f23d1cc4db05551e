// One way to compare who someone is, everywhere a principal is kept or matched:
// policy rules, 2025 sessions, approvals and confirm tokens, exports, the
// Indexing record, the audit trail and connected Google accounts (issues 21
// and 29, PRODUCT.md §8b "one spelling per person"). Each place compares the
// canonical string this file makes, and nothing else lower-cases a principal,
// so two spellings share a rule only if they are one principal everywhere.
//
// - A principal is compared as written. Unicode normalisation is never applied
//   to make two strings one: NFC maps the Kelvin sign (U+212A) onto K, the
//   Angstrom sign (U+212B) onto Å and the Ohm sign (U+2126) onto Ω, and NFKC
//   maps compatibility forms (ﬁ, full-width Ｋ, ſ, ²) onto plain letters, so
//   folding would let a second identity at the identity provider become the
//   first one — her rule, sessions, exports, approvals and Google account.
//   Instead a principal that NFC or NFKC would change is refused (401, and an
//   audit-trail entry): it has a look-alike, and no person needs it.
// - For an address (one @), lower-case ASCII only: addresses are matched
//   case-insensitively in practice and the policy file is written in them.
//   Full Unicode case mapping is what let look-alikes meet (İ, ſ and K fold
//   onto ASCII letters); ASCII-only lowering leaves every other letter itself.
// - Anything else (an OAuth `sub`, a host application's user id) is kept as
//   written: such ids are case-sensitive (OpenID Connect Core §2), and
//   lower-casing could make two people one.
//
// A principal that is not plain is refused (401) rather than compared: plain
// means 1–320 characters, no space at either end, and none of the characters
// that make two different strings read alike or read as something else —
// controls, format characters (bidi overrides, zero-width joiners, soft
// hyphen), private-use, unassigned or lone surrogate code points, line or
// paragraph separators, or any white space but the ordinary space. What a
// person reads in a policy file, a dialog or the audit trail is then what is
// compared.

export const MAX_PRINCIPAL_LENGTH = 320;

const NOT_PLAIN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{White_Space}/u;

/** Why a principal is refused: not plain text, or a spelling Unicode normalisation would change (a look-alike). */
export type PrincipalProblem = 'not_plain' | 'not_normalized';

export type PrincipalCheck = { readonly ok: true; readonly principal: string } | { readonly ok: false; readonly problem: PrincipalProblem };

/** The canonical spelling of a principal, or why it is refused. */
export function checkPrincipal(raw: string): PrincipalCheck {
  if (raw.length === 0 || raw.length > MAX_PRINCIPAL_LENGTH || raw.trim() !== raw || NOT_PLAIN.test(raw)) {
    return { ok: false, problem: 'not_plain' };
  }
  if (raw.normalize('NFC') !== raw || raw.normalize('NFKC') !== raw) {
    return { ok: false, problem: 'not_normalized' };
  }
  return { ok: true, principal: isAddress(raw) ? lowerAscii(raw) : raw };
}

/** The canonical spelling of a principal, or undefined when it is refused (checkPrincipal says why). */
export function canonicalPrincipal(raw: string): string | undefined {
  const checked = checkPrincipal(raw);
  return checked.ok ? checked.principal : undefined;
}

/** The one sentence a refused principal gets, naming whose text it was (`the access token principal claim`, `the host application's principal`). */
export function principalRefusal(problem: PrincipalProblem, whose: string): string {
  return problem === 'not_normalized'
    ? `${whose} contains characters that Unicode normalisation (NFC or NFKC) would change, such as the Kelvin sign or a full-width letter; a look-alike spelling is refused, never taken for another principal`
    : `${whose} is not plain text (1 to ${MAX_PRINCIPAL_LENGTH} characters without control, invisible or direction-changing characters)`;
}

/**
 * A refused principal as the audit trail and logs may show it: ASCII only,
 * every other character as \u{…}, so that the Kelvin-sign Kate never reads as
 * Kate to the operator; capped.
 */
export function escapedPrincipal(raw: string, max = 120): string {
  const escaped = [...raw.slice(0, max)]
    .map((ch) => {
      const code = ch.codePointAt(0)!;
      return code >= 0x20 && code < 0x7f && ch !== '\\' ? ch : `\\u{${code.toString(16).toUpperCase()}}`;
    })
    .join('');
  return raw.length > max ? `${escaped}…` : escaped;
}

/** A–Z to a–z, and nothing else. */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** Exactly one @, with something on both sides. */
export function isAddress(text: string): boolean {
  const at = text.indexOf('@');
  return at > 0 && at === text.lastIndexOf('@') && at < text.length - 1;
}
