// Search Console's scoping rules, written independently of the product's own
// implementation so that tests compare two readings of Google's rules.

import type { VerificationSite } from './emulator-types.js';

export function isDomainProperty(property: string): boolean {
  return property.startsWith('sc-domain:');
}

function parseHttp(url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return undefined;
    }
    return parsed;
  } catch {
    return undefined;
  }
}

function hostWithin(host: string, domain: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  const d = domain.toLowerCase();
  return h === d || h.endsWith(`.${d}`);
}

/** A syntactically valid property string as Search Console stores them. */
export function isValidPropertyString(property: string): boolean {
  if (isDomainProperty(property)) {
    return /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(property.slice('sc-domain:'.length));
  }
  const url = parseHttp(property);
  return !!url && property.endsWith('/') && !url.search && !url.hash && !url.username && !url.password;
}

/**
 * Whether a page URL belongs to a property: sc-domain covers every subdomain
 * and both schemes; a URL-prefix property needs the same scheme, host and port
 * and a path starting with the property's path (case-sensitive).
 */
export function urlInProperty(pageUrl: string, property: string): boolean {
  const page = parseHttp(pageUrl);
  if (!page) {
    return false;
  }
  if (isDomainProperty(property)) {
    return hostWithin(page.hostname, property.slice('sc-domain:'.length));
  }
  const prefix = parseHttp(property);
  if (!prefix) {
    return false;
  }
  if (page.protocol !== prefix.protocol || page.host !== prefix.host) {
    return false;
  }
  return page.pathname.startsWith(prefix.pathname);
}

/** The host a property is about. */
export function propertyHost(property: string): string {
  return isDomainProperty(property) ? property.slice('sc-domain:'.length) : (parseHttp(property)?.hostname ?? '');
}

/** The Site Verification id Google uses, percent-encoded as it appears in responses. */
export function resourceIdFor(site: VerificationSite): string {
  const decoded = site.type === 'INET_DOMAIN' ? `dns://${site.identifier}` : site.identifier;
  return encodeURIComponent(decoded);
}

/**
 * Whether a verified site proves ownership of a property: a domain covers
 * every property on it and its subdomains; a URL-prefix site covers itself and
 * properties below its path.
 */
export function siteCoversProperty(site: VerificationSite, property: string): boolean {
  if (site.type === 'INET_DOMAIN') {
    return hostWithin(propertyHost(property), site.identifier);
  }
  if (isDomainProperty(property)) {
    return false;
  }
  return urlInProperty(property, site.identifier);
}
