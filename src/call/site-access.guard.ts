import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { inert } from '../common/inert-text.js';
import { capitalised, NOTHING_CHANGED } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import { GoogleApiError } from '../google/google-error.js';
import { actingIdentity } from '../google/connected-accounts.js';
import { GoogleService } from '../google/google.service.js';
import { toVerifiedResource, type VerifiedResource } from '../property/verification-resource.js';
import type { Checked } from '../tools/call-scope.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { ResolvedTarget } from '../tools/tool-target.js';
import { allowed, targetOf, type TargetContext } from './target.js';

/**
 * The site-access step: which property a call may touch, decided before any
 * request goes out, and what the tool receives (ToolCall.target). The checks
 * themselves are target.ts's, made once from the arguments by the target
 * step: this guard refuses with the first one that failed (site, page, pages,
 * annotation), fetches the Site Verification resource an `id` names (as the
 * account the account step settled) and checks its property, and hands the
 * tool what resolved. The properties allowed, and the rule that narrowed
 * them, are what AccessPolicy decided for the caller (ToolCall.access); the
 * guard applies that decision and never makes it again. A tool gets these
 * checks by declaring its target; it writes no policy code of its own.
 */
@Injectable()
export class SiteAccessGuard implements CanActivate {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly google: GoogleService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const [args, call] = context.getArgs<[Record<string, unknown>, ToolCall]>();
    const parsed = call.scope.target ?? targetOf(call.tool.spec, args, this.contextOf(call));
    const target: { -readonly [K in keyof ResolvedTarget]: ResolvedTarget[K] } = {};
    if (parsed.site) {
      target.site = valueOf(parsed.site);
    }
    if (parsed.page) {
      target.page = valueOf(parsed.page);
    }
    if (parsed.pages) {
      target.pages = parsed.pages.map(valueOf);
    }
    if (parsed.resourceId !== undefined) {
      target.resource = await this.fetchResource(parsed.resourceId, String(args.id), call);
    }
    if (parsed.annotation) {
      target.annotation = valueOf(parsed.annotation);
    }
    call.resolve(target);
    return true;
  }

  private contextOf(call: ToolCall): TargetContext {
    return { ...(this.config.siteUrl ? { siteUrl: this.config.siteUrl } : {}), principal: call.principal, access: call.access };
  }

  /**
   * The resource an `id` names, fetched once per call: the allowlist needs its
   * site, the dialog names its property, and a change acts on exactly what
   * the person was shown (the owners read here).
   */
  private async fetchResource(decoded: string, id: string, call: ToolCall): Promise<VerifiedResource> {
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
      const refused = allowed(
        resource.property,
        this.contextOf(call),
        `The Site Verification resource ${decoded} belongs to ${resource.property}, which`,
        'Only the lookup of that resource was sent to Google; nothing was changed.',
      );
      if (refused) {
        throw new UserFacingError(refused.refusal);
      }
    }
    return { ...resource, id: resource.id || id };
  }
}

/** The checked value, or the refusal as the sentence the call answers with. */
function valueOf<T>(checked: Checked<T>): T {
  if (checked.refusal !== undefined) {
    throw new UserFacingError(checked.refusal);
  }
  return checked.value;
}
