// One way to compare who someone is, everywhere a principal is kept or matched:
// policy rules, 2025 sessions, approvals and confirm tokens, exports, the
// Indexing record and the audit trail (issue 21). Each place compares the
// canonical string this file makes, and nothing else lower-cases a principal,
// so two spellings share a rule only if they are one principal everywhere.
//
// - NFC first: the Kelvin sign (U+212A) *is* K to Unicode (a canonical
//   singleton), so "Kate" written with it is kate everywhere — not kate for the
//   policy and someone else for her sessions and exports.
// - Then, for an address (one @), lower-case ASCII only: addresses are matched
//   case-insensitively in practice and the policy file is written in them.
//   Full Unicode case mapping is what let look-alikes meet (İ, ſ and K fold
//   onto ASCII letters); ASCII-only lowering leaves every other letter itself.
// - Anything else (an OAuth `sub`, a host application's user id) is kept as
//   written after NFC: such ids are case-sensitive (OpenID Connect Core §2),
//   and lower-casing could make two people one.
//
// A principal that is not plain after NFC is refused (401) rather than
// compared: plain means 1–320 characters, no space at either end, and none of
// the characters that make two different strings read alike or read as
// something else — controls, format characters (bidi overrides, zero-width
// joiners, soft hyphen), private-use, unassigned or lone surrogate code
// points, line or paragraph separators, or any white space but the ordinary
// space. What a person reads in a policy file, a dialog or the audit trail is
// then what is compared.

export const MAX_PRINCIPAL_LENGTH = 320;

const NOT_PLAIN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{White_Space}/u;

/** The canonical spelling of a principal, or undefined when it is not plain (refuse it). */
export function canonicalPrincipal(raw: string): string | undefined {
  const text = raw.normalize('NFC');
  if (text.length === 0 || text.length > MAX_PRINCIPAL_LENGTH || text.trim() !== text || NOT_PLAIN.test(text)) {
    return undefined;
  }
  return isAddress(text) ? lowerAscii(text) : text;
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
