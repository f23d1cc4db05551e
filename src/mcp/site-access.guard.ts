import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import { GoogleService } from '../google/google.service.js';
import { normalizeProperty, pageInProperty, parsePageUrl, PropertyError, verificationSiteToProperty } from '../property/property.js';
import { isPageAllowed, isPropertyAllowed } from '../property/site-allowlist.js';
import { decodeResourceId } from '../property/resource-id.js';
import type { ToolCall } from './tool-call.js';

const NOTHING_SENT = 'Nothing was sent to Google.';

/**
 * Decides which property a call may touch, before any request goes out. What
 * it checks follows from the arguments a tool declares: `site_url` is a
 * property (defaulting to GSC_SITE_URL), `url`/`urls` are pages (inside that
 * property, or inside an allowed one), `id` is a Site Verification resource
 * (fetched, and its site mapped back to a property). A tool gets these checks
 * by declaring the argument; it writes no policy code of its own.
 */
@Injectable()
export class SiteAccessGuard implements CanActivate {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly google: GoogleService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType<string>() !== 'mcp') return true;
    const [args, call] = context.getArgs() as [Record<string, unknown>, ToolCall];
    const shape = call.spec.input.shape;
    if ('site_url' in shape) call.site = this.resolveSite(args.site_url, call);
    const pages = 'urls' in shape ? args.urls : 'url' in shape ? [args.url] : undefined;
    if (Array.isArray(pages)) call.pages = pages.map((page) => this.checkPage(page, call.site));
    if ('id' in shape && typeof args.id === 'string' && this.config.allowedSites) await this.checkResource(args.id, call);
    return true;
  }

  /** resolveSite: the argument or GSC_SITE_URL, normalised, then checked against GSC_ALLOWED_SITES. */
  resolveSite(value: unknown, call: ToolCall): string {
    const given = typeof value === 'string' && value.trim() ? value : undefined;
    const raw = given ?? (call.spec.newProperty ? undefined : this.config.siteUrl);
    if (!raw) {
      throw new UserFacingError(
        `site_url is required: name the property exactly as Search Console spells it, e.g. "sc-domain:example.com" or "https://www.example.com/" (list_sites shows them). ${NOTHING_SENT}`,
      );
    }
    let property: string;
    try {
      property = normalizeProperty(raw);
    } catch (error) {
      if (error instanceof PropertyError) throw new UserFacingError(`site_url is not a property: ${error.message}. ${NOTHING_SENT}`);
      throw error;
    }
    this.assertAllowed(property);
    return property;
  }

  private checkPage(value: unknown, site: string | undefined): URL {
    let page: URL;
    try {
      page = parsePageUrl(String(value ?? ''));
    } catch (error) {
      if (error instanceof PropertyError) throw new UserFacingError(`The page URL is refused: ${error.message}. ${NOTHING_SENT}`);
      throw error;
    }
    if (site) {
      if (!pageInProperty(page, site)) {
        throw new UserFacingError(
          `${page.href} is not part of the property ${site} (a URL-prefix property covers only URLs with its scheme, host and path; a domain property covers its host and subdomains). ${NOTHING_SENT} Use a URL inside ${site}, or the property that contains this URL.`,
        );
      }
    } else if (this.config.allowedSites && !isPageAllowed(page, this.config.allowedSites)) {
      throw new UserFacingError(`${page.href} is outside this server's allowed properties (${this.config.allowedSites.join(', ')}). ${NOTHING_SENT}`);
    }
    return page;
  }

  private async checkResource(id: string, call: ToolCall): Promise<void> {
    const decoded = decodeResourceId(id);
    const resource = await this.google.call({ method: 'webResource.get', action: `look up the Site Verification resource ${decoded}` }, (c) => c.siteVerification.get(decoded));
    const property = verificationSiteToProperty(resource.site ?? undefined);
    if (!property) {
      throw new UserFacingError(`The Site Verification resource ${decoded} is not a website or domain, so it cannot be matched against this server's allowed properties. Nothing was changed.`);
    }
    this.assertAllowed(property, `The Site Verification resource ${decoded} belongs to ${property}, which`, 'Only the lookup of that resource was sent to Google; nothing was changed.');
    call.resource = {
      id: resource.id ?? id,
      site: { type: resource.site?.type ?? '', identifier: resource.site?.identifier ?? '' },
      owners: resource.owners ?? [],
    };
  }

  private assertAllowed(property: string, subject = property, sent = NOTHING_SENT): void {
    const allowed = this.config.allowedSites;
    if (allowed && !isPropertyAllowed(property, allowed)) {
      throw new UserFacingError(`${subject} is outside this server's allowed properties (${allowed.join(', ')}). ${sent} Use one of those properties, or ask the operator to add it to GSC_ALLOWED_SITES.`);
    }
  }
}
