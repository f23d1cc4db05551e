import type * as z from 'zod';
import { actingIdentity } from '../google/connected-accounts.js';
import { isDomainProperty, propertyHost } from '../property/property.js';
import type { RecordOut } from './verification.schemas.js';

// Which Site Verification methods fit which kind of property, and what the
// token Google hands out has to become before Google can find it: a TXT record
// at the apex, a <meta> tag in the home page's <head>, a file at the property's
// root. Pure functions; the service and the tools build on them.

export const VERIFICATION_METHODS = ['DNS_TXT', 'DNS_CNAME', 'META', 'FILE', 'ANALYTICS', 'TAG_MANAGER'] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];

const DOMAIN_METHODS: readonly VerificationMethod[] = ['DNS_TXT', 'DNS_CNAME'];
const SITE_METHODS: readonly VerificationMethod[] = ['META', 'FILE', 'ANALYTICS', 'TAG_MANAGER'];

/** The methods Google accepts for a property: DNS for domain properties, page-based ones for URL-prefix properties. */
export function methodsFor(property: string): readonly VerificationMethod[] {
  return isDomainProperty(property) ? DOMAIN_METHODS : SITE_METHODS;
}

export function defaultMethod(property: string): VerificationMethod {
  return isDomainProperty(property) ? 'DNS_TXT' : 'META';
}

/** Why a method cannot verify a property, or undefined when it can. */
export function methodMismatch(property: string, method: VerificationMethod): string | undefined {
  if (methodsFor(property).includes(method)) {
    return undefined;
  }
  return isDomainProperty(property)
    ? `${method} cannot verify the domain property ${property}: a domain property is verified only through DNS (DNS_TXT, or DNS_CNAME).`
    : `${method} cannot verify the URL-prefix property ${property}: it is verified through its pages (META, FILE, ANALYTICS or TAG_MANAGER); DNS verification belongs to the domain property sc-domain:${propertyHost(property)}.`;
}

export const RECORD_TYPES = ['TXT', 'CNAME', 'META', 'FILE', 'ANALYTICS', 'TAG_MANAGER'] as const;

/** What to put where so that Google finds the token: the schema tools answer with (RecordOut) is its one definition. */
export type Placement = z.infer<typeof RecordOut>;

const META_PREFIX = /^\s*<meta\b/i;

export function placementFor(property: string, method: VerificationMethod, token: string): Placement {
  const host = propertyHost(property);
  switch (method) {
    case 'DNS_TXT':
      return {
        type: 'TXT',
        name: `${host}.`,
        value: token,
        location: `a TXT record on ${host} itself (the apex: host "@" or blank in most DNS panels, not a subdomain); keep any other TXT records there`,
      };
    case 'DNS_CNAME': {
      // Google hands the CNAME token out as "<label> <target>".
      const [label, target, ...rest] = token.trim().split(/\s+/);
      if (label && target && rest.length === 0) {
        return {
          type: 'CNAME',
          name: `${label}.${host}.`,
          value: target,
          location: `a CNAME record named ${label} under ${host}, pointing at ${target}`,
        };
      }
      return { type: 'CNAME', value: token, location: `a CNAME record under ${host}, as Google's token describes it` };
    }
    case 'META':
      return {
        type: 'META',
        value: META_PREFIX.test(token) ? token : `<meta name="google-site-verification" content="${token}" />`,
        location: `inside <head> of ${property} (the property's home page), before <body>, served to a logged-out visitor without redirect`,
      };
    case 'FILE':
      return {
        type: 'FILE',
        name: token,
        value: `google-site-verification: ${token}`,
        location: `serve the file at ${property}${token} with HTTP 200 and exactly this content (no redirect, no login)`,
      };
    case 'ANALYTICS':
      return {
        type: 'ANALYTICS',
        value: token,
        location: `the <head> of ${property} must carry the Google Analytics tag (gtag.js or analytics.js) of an Analytics property ${actingIdentity()} can edit`,
      };
    case 'TAG_MANAGER':
      return {
        type: 'TAG_MANAGER',
        value: token,
        location: `${property} must carry the Google Tag Manager container snippet right after <body>, of a container ${actingIdentity()} can publish`,
      };
  }
}

/** One line on placing a record, for texts. */
export function describePlacement(placement: Placement): string {
  switch (placement.type) {
    case 'TXT':
      return `Add a TXT record named ${placement.name} (apex) with the value ${placement.value}`;
    case 'CNAME':
      return placement.name ? `Add a CNAME record ${placement.name} → ${placement.value}` : `Add the CNAME record ${placement.value}`;
    case 'META':
      return `Put ${placement.value} ${placement.location}`;
    case 'FILE':
      return `Create the file ${placement.name} containing "${placement.value}" and ${placement.location}`;
    default:
      return `Make sure ${placement.location}`;
  }
}

/** After placing: what verify_site needs, and how long it can take. */
export function afterPlacing(method: VerificationMethod): string {
  const wait = method.startsWith('DNS')
    ? 'DNS changes take minutes to hours (sometimes a day or more) to be visible to Google'
    : 'the page must be live before Google can see it';
  return `Then call verify_site with method ${method}; ${wait}, and verify_site fails until then. Leave the record in place afterwards: Google rechecks it, and removing it can cost the ownership.`;
}

/** Why Google found no token, in the terms of the method actually used (a META failure never talks about DNS). */
export function whyNotFound(method: VerificationMethod): string {
  switch (method) {
    case 'DNS_TXT':
      return 'Google did not find the TXT record: it is not published yet, is on a subdomain instead of the apex, or DNS changes have not reached Google yet (minutes to hours, sometimes a day or more).';
    case 'DNS_CNAME':
      return 'Google did not find the CNAME record: it is not published yet, has a different name or target, or DNS changes have not reached Google yet (minutes to hours, sometimes a day or more).';
    case 'META':
      return 'Google did not find the <meta> tag in the home page it fetched: the page is not deployed with it yet, the tag sits outside <head>, or the page redirects, needs a login or is blocked by robots.txt.';
    case 'FILE':
      return 'Google did not find the verification file: it is not uploaded yet, not at the root of the property, answers with a redirect or an error instead of HTTP 200, or its content differs.';
    case 'ANALYTICS':
      return `Google did not find a usable Google Analytics tag: the tag is not in the <head> of the home page, or ${actingIdentity()} has no edit access to that Analytics property.`;
    case 'TAG_MANAGER':
      return `Google did not find a usable Google Tag Manager container: the snippet is not on the home page right after <body>, or ${actingIdentity()} cannot publish that container.`;
  }
}

/** What to check when verification fails: the token is almost always not visible yet. */
export function whatToCheck(property: string, method: VerificationMethod): string {
  const host = propertyHost(property);
  switch (method) {
    case 'DNS_TXT':
      return `a TXT record on ${host} itself (the apex, not a subdomain) holds exactly the token from get_verification_token — \`dig +short TXT ${host}\` should list it`;
    case 'DNS_CNAME':
      return `the CNAME record from get_verification_token exists under ${host} — \`dig +short CNAME <its name>\` should show the target`;
    case 'META':
      return `the <meta name="google-site-verification"> tag from get_verification_token is in the <head> of ${property} as served to a logged-out visitor (view the page source; no redirect, login or robots.txt block)`;
    case 'FILE':
      return `the verification file from get_verification_token is served at the root of ${property} with HTTP 200 and its exact content (no redirect or login)`;
    case 'ANALYTICS':
      return `the Google Analytics tag is in the <head> of ${property} and ${actingIdentity()} has edit access to that Analytics property`;
    case 'TAG_MANAGER':
      return `the Google Tag Manager container snippet is on ${property} and ${actingIdentity()} can publish that container`;
  }
}
