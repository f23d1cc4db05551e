import { verificationSiteToProperty } from '../property/property.js';
import { parsePropertyQuery, type PropertySubject } from '../property/property-match.js';
import { decodeResourceId } from '../property/resource-id.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import { hostKey, propertyKey } from './account-memory.js';
import type { ToolCall } from '../tools/tool-call.js';

// What a call's arguments name at Google, read before any account is looked
// up (AccountResolution then matches it over the accounts' properties), and
// the words and memory keys that follow from it.

/**
 * What a call's arguments name at Google: a property or a page, matched over
 * the accounts' sites.list by the one rule (property-match.ts); a property
 * add_site creates; a Site Verification resource (and the property its site
 * maps to, when it maps to one); or arguments the guard refuses.
 */
export type Subject =
  | PropertySubject
  | { readonly kind: 'new'; readonly property: string }
  | { readonly kind: 'resource'; readonly id: string; readonly property?: string }
  | { readonly kind: 'refused' };

/**
 * What the arguments name, parsed and checked against the caller's properties
 * (parsePropertyQuery) before any account is looked up; `siteUrl` is
 * GSC_SITE_URL, for a tool called without site_url. undefined: the tool takes
 * no property. A tool taking a list of pages names its property by site_url
 * (inspect_urls): a list alone names no one property.
 */
export function subjectOf(call: ToolCall, args: Record<string, unknown>, siteUrl: string | undefined): Subject | undefined {
  const kinds = new Set(call.tool.spec.target ?? []);
  // No property, one that does not parse, or one outside the allowlist: SiteAccessGuard refuses it before anything is sent.
  const refused = { kind: 'refused' } as const;
  if (kinds.has('site')) {
    const given = typeof args.site_url === 'string' && args.site_url.trim() ? args.site_url : undefined;
    const raw = given ?? (call.tool.spec.newProperty ? undefined : siteUrl);
    const parsed = raw === undefined ? refused : parsePropertyQuery({ siteUrl: raw }, call.sites);
    if (parsed.kind !== 'site') {
      return refused;
    }
    return call.tool.spec.newProperty ? { kind: 'new', property: parsed.property } : parsed;
  }
  if (kinds.has('page')) {
    const parsed = typeof args.url === 'string' ? parsePropertyQuery({ pageUrl: args.url }, call.sites) : refused;
    return parsed.kind === 'page' ? parsed : refused;
  }
  if (kinds.has('resource') && typeof args.id === 'string' && args.id.trim()) {
    // The guard fetches the resource (as the account resolved here) and checks its site against the allowlist.
    const id = decodeResourceId(args.id);
    const dns = /^dns:\/\//i.exec(id);
    const property = verificationSiteToProperty(
      dns ? { type: 'INET_DOMAIN', identifier: id.slice(dns[0].length) } : { type: 'SITE', identifier: id },
    );
    return { kind: 'resource', id, ...(property ? { property } : {}) };
  }
  return kinds.size > 0 ? refused : undefined;
}

/** Where the account a call used is remembered: its property; for a page, also its host (PRODUCT.md §8d: what "used before" means). */
export function memoryKeys(subject: Exclude<Subject, { kind: 'refused' }>, property: string | undefined): string[] {
  if (subject.kind === 'page') {
    return [hostKey(subject.page.hostname), ...(property ? [propertyKey(property)] : [])];
  }
  return subject.kind === 'new' || !property ? [] : [propertyKey(property)];
}

/**
 * What a question names: a page with the property it belongs to — or only the
 * page, when a narrower allowlist entry let it through and that property is
 * one the person may not see.
 */
export function whatOf(subject: Subject, property: string, allowed: readonly string[] | undefined): string {
  if (subject.kind !== 'page') {
    return property;
  }
  return !allowed || isPropertyAllowed(property, allowed) ? `${subject.page.href} (property ${property})` : subject.page.href;
}
