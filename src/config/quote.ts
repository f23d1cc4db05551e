import { escapeInvisible } from '../common/inert-text.js';
// Every configuration message that shows a value gets it from quote(): a short,
// escaped, one-line prefix in double quotes, or — when the value looks like key
// material — a bracketed description and nothing of the value itself. People
// paste keys into the wrong variable; the error line must not become the leak
// (terminals, CI logs and support tickets keep it).

/** Visible characters of a value a message may show before it is cut. */
export const QUOTE_MAX = 48;
/** A whole configuration message, as a last bound. */
export const MESSAGE_MAX = 2000;

// Strong shapes are unmistakable (a PEM header, a key file's field names, a JWT)
// and also make a value unacceptable where it would be shown later; weak ones
// (a long random-looking run) only keep a value out of a message.
type Shape = { test: (value: string) => boolean; looksLike: string; strong: boolean };

const SHAPES: Shape[] = [
  { test: (v) => /-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----|PRIVATE KEY-----/.test(v), looksLike: 'a private key', strong: true },
  { test: (v) => /-----BEGIN [A-Z0-9 ]+-----/.test(v), looksLike: 'a PEM block (a key or certificate)', strong: true },
  { test: (v) => /private_key|"service_account"/i.test(v), looksLike: 'a service account key', strong: true },
  { test: (v) => /client_secret|GOCSPX-/i.test(v), looksLike: 'an OAuth client secret', strong: true },
  { test: (v) => /refresh_token|\b1\/\/0[\w-]{16,}/i.test(v), looksLike: 'an OAuth refresh token', strong: true },
  { test: (v) => /access_token|id_token|\bya29\.[\w-]{16,}/i.test(v), looksLike: 'an OAuth token', strong: true },
  { test: (v) => /\bAIza[\w-]{30,}/.test(v), looksLike: 'a Google API key', strong: true },
  // Bounded, so a long run of "eyJ" cannot make the scan quadratic.
  { test: (v) => /eyJ[\w-]{6,512}\.[\w-]{6}/.test(v), looksLike: 'a JWT', strong: true },
  { test: (v) => /^\s*[{[]/.test(v) || /\{\s*"/.test(v), looksLike: 'JSON (possibly a key file)', strong: true },
  { test: (v) => /\b(ewo|ewog|eyAi|eyJ)[A-Za-z0-9+/]{20,}/.test(v), looksLike: 'base64-encoded JSON (possibly a key file)', strong: true },
  {
    test: (v) => /["']?\b(password|passwd|pwd|secret|api[_-]?key|token)["']?\s*[:=]/i.test(v),
    looksLike: 'a credential assignment',
    strong: false,
  },
  { test: hasHexRun, looksLike: 'a long hex string (possibly a token or secret)', strong: false },
  { test: hasRandomRun, looksLike: 'a long base64 string (possibly a key or token)', strong: false },
];

/** What a value looks like when it looks like key material; undefined when it does not. */
export function secretShape(value: string): string | undefined {
  return SHAPES.find((shape) => shape.test(value))?.looksLike;
}

/** Like secretShape, for the unmistakable shapes only: enough to refuse a value outright. */
export function strongSecretShape(value: string): string | undefined {
  return SHAPES.find((shape) => shape.strong && shape.test(value))?.looksLike;
}

/**
 * The one way a configuration message shows a value: `"prefix…" (N characters)`,
 * escaped and on one line, URL user info masked; or `[looks like a private key —
 * not shown]` when the value looks like key material.
 */
export function quote(value: string): string {
  const masked = maskUserInfo(value);
  const looksLike = secretShape(masked);
  if (looksLike) {
    return notShown(looksLike);
  }
  const chars = Array.from(masked);
  if (chars.length <= QUOTE_MAX) {
    return `"${escapeText(masked)}"`;
  }
  return `"${escapeText(chars.slice(0, QUOTE_MAX).join(''))}…" (${chars.length} characters)`;
}

/** The placeholder quote() uses for a value it will not show. */
export function notShown(looksLike: string): string {
  return `[looks like ${looksLike} — not shown]`;
}

/** Whether quote() would withhold the value. */
export function isWithheld(value: string): boolean {
  return secretShape(maskUserInfo(value)) !== undefined;
}

// URLs, and also `user:password@host` written without a scheme (a Redis or
// database address pasted into the wrong variable).
function maskUserInfo(value: string): string {
  return maskUrlsIn(value).replace(/(^|\s)[^\s:@/]+:(?!\/\/)[^\s@]*@/g, '$1***@');
}

/** Escapes what would break a one-line, double-quoted rendering. */
export function escapeText(value: string): string {
  return escapeInvisible(value.replace(/[\\"]/g, (ch) => `\\${ch}`));
}

/**
 * A URL with its user info masked: `redis://user:***@host:6379/0`, or
 * `https://***@host/` when only a user name (often a token) is given. Text that
 * is not a URL has every `scheme://…@` span masked instead.
 */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return maskUrlsIn(url);
  }
  if (!parsed.username && !parsed.password) {
    return maskUrlsIn(url);
  }
  if (parsed.password) {
    parsed.password = '***';
  } else {
    parsed.username = '***';
  }
  return parsed.href;
}

/**
 * Masks the user info of every URL inside a text. The span runs to the last @
 * before white space, so an unencoded @ or / inside a password is covered too
 * (at worst a path is masked with it). A scan rather than a regular expression:
 * the obvious pattern backtracks quadratically over a long value.
 */
export function maskUrlsIn(text: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', from)) {
    let start = at;
    while (start > 0 && at - start < 32 && /[a-z0-9+.-]/i.test(text[start - 1])) {
      start--;
    }
    const authority = at + 3;
    let end = authority;
    while (end < text.length && !/\s/.test(text[end])) {
      end++;
    }
    const userInfoEnd = start < at && /[a-z]/i.test(text[start]) ? text.lastIndexOf('@', end - 1) : -1;
    if (userInfoEnd >= authority) {
      out += `${text.slice(from, authority)}***${text.slice(userInfoEnd, end)}`;
    } else {
      out += text.slice(from, end);
    }
    from = end;
  }
  return out + text.slice(from);
}

/**
 * The last bound on a configuration message: one line (controls escaped), URL
 * user info masked, the values of secrets read in this load replaced, and capped.
 */
export function safeLine(message: string, secrets: Iterable<string> = []): string {
  let line = message;
  for (const secret of secrets) {
    if (secret.length >= 8) {
      line = line.split(secret).join('[a secret — not shown]');
    }
  }
  line = escapeInvisible(maskUrlsIn(line));
  const chars = Array.from(line);
  return chars.length > MESSAGE_MAX ? `${chars.slice(0, MESSAGE_MAX).join('')}…` : line;
}

// 32+ hex digits in a row: `openssl rand -hex`, API keys, digests of secrets.
function hasHexRun(value: string): boolean {
  return /[0-9a-f]{32,}/i.test(value) && (value.match(/[0-9a-f]{32,}/gi) ?? []).some((run) => /\d/.test(run) && /[a-f]/i.test(run));
}

// 32+ characters of base64 or base64url that mix cases and digits the way random
// bytes do. Paths and host names are mostly lower case, so they pass.
function hasRandomRun(value: string): boolean {
  for (const run of value.match(/[A-Za-z0-9+/_=-]{32,}/g) ?? []) {
    const letters = run.replace(/[^A-Za-z]/g, '');
    const upper = run.replace(/[^A-Z]/g, '').length;
    const lower = letters.length - upper;
    if (upper >= run.length * 0.2 && lower >= run.length * 0.2 && /\d/.test(run)) {
      return true;
    }
  }
  return false;
}
