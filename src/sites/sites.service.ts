import { Injectable } from '@nestjs/common';
import { GoogleService } from '../google/google.service.js';

export interface SiteEntry {
  readonly siteUrl: string;
  readonly permissionLevel: string;
}

/** Search Console properties (sites.list/get/add/delete). No MCP here. */
@Injectable()
export class SitesService {
  constructor(private readonly google: GoogleService) {}

  async list(): Promise<SiteEntry[]> {
    const data = await this.google.call({ action: 'list the Search Console properties', retry: true, write: false }, () =>
      this.google.searchconsole().sites.list({}),
    );
    return (data.siteEntry ?? []).map(toEntry);
  }

  async get(property: string): Promise<SiteEntry> {
    const data = await this.google.call({ action: `read the property ${property}`, property, retry: true, write: false }, () =>
      this.google.searchconsole().sites.get({ siteUrl: property }),
    );
    return toEntry(data);
  }

  async add(property: string): Promise<void> {
    await this.google.call({ action: `add the property ${property}`, property, retry: true, write: true }, () =>
      this.google.searchconsole().sites.add({ siteUrl: property }),
    );
  }

  async delete(property: string): Promise<void> {
    await this.google.call({ action: `remove the property ${property}`, property, retry: true, write: true }, () =>
      this.google.searchconsole().sites.delete({ siteUrl: property }),
    );
  }
}

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
