import { inert } from '../common/inert-text.js';
import { NOTHING_CHANGED, NOTHING_SENT } from '../common/sentences.js';
import type { Access } from '../policy/policy-resolution.js';
import { type AnnotationRef, parseAnnotationId } from '../property/annotation-id.js';
import { normalizeProperty, pageInProperty, parsePageUrl, PropertyError, verificationSiteToProperty } from '../property/property.js';
import { parsePropertyQuery } from '../property/property-match.js';
import { decodeResourceId } from '../property/resource-id.js';
import { isPageAllowed, isPropertyAllowed } from '../property/site-allowlist.js';
import type { Checked, Subject, Target, TargetKind } from '../tools/call-scope.js';
import type { ToolSpec } from '../tools/tool-spec.js';

/** What target.ts reads besides the arguments: GSC_SITE_URL, and who calls with which properties allowed. */
export interface TargetContext {
  /** GSC_SITE_URL: the property of a call without site_url. */
  readonly siteUrl?: string;
  readonly principal: string;
  readonly access: Pick<Access, 'sites' | 'sitesRule'>;
}

/**
 * A call's target, from its arguments alone (pure: no request, no store): the
 * one parser every step reads (call/target.step.ts settles it in the scope).
 * Which arguments it reads follows from the target the tool declares
 * (ToolSpec.target). A check that fails carries the sentence the site-access
 * step refuses with; the subject is what the account step matches over the
 * accounts' properties (undefined: the tool takes no property).
 */
export function targetOf(spec: Pick<ToolSpec, 'target' | 'newProperty'>, args: Record<string, unknown>, context: TargetContext): Target {
  const kinds = new Set<TargetKind>(spec.target ?? []);
  const target: { -readonly [K in keyof Target]: Target[K] } = { kinds };
  if (kinds.has('site')) {
    target.site = checkSite(args.site_url, spec, context);
  }
  const site = target.site?.refusal === undefined ? target.site?.value : undefined;
  if (kinds.has('page')) {
    target.page = checkPage(args.url, site, context);
  }
  if (kinds.has('pages') && Array.isArray(args.urls)) {
    target.pages = args.urls.map((page) => checkPage(page, site, context));
  }
  if (kinds.has('resource') && typeof args.id === 'string') {
    target.resourceId = decodeResourceId(args.id);
  }
  if (kinds.has('annotation') && typeof args.id === 'string') {
    target.annotation = checkAnnotation(args.id, context);
  }
  target.subject = subjectOf(kinds, spec, args, context);
  return target;
}

/**
 * What the arguments name at Google, parsed and checked against the caller's
 * properties (parsePropertyQuery) before any account is looked up. A tool
 * taking a list of pages names its property by site_url (inspect_urls): a list
 * alone names no one property.
 */
function subjectOf(
  kinds: ReadonlySet<TargetKind>,
  spec: Pick<ToolSpec, 'newProperty'>,
  args: Record<string, unknown>,
  context: TargetContext,
): Subject | undefined {
  const sites = context.access.sites;
  // No property, one that does not parse, or one outside the allowlist: the site-access step refuses it before anything is sent.
  const refused = { kind: 'refused' } as const;
  if (kinds.has('site')) {
    const raw = givenSite(args.site_url) ?? (spec.newProperty ? undefined : context.siteUrl);
    const parsed = raw === undefined ? refused : parsePropertyQuery({ siteUrl: raw }, sites);
    if (parsed.kind !== 'site') {
      return refused;
    }
    return spec.newProperty ? { kind: 'new', property: parsed.property } : parsed;
  }
  if (kinds.has('page')) {
    const parsed = typeof args.url === 'string' ? parsePropertyQuery({ pageUrl: args.url }, sites) : refused;
    return parsed.kind === 'page' ? parsed : refused;
  }
  if (kinds.has('resource') && typeof args.id === 'string' && args.id.trim()) {
    // The site-access step fetches the resource (as the account resolved for it) and checks its site against the allowlist.
    const id = decodeResourceId(args.id);
    const dns = /^dns:\/\//i.exec(id);
    const property = verificationSiteToProperty(
      dns ? { type: 'INET_DOMAIN', identifier: id.slice(dns[0].length) } : { type: 'SITE', identifier: id },
    );
    return { kind: 'resource', id, ...(property ? { property } : {}) };
  }
  return kinds.size > 0 ? refused : undefined;
}

function givenSite(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** site_url or GSC_SITE_URL, normalised, then checked against the caller's properties. */
function checkSite(value: unknown, spec: Pick<ToolSpec, 'newProperty'>, context: TargetContext): Checked<string> {
  const raw = givenSite(value) ?? (spec.newProperty ? undefined : context.siteUrl);
  if (!raw) {
    return {
      refusal: `site_url is required: name the property exactly as Search Console spells it, e.g. "sc-domain:example.com" or "https://www.example.com/" (list_sites shows them). ${NOTHING_SENT}`,
    };
  }
  let property: string;
  try {
    property = normalizeProperty(raw);
  } catch (error) {
    if (error instanceof PropertyError) {
      return { refusal: `site_url is not a property: ${error.message}. ${NOTHING_SENT}` };
    }
    throw error;
  }
  return allowed(property, context) ?? { value: property };
}

function checkPage(value: unknown, site: string | undefined, context: TargetContext): Checked<URL> {
  const sites = context.access.sites;
  let page: URL;
  try {
    page = parsePageUrl(typeof value === 'string' ? value : '');
  } catch (error) {
    if (error instanceof PropertyError) {
      return { refusal: `The page URL is refused: ${error.message}. ${NOTHING_SENT}` };
    }
    throw error;
  }
  if (site) {
    if (!pageInProperty(page, site)) {
      return {
        refusal: `${page.href} is not part of the property ${site} (a URL-prefix property covers only URLs with its scheme, host and path; a domain property covers its host and subdomains). ${NOTHING_SENT} Use a URL inside ${site}, or the property that contains this URL.`,
      };
    }
  } else if (sites && !isPageAllowed(page, sites)) {
    return { refusal: `${page.href} is outside the properties allowed here (${sites.join(', ')}). ${NOTHING_SENT} ${whereToAsk(context)}` };
  }
  return { value: page };
}

/**
 * An annotation id names its property (property/annotation-id.ts), which is checked like a site_url before the
 * store is read: the refusal names only what the caller wrote, so it says nothing of whether the note exists.
 */
function checkAnnotation(id: string, context: TargetContext): Checked<AnnotationRef> {
  const ref = parseAnnotationId(id);
  if (!ref) {
    return {
      refusal: `"${inert(id, 120)}" is not an annotation id: ids look like 1767225600000-0@sc-domain:example.com, and list_annotations shows them. ${NOTHING_CHANGED}`,
    };
  }
  return allowed(ref.site, context, `The annotation ${ref.id} belongs to ${ref.site}, which`, NOTHING_CHANGED) ?? { value: ref };
}

/** undefined when the caller may use `property`; else the refusal, naming whoever can widen the list. */
export function allowed(
  property: string,
  context: TargetContext,
  subject = property,
  sent = NOTHING_SENT,
): { refusal: string } | undefined {
  const sites = context.access.sites;
  if (!sites || isPropertyAllowed(property, sites)) {
    return undefined;
  }
  const whose = context.access.sitesRule
    ? `the properties allowed to ${inert(context.principal, 120)}`
    : "this server's allowed properties";
  return { refusal: `${subject} is outside ${whose} (${sites.join(', ')}). ${sent} ${whereToAsk(context)}` };
}

// Whoever can widen the list: GSC_ALLOWED_SITES does not help a caller whose own rule is narrower.
function whereToAsk(context: TargetContext): string {
  const rule = context.access.sitesRule;
  return rule
    ? `Use one of those properties, or ask the operator to add it to the "sites" of rule ${rule.number} in ${rule.source}.`
    : 'Use one of those properties, or ask the operator to add it to GSC_ALLOWED_SITES.';
}
