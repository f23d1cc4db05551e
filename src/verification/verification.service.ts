import { Inject, Injectable, Optional } from '@nestjs/common';
import { CONFIG, type Config } from '../config/config.js';
import { actingIdentity, ConnectedAccounts, perAccount } from '../google/connected-accounts.js';
import { NOTHING_SENT } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { GoogleApiError } from '../google/google-error.js';
import { GoogleService } from '../google/google.service.js';
import type { WebResource } from '../google/site-verification.client.js';
import { propertyToVerificationSite } from '../property/property.js';
import { resourceCovering, toVerifiedResource, type VerifiedResource } from '../property/verification-resource.js';
import {
  afterPlacing,
  defaultMethod,
  methodMismatch,
  type Placement,
  placementFor,
  type VerificationMethod,
  whatToCheck,
  whyNotFound,
} from './verification-methods.js';

export interface TokenInstructions {
  readonly method: VerificationMethod;
  readonly token: string;
  readonly record: Placement;
  readonly nextStep: string;
}

/** Site Verification (webResource.*). No MCP here. */
@Injectable()
export class VerificationService {
  constructor(
    private readonly google: GoogleService,
    @Optional() @Inject(CONFIG) private readonly config?: Config,
    @Optional() private readonly accounts?: ConnectedAccounts,
  ) {}

  /** Connected mode: the resources of every account of the calling person, each naming its account; otherwise the credential's. */
  async listAcross(): Promise<(VerifiedResource & { googleAccount?: string })[]> {
    const per = await perAccount(this.config?.connected ? this.accounts : undefined, () => this.list());
    return per.flatMap(({ googleEmail, value }) => value.map((r) => (googleEmail ? { ...r, googleAccount: googleEmail } : r)));
  }

  /** Refuses, before anything is sent, a method that cannot verify this kind of property. */
  checkMethod(property: string, method: VerificationMethod | undefined): VerificationMethod {
    const chosen = method ?? defaultMethod(property);
    const mismatch = methodMismatch(property, chosen);
    if (mismatch) {
      throw new UserFacingError(
        `${mismatch} ${NOTHING_SENT} Call again with one of the methods that fit, or leave method out for the default.`,
      );
    }
    return chosen;
  }

  /** webResource.getToken: a POST that claims nothing. Returns the token and what to do with it. */
  async token(property: string, method?: VerificationMethod): Promise<TokenInstructions> {
    const chosen = this.checkMethod(property, method);
    const data = await this.google.call(
      { method: 'webResource.getToken', action: `get a ${chosen} verification token for ${property}` },
      (c) => c.siteVerification.getToken({ site: propertyToVerificationSite(property), verificationMethod: chosen }),
    );
    const token = data.token ?? '';
    if (!token) {
      throw new UserFacingError(`Google returned no ${chosen} token for ${property}. Nothing was changed. Retry, or try another method.`);
    }
    return { method: chosen, token, record: placementFor(property, chosen, token), nextStep: afterPlacing(chosen) };
  }

  /** webResource.insert: asks Google to check the placed token and make this credential a verified owner. */
  async verify(property: string, method: VerificationMethod): Promise<VerifiedResource> {
    const chosen = this.checkMethod(property, method);
    try {
      const data = await this.google.call({ method: 'webResource.insert', action: `verify ownership of ${property} with ${chosen}` }, (c) =>
        c.siteVerification.insert(chosen, { site: propertyToVerificationSite(property) }),
      );
      return toVerifiedResource(data);
    } catch (error) {
      if (error instanceof GoogleApiError && error.kind === 'invalid' && error.status === 400) {
        const said = error.googleMessage ? `"${error.googleMessage.replace(/\s+/g, ' ').slice(0, 300)}"` : undefined;
        throw new UserFacingError(
          `Google could not verify ownership of ${property} with ${chosen}${said ? `: ${said}` : ''}. ${whyNotFound(chosen)} ` +
            `Nothing was changed. Check that ${whatToCheck(property, chosen)}, then call verify_site again with method ${chosen}.`,
        );
      }
      throw error;
    }
  }

  /**
   * The resource through which this credential is already a verified owner of
   * a property (webResource.list lists only the caller's own), or undefined —
   * also when the list cannot be read (a verify-only credential may not list).
   */
  async verifiedBy(property: string): Promise<VerifiedResource | undefined> {
    try {
      return resourceCovering(property, await this.list());
    } catch (error) {
      if (error instanceof GoogleApiError && (error.kind === 'permission' || error.kind === 'scope')) {
        return undefined;
      }
      throw error;
    }
  }

  async list(): Promise<VerifiedResource[]> {
    const data = await this.google.call(
      { method: 'webResource.list', action: `list the sites and domains ${actingIdentity()} has verified` },
      (c) => c.siteVerification.list(),
    );
    return (data.items ?? []).map(toVerifiedResource);
  }

  /** webResource.update: PUT the whole resource with the owner list replaced. */
  async replaceOwners(id: string, current: VerifiedResource, owners: readonly string[]): Promise<VerifiedResource> {
    const body: WebResource = { id: current.id, site: { type: current.type, identifier: current.identifier }, owners: [...owners] };
    const data = await this.google.call({ method: 'webResource.update', action: `replace the owners of ${current.property ?? id}` }, (c) =>
      c.siteVerification.update(id, body),
    );
    return toVerifiedResource(data);
  }

  /** webResource.patch: send only the new owner list. */
  async patchOwners(id: string, owners: readonly string[], property?: string): Promise<VerifiedResource> {
    const data = await this.google.call({ method: 'webResource.patch', action: `replace the owners of ${property ?? id}` }, (c) =>
      c.siteVerification.patch(id, { owners: [...owners] }),
    );
    return toVerifiedResource(data);
  }

  /** webResource.delete: gives up this credential's verified ownership. */
  async unverify(id: string, property?: string): Promise<void> {
    await this.google.call({ method: 'webResource.delete', action: `give up ownership of ${property ?? id}` }, (c) =>
      c.siteVerification.delete(id),
    );
  }
}
