import { verificationSiteToProperty } from './property.js';
import { isPropertyAllowed } from './site-allowlist.js';

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

/**
 * The verified resource that makes a property verified: its own first (a
 * URL-prefix property with a resource of its own is verified through it), else
 * one above it — a verified owner of sc-domain:x owns every property on x, the
 * same containment GSC_ALLOWED_SITES uses.
 */
export function resourceCovering(property: string, resources: readonly VerifiedResource[]): VerifiedResource | undefined {
  return (
    resources.find((r) => r.property === property) ??
    resources.find((r) => r.property !== undefined && isPropertyAllowed(property, [r.property]))
  );
}
