import { verificationSiteToProperty } from './property.js';

/** A Site Verification resource as policy and tools use it. */
export interface VerifiedResource {
  /** Exactly as Google returns it (percent-encoded). */
  readonly id: string;
  readonly type: string;
  readonly identifier: string;
  /** The Search Console property it stands for, when there is one. */
  readonly property?: string;
  readonly owners: readonly string[];
}

/** Google's webResource shape, as far as it matters here. */
export interface WebResourceData {
  id?: string | null;
  site?: { type?: string | null; identifier?: string | null } | null;
  owners?: string[] | null;
}

export function toVerifiedResource(data: WebResourceData): VerifiedResource {
  const site = { type: data.site?.type ?? '', identifier: data.site?.identifier ?? '' };
  return { id: data.id ?? '', ...site, property: verificationSiteToProperty(site), owners: data.owners ?? [] };
}
