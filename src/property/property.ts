import { domainToASCII } from 'node:url';
import { inert } from '../common/inert-text.js';

// The one place that knows how Search Console spells a property, how a page URL
// belongs to one, and how a property maps onto a Site Verification resource.

export class PropertyError extends Error {
  /** The message without the quoted value it opens with, for callers that quote the value their own way. */
  constructor(
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

export type VerificationSite = { type: 'SITE' | 'INET_DOMAIN'; identifier: string };

const DOMAIN_PREFIX = /^sc-domain:/i;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Normalises a property as Search Console stores it: URL-prefix properties end
 * in "/", domain properties are lower-cased (and punycoded). A bare hostname is
 * refused rather than guessed, because the two spellings hold different data.
 */
export function normalizeProperty(input: string): string {
  const raw = input.trim();
  if (!raw) {
    throw new PropertyError('the property is empty');
  }
  if (DOMAIN_PREFIX.test(raw)) {
    return `sc-domain:${normalizeDomain(raw.replace(DOMAIN_PREFIX, '').trim(), raw)}`;
  }
  if (!HAS_SCHEME.test(raw)) {
    const host = raw.split(/[/?#]/)[0].toLowerCase();
    throw refused(
      raw,
      'is a bare hostname; Search Console has two different properties for it: ' +
        `"sc-domain:${host}" (the Domain property) or "https://${host}/" (a URL-prefix property) — use the one you added`,
    );
  }
  const url = parseHttpUrl(raw);
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) {
    throw refused(raw, 'has a query or fragment; a URL-prefix property is a scheme, host and path only');
  }
  // One spelling per property: "%66r/" and "fr/" are one folder, "%c3%a9" and "é" (which URL encodes "%C3%A9") one letter.
  const path = canonicalPath(url.pathname);
  return `${url.protocol}//${url.host}${path.endsWith('/') ? path : `${path}/`}`;
}

/** Parses a page URL the way a browser would, refusing anything Search Console could not own. */
export function parsePageUrl(input: string): URL {
  return parseHttpUrl(input.trim());
}

/**
 * Whether a page belongs to a property, by Search Console's scoping rules:
 * sc-domain:example.com covers every subdomain and both schemes; a URL-prefix
 * property covers URLs with the same scheme, host and port whose path starts
 * with the property's path.
 */
export function pageInProperty(page: URL, property: string): boolean {
  if (property.startsWith('sc-domain:')) {
    // A domain spelled in Unicode or upper case (a list from elsewhere) names the punycoded, lower-case host a URL has.
    const domain = domainToASCII(property.slice('sc-domain:'.length));
    return domain !== '' && (page.hostname === domain || page.hostname.endsWith(`.${domain}`));
  }
  const prefix = new URL(property);
  if (page.protocol !== prefix.protocol || page.host !== prefix.host) {
    return false;
  }
  return canonicalPath(page.pathname).startsWith(canonicalPath(prefix.pathname));
}

/** The Site Verification identity of a property (sc-domain:x ⇄ {INET_DOMAIN, x}). */
export function propertyToVerificationSite(property: string): VerificationSite {
  if (property.startsWith('sc-domain:')) {
    return { type: 'INET_DOMAIN', identifier: property.slice('sc-domain:'.length) };
  }
  return { type: 'SITE', identifier: property };
}

/** The property a Site Verification resource stands for, or undefined for kinds Search Console has no property for. */
export function verificationSiteToProperty(site: { type?: string | null; identifier?: string | null } | undefined): string | undefined {
  if (!site?.identifier) {
    return undefined;
  }
  try {
    if (site.type === 'INET_DOMAIN') {
      return normalizeProperty(`sc-domain:${site.identifier}`);
    }
    if (site.type === 'SITE') {
      return normalizeProperty(site.identifier);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export function isDomainProperty(property: string): boolean {
  return property.startsWith('sc-domain:');
}

/** The host a property is about (for domain properties, the domain itself). */
export function propertyHost(property: string): string {
  return isDomainProperty(property) ? property.slice('sc-domain:'.length) : new URL(property).hostname;
}

function normalizeDomain(domain: string, raw: string): string {
  if (!domain || /[/?#@:\s\\]/.test(domain)) {
    throw refused(raw, 'is not a domain property; write sc-domain: followed by a bare domain, e.g. sc-domain:example.com');
  }
  let host: string;
  try {
    host = new URL(`http://${domain}/`).hostname;
  } catch {
    throw refused(raw, 'does not contain a valid domain name');
  }
  if (host.endsWith('.')) {
    throw refused(raw, 'ends in a dot; write the domain without it');
  }
  if (!host.includes('.') || host.startsWith('[') || /^\d+(\.\d+){3}$/.test(host)) {
    throw refused(raw, 'is not a registrable domain name');
  }
  return host;
}

function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused(raw, 'is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refused(raw, `uses ${url.protocol.replace(':', '')}; only http and https URLs belong to Search Console properties`);
  }
  if (url.username || url.password || /^[a-z]+:\/\/[^/?#]*@/i.test(raw)) {
    throw refused(raw, 'carries a user name or password before the host; remove it');
  }
  if (!url.hostname) {
    throw refused(raw, 'has no host');
  }
  if (url.hostname.endsWith('.')) {
    throw refused(raw, 'has a trailing dot after the host; write the host without it');
  }
  return url;
}

// Percent-encoded unreserved characters name the same resource as the
// characters themselves (RFC 3986 §6.2.2.2), so compare paths with them decoded.
function canonicalPath(path: string): string {
  return path.replace(/%([0-9a-f]{2})/gi, (match, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(ch) ? ch : match.toUpperCase();
  });
}

const inertShort = (value: string) => inert(value, 120);

function refused(raw: string, reason: string): PropertyError {
  return new PropertyError(`"${inertShort(raw)}" ${reason}`, reason);
}
