import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { inert } from '../common/inert-text.js';
import { capitalised, NOTHING_CHANGED, NOTHING_SENT } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import { GoogleApiError } from '../google/google-error.js';
import { actingIdentity } from '../google/connected-accounts.js';
import { GoogleService } from '../google/google.service.js';
import { normalizeProperty, pageInProperty, parsePageUrl, PropertyError } from '../property/property.js';
import { type AnnotationRef, parseAnnotationId } from '../property/annotation-id.js';
import { decodeResourceId } from '../property/resource-id.js';
import { isPageAllowed, isPropertyAllowed } from '../property/site-allowlist.js';
import { toVerifiedResource, type VerifiedResource } from '../property/verification-resource.js';
import type { ResolvedTarget, ToolCall } from '../tools/tool-call.js';

/**
 * Decides which property a call may touch, before any request goes out, and
 * hands the tool what it resolved (ToolCall.target). What it checks follows
 * from the target a tool declares (ToolSpec.target): `site` is the site_url
 * property (defaulting to GSC_SITE_URL), `page`/`pages` are the url/urls pages
 * (inside that property, or inside an allowed one), `resource` is the id of a
 * Site Verification resource (fetched, and its site mapped back to a
 * property), `annotation` is the id of an annotation (the property it names).
 * The properties allowed, and the rule that narrowed them, are what
 * AccessPolicy decided for the caller (ToolCall.access); the guard applies
 * that decision and never makes it again. A tool gets these checks by
 * declaring its target; it writes no policy code of its own.
 */
@Injectable()
export class SiteAccessGuard implements CanActivate {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly google: GoogleService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const [args, call] = context.getArgs<[Record<string, unknown>, ToolCall]>();
    const kinds = new Set(call.tool.spec.target ?? []);
    const target: { -readonly [K in keyof ResolvedTarget]: ResolvedTarget[K] } = {};
    if (kinds.has('site')) {
      target.site = this.resolveSite(args.site_url, call);
    }
    if (kinds.has('page')) {
      target.page = this.checkPage(args.url, target.site, call);
    }
    if (kinds.has('pages') && Array.isArray(args.urls)) {
      target.pages = args.urls.map((page) => this.checkPage(page, target.site, call));
    }
    if (kinds.has('resource') && typeof args.id === 'string') {
      target.resource = await this.fetchResource(args.id, call);
    }
    if (kinds.has('annotation') && typeof args.id === 'string') {
      target.annotation = this.checkAnnotation(args.id, call);
    }
    call.resolve(target);
    return true;
  }

  /** resolveSite: the argument or GSC_SITE_URL, normalised, then checked against GSC_ALLOWED_SITES. */
  private resolveSite(value: unknown, call: ToolCall): string {
    const given = typeof value === 'string' && value.trim() ? value : undefined;
    const raw = given ?? (call.tool.spec.newProperty ? undefined : this.config.siteUrl);
    if (!raw) {
      throw new UserFacingError(
        `site_url is required: name the property exactly as Search Console spells it, e.g. "sc-domain:example.com" or "https://www.example.com/" (list_sites shows them). ${NOTHING_SENT}`,
      );
    }
    let property: string;
    try {
      property = normalizeProperty(raw);
    } catch (error) {
      if (error instanceof PropertyError) {
        throw new UserFacingError(`site_url is not a property: ${error.message}. ${NOTHING_SENT}`);
      }
      throw error;
    }
    this.assertAllowed(property, call);
    return property;
  }

  private checkPage(value: unknown, site: string | undefined, call: ToolCall): URL {
    const allowed = call.sites;
    let page: URL;
    try {
      page = parsePageUrl(typeof value === 'string' ? value : '');
    } catch (error) {
      if (error instanceof PropertyError) {
        throw new UserFacingError(`The page URL is refused: ${error.message}. ${NOTHING_SENT}`);
      }
      throw error;
    }
    if (site) {
      if (!pageInProperty(page, site)) {
        throw new UserFacingError(
          `${page.href} is not part of the property ${site} (a URL-prefix property covers only URLs with its scheme, host and path; a domain property covers its host and subdomains). ${NOTHING_SENT} Use a URL inside ${site}, or the property that contains this URL.`,
        );
      }
    } else if (allowed && !isPageAllowed(page, allowed)) {
      throw new UserFacingError(
        `${page.href} is outside the properties allowed here (${allowed.join(', ')}). ${NOTHING_SENT} ${this.whereToAsk(call)}`,
      );
    }
    return page;
  }

  /**
   * The resource an `id` names, fetched once per call: the allowlist needs its
   * site, the dialog names its property, and a change acts on exactly what
   * the person was shown (the owners read here).
   */
  private async fetchResource(id: string, call: ToolCall): Promise<VerifiedResource> {
    const decoded = decodeResourceId(id);
    let resource: VerifiedResource;
    try {
      resource = toVerifiedResource(
        await this.google.call({ method: 'webResource.get', action: `read the Site Verification resource ${decoded}` }, (c) =>
          c.siteVerification.get(decoded),
        ),
      );
    } catch (error) {
      if (error instanceof GoogleApiError && error.status === 404) {
        throw new UserFacingError(
          `${capitalised(actingIdentity())} owns no Site Verification resource with id "${inert(decoded, 120)}", so ${call.tool.spec.name} has nothing to act on. ${NOTHING_CHANGED} list_verified_sites shows the ids it owns (e.g. dns%3A%2F%2Fexample.com).`,
        );
      }
      throw error;
    }
    if (call.sites) {
      if (!resource.property) {
        throw new UserFacingError(
          `The Site Verification resource ${decoded} is not a website or domain, so it cannot be matched against this server's allowed properties. ${NOTHING_CHANGED}`,
        );
      }
      this.assertAllowed(
        resource.property,
        call,
        `The Site Verification resource ${decoded} belongs to ${resource.property}, which`,
        'Only the lookup of that resource was sent to Google; nothing was changed.',
      );
    }
    return { ...resource, id: resource.id || id };
  }

  /**
   * An annotation id names its property (property/annotation-id.ts), which is checked like a site_url before the
   * store is read: the refusal names only what the caller wrote, so it says nothing of whether the note exists.
   */
  private checkAnnotation(id: string, call: ToolCall): AnnotationRef {
    const ref = parseAnnotationId(id);
    if (!ref) {
      throw new UserFacingError(
        `"${inert(id, 120)}" is not an annotation id: ids look like 1767225600000-0@sc-domain:example.com, and list_annotations shows them. ${NOTHING_CHANGED}`,
      );
    }
    this.assertAllowed(ref.site, call, `The annotation ${ref.id} belongs to ${ref.site}, which`, NOTHING_CHANGED);
    return ref;
  }

  private assertAllowed(property: string, call: ToolCall, subject = property, sent = NOTHING_SENT): void {
    const allowed = call.sites;
    if (allowed && !isPropertyAllowed(property, allowed)) {
      const whose = call.access.sitesRule ? `the properties allowed to ${inert(call.principal, 120)}` : "this server's allowed properties";
      throw new UserFacingError(`${subject} is outside ${whose} (${allowed.join(', ')}). ${sent} ${this.whereToAsk(call)}`);
    }
  }

  // Whoever can widen the list: GSC_ALLOWED_SITES does not help a caller whose own rule is narrower.
  private whereToAsk(call: ToolCall): string {
    const rule = call.access.sitesRule;
    return rule
      ? `Use one of those properties, or ask the operator to add it to the "sites" of rule ${rule.number} in ${rule.source}.`
      : 'Use one of those properties, or ask the operator to add it to GSC_ALLOWED_SITES.';
  }
}
