import { afterPlacing, defaultMethod, describePlacement } from '../verification/verification-methods.js';
import { describePermission, type SetupStatus } from './sites.service.js';
import { capitalised } from '../common/sentences.js';
import { actingIdentity } from '../google/connected-accounts.js';

// setup_site's verdict: which of token → place → verify → add a property
// still lacks, in words, from what SitesService.setupStatus read.

export const SETUP_STEPS = ['get_token', 'place_token', 'verify_ownership', 'add_property'] as const;

export interface SetupStep {
  readonly step: (typeof SETUP_STEPS)[number];
  readonly done: boolean;
  readonly detail: string;
}

/** Ownership is in place when a verification covers the property, or when Search Console already makes this credential an owner. */
function ownershipDone(status: SetupStatus): boolean {
  return status.verifiedBy !== undefined || status.site?.permissionLevel === 'siteOwner';
}

/** The four steps, in order. */
export function setupSteps(status: SetupStatus): SetupStep[] {
  const { property, site, verifiedBy, token, tokenError } = status;
  const owner = site?.permissionLevel === 'siteOwner';
  const owned = ownershipDone(status);
  const method = token?.method ?? defaultMethod(property);
  const tokenDetail = token
    ? `Not verified yet. The ${token.method} token is ${token.token} (get_verification_token returns the same, or one for another method).`
    : tokenError
      ? `Not verified yet, and the token could not be fetched: ${tokenError}`
      : verifiedBy
        ? 'Done: ownership is verified.'
        : `Not needed: ${actingIdentity()} is already an owner.`;
  return [
    { step: 'get_token', done: owned, detail: tokenDetail },
    {
      step: 'place_token',
      done: owned,
      detail: owned
        ? 'Done, or not needed.'
        : `${token ? describePlacement(token.record) : `Place the ${method} token`}. Whether it is already there cannot be seen without verify_site trying.`,
    },
    {
      step: 'verify_ownership',
      done: owned,
      detail: verifiedBy
        ? `Done: ${actingIdentity()} is a verified owner through ${verifiedBy.property} (resource id ${verifiedBy.id}).`
        : owner
          ? `${capitalised(actingIdentity())} is an owner in Search Console but has no verification of its own (ownership delegated by a verified owner); verify_site would make it independent.`
          : `Missing: once the token is in place, call verify_site with method ${method}.`,
    },
    {
      step: 'add_property',
      done: site !== undefined,
      detail: site
        ? `Done: in Search Console with permission ${describePermission(site.permissionLevel)}.`
        : `Missing: not in the Search Console of ${actingIdentity()} (or it has no access to it); call add_site.`,
    },
  ];
}

/** The one thing to do next. */
export function setupNextStep(status: SetupStatus): string {
  const { property, token, site } = status;
  const added = site !== undefined;
  if (!ownershipDone(status)) {
    const place = token
      ? `${describePlacement(token.record)}. ${afterPlacing(token.method)}`
      : 'Get the token with get_verification_token, place it, then call verify_site.';
    return `${place}${added ? '' : ' Then add the property with add_site.'}`;
  }
  if (!added) {
    return `Call add_site with site_url ${property}: ownership is verified, so it has data as soon as it is added.`;
  }
  return `Nothing to do: ${property} is verified and in Search Console.`;
}
