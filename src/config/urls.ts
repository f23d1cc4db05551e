import { ConfigError } from './config-error.js';
import { maskUrl, quote } from './quote.js';

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

interface UrlRules {
  /** The valid forms, as the message states them ("an http(s) URL such as …"). */
  readonly forms: string;
  /** https only, except on a loopback host (issuers, key sets). */
  readonly httpsUnlessLoopback?: boolean;
  /** Whether a query string is acceptable. */
  readonly query?: boolean;
  /** Why user info is refused, when it is. */
  readonly userInfo: string;
}

/** Parses an http(s) URL setting; every message quotes the value with its user info masked. */
export function parseHttpUrl(name: string, value: string, rules: UrlRules): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || !url.hostname) {
    throw new ConfigError(`${name} must be ${rules.forms} (got ${quote(value)})`);
  }
  if (url.username || url.password) {
    throw new ConfigError(`${name} must not carry a user name or password (got ${quote(maskUrl(value))}); ${rules.userInfo}`);
  }
  if (rules.httpsUnlessLoopback && url.protocol !== 'https:' && !isLoopback(url.hostname)) {
    throw new ConfigError(
      `${name} must use https:// (http:// only for a loopback host such as 127.0.0.1); ${rules.forms} (got ${quote(value)})`,
    );
  }
  if (url.hash || value.includes('#') || (!rules.query && (url.search || value.includes('?')))) {
    throw new ConfigError(`${name} must not carry a ${rules.query ? '' : 'query or '}fragment; ${rules.forms} (got ${quote(value)})`);
  }
  return url;
}

export const GOOGLE_USER_INFO = "Google's client libraries cannot send them — remove them";
