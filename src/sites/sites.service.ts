import { Inject, Injectable, Optional } from '@nestjs/common';
import { CONFIG, type Config } from '../config/config.js';
import { ConnectedAccounts, perAccount } from '../google/connected-accounts.js';
import { GoogleApiError } from '../google/google-error.js';
import { GoogleService } from '../google/google.service.js';
import { resourceCovering, type VerifiedResource } from '../property/verification-resource.js';
import { type TokenInstructions, VerificationService } from '../verification/verification.service.js';

export interface SiteEntry {
  readonly siteUrl: string;
  readonly permissionLevel: string;
}

/** Search Console properties (sites.list/get/add/delete). No MCP here. */
@Injectable()
export class SitesService {
  constructor(
    private readonly google: GoogleService,
    private readonly verification: VerificationService,
    @Optional() @Inject(CONFIG) private readonly config?: Config,
    @Optional() private readonly accounts?: ConnectedAccounts,
  ) {}

  /** Connected mode: the properties of every account of the calling person, each naming its account; otherwise the credential's. */
  async listAcross(): Promise<(SiteEntry & { googleAccount?: string })[]> {
    const per = await perAccount(this.config?.connected ? this.accounts : undefined, () => this.list());
    return per.flatMap(({ googleEmail, value }) => value.map((s) => (googleEmail ? { ...s, googleAccount: googleEmail } : s)));
  }

  async list(): Promise<SiteEntry[]> {
    const data = await this.google.call({ method: 'sites.list', action: 'list the Search Console properties' }, (c) =>
      c.searchconsole.sites.list({}),
    );
    return (data.siteEntry ?? []).map(toEntry);
  }

  async get(property: string): Promise<SiteEntry> {
    const data = await this.google.call({ method: 'sites.get', action: `read the property ${property}`, property }, (c) =>
      c.searchconsole.sites.get({ siteUrl: property }),
    );
    return toEntry(data);
  }

  async add(property: string): Promise<void> {
    await this.google.call({ method: 'sites.add', action: `add the property ${property}`, property }, (c) =>
      c.searchconsole.sites.add({ siteUrl: property }),
    );
  }

  async delete(property: string): Promise<void> {
    await this.google.call({ method: 'sites.delete', action: `remove the property ${property}`, property }, (c) =>
      c.searchconsole.sites.delete({ siteUrl: property }),
    );
  }

  /**
   * Which of token → place → verify → add a property still lacks, changing
   * nothing: sites.get, webResource.list and, when ownership is missing,
   * webResource.getToken (a POST that claims nothing).
   */
  async setupStatus(property: string): Promise<SetupStatus> {
    const [site, resources] = await Promise.all([this.find(property), this.verification.list()]);
    // Its own resource first, else one above it: the resource get_verification_token and verify_site name too.
    const verifiedBy = resourceCovering(property, resources);
    if (verifiedBy || site?.permissionLevel === 'siteOwner') {
      return { property, site, verifiedBy };
    }
    try {
      return { property, site, token: await this.verification.token(property) };
    } catch (error) {
      if (error instanceof GoogleApiError) {
        return { property, site, tokenError: error.message };
      }
      throw error;
    }
  }

  /** sites.get, with "refused" (403: not in this account, or no access; 404) read as absent. */
  private async find(property: string): Promise<SiteEntry | undefined> {
    try {
      return await this.get(property);
    } catch (error) {
      if (error instanceof GoogleApiError && (error.kind === 'not_found' || error.kind === 'permission')) {
        return undefined;
      }
      throw error;
    }
  }
}

/** Where a property stands on the way token → place → verify → add; found by reads only. */
export interface SetupStatus {
  readonly property: string;
  /** The property as this account has it in Search Console; undefined when sites.get refuses it. */
  readonly site?: SiteEntry;
  /** A verified resource of this credential that covers the property. */
  readonly verifiedBy?: VerifiedResource;
  /** When ownership is missing: the token and the record to place (getToken claims nothing). */
  readonly token?: TokenInstructions;
  /** Why no token could be fetched, when that failed. */
  readonly tokenError?: string;
}

// GoogleService has checked that sites.get carries a siteUrl; a listed entry without one is dropped.
function toEntry(site: { siteUrl?: string | null; permissionLevel?: string | null }): SiteEntry {
  return { siteUrl: site.siteUrl ?? '', permissionLevel: site.permissionLevel ?? 'siteUnverifiedUser' };
}

/** What a permission level lets the credential do, in words. */
export function describePermission(level: string): string {
  switch (level) {
    case 'siteOwner':
      return 'owner (full control, including users, verification and the Indexing API)';
    case 'siteFullUser':
      return 'full user (all data, most changes)';
    case 'siteRestrictedUser':
      return 'restricted user (most data, read-only)';
    case 'siteUnverifiedUser':
      return 'unverified (no access to data until ownership is verified)';
    default:
      return level;
  }
}
