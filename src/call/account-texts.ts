import type { ConnectedGrant } from '../google/connected-accounts.js';
import type { AccountView } from '../property/property-match.js';

// The sentences of account resolution (PRODUCT.md §8d "Never the wrong
// account, never silently"): which accounts have a property, which one a call
// would act as, and why it did not run. They name only properties the caller
// may use (GSC_ALLOWED_SITES narrowed by their policy rule) and count the rest.

/** One account a question offers, with its permission on the property when the call names one. */
export interface Offer {
  readonly grant: ConnectedGrant;
  readonly permissionLevel?: string;
}

/** A Search Console permission level in a few words (the chooser's titles, the token-path sentence). */
export function permissionWords(level: string | undefined): string {
  switch (level) {
    case 'siteOwner':
      return 'owner';
    case 'siteFullUser':
      return 'full user';
    case 'siteRestrictedUser':
      return 'restricted user, read-only';
    case 'siteUnverifiedUser':
      return 'unverified, no data';
    case undefined:
      return 'permission not known';
    default:
      return level;
  }
}

/** "alice@example.com (owner)" — what the chooser shows for one account. */
export function offerTitle(offer: Offer): string {
  return offer.permissionLevel === undefined
    ? offer.grant.googleEmail
    : `${offer.grant.googleEmail} (${permissionWords(offer.permissionLevel)})`;
}

export function offersList(offers: readonly Offer[]): string {
  return offers.map(offerTitle).join(', ');
}

/** Why the person is asked: several accounts have it, or the account calls for it used before is gone. */
export type AskReason =
  | { readonly kind: 'several' }
  | { readonly kind: 'gone'; readonly before: string }
  | { readonly kind: 'any'; readonly why: string }
  | { readonly kind: 'new' };

/** The question of the account chooser (form elicitation), the server's own words; e-mails and levels are Google's, shown as the choices too. */
export function chooserMessage(tool: string, what: string, offers: readonly Offer[], reason: AskReason): string {
  const choose = `Which one should ${tool} act as? Nothing is sent to Google until you choose.`;
  switch (reason.kind) {
    case 'gone':
      return `${goneSentence(what, reason.before)} ${offers.length === 1 ? 'This account has it' : 'These accounts have it'}: ${offersList(offers)}. ${choose}`;
    case 'any':
      return `${reason.why} Your connected Google accounts: ${offersList(offers)}. ${choose}`;
    case 'new':
      return `${tool} adds ${what} to one of your connected Google accounts (${offersList(offers)}). ${choose}`;
    case 'several':
      return `Several of your connected Google accounts have ${what} in Search Console: ${offersList(offers)}. ${choose}`;
  }
}

/** The token path's answer for the same question: no one can be asked, so the caller names the account. */
export function chooseByArgumentText(tool: string, what: string, offers: readonly Offer[], reason: AskReason): string {
  const head =
    reason.kind === 'gone'
      ? `${goneSentence(what, reason.before)} ${offers.length === 1 ? 'The account that has it now is' : 'The accounts that have it now are'} ${offersList(offers)};`
      : reason.kind === 'any'
        ? `${reason.why} Your connected Google accounts are ${offersList(offers)};`
        : reason.kind === 'new'
          ? `Several Google accounts are connected for you (${offersList(offers)}), and ${tool} adds ${what} to one of them;`
          : `Several of the Google accounts connected for you have ${what} in Search Console (${offersList(offers)});`;
  return (
    `${head} this client cannot show a person a choice, so ${tool} did not run and nothing was sent to Google. ` +
    `Call ${tool} again with the google_account argument set to the one to act as (e.g. "${offers[0].grant.googleEmail}").`
  );
}

function goneSentence(what: string, before: string): string {
  return `Calls for ${what} acted as ${before} until now, which is no longer connected for you (disconnected, or its access was revoked), so no other account takes its place without you choosing it.`;
}

export function notChosenText(tool: string, offers: readonly Offer[]): string {
  return `No Google account was chosen, so ${tool} did not run and nothing was sent to Google. Call it again with google_account set to one of ${offers.map((o) => o.grant.googleEmail).join(', ')}.`;
}

export function unknownAccountText(tool: string, named: string, grants: readonly ConnectedGrant[]): string {
  const yours = grants.map((g) => g.googleEmail).join(', ');
  return `google_account "${named.slice(0, 120)}" is not one of the Google accounts connected for you (${yours}), so ${tool} did not run and nothing was sent to Google. Use one of those, or connect that account first (list_google_accounts shows them).`;
}

export function withheldWords(withheld: number): string {
  return `${withheld} more ${withheld === 1 ? 'property' : 'properties'} withheld: outside the properties you may use here (GSC_ALLOWED_SITES, narrowed by a policy rule where one applies)`;
}

/** No account has it: each account with the properties the caller may use (matchProperty's views), the rest counted, and a link to connect another. */
export function noAccountText(
  tool: string,
  what: string,
  accounts: readonly Pick<AccountView<unknown>, 'email' | 'properties' | 'withheld'>[],
  link: { url: string; expiresAt: Date },
): string {
  const withheld = accounts.reduce((sum, a) => sum + a.withheld, 0);
  const seen = accounts
    .map(({ email, properties: shown, withheld: hidden }) => {
      const has = shown.length
        ? `${shown.slice(0, 10).join(', ')}${shown.length > 10 ? ` and ${shown.length - 10} more` : ''}`
        : hidden
          ? 'no property you may use here'
          : 'no properties';
      return `${email} has ${has}`;
    })
    .join('; ');
  const hidden = withheld ? `; ${withheldWords(withheld)}` : '';
  return (
    `None of the Google accounts connected for you has ${what} in Search Console (${seen}${hidden}), so ${tool} did not run and nothing was sent to Google. ` +
    `Use a property one of them has, or connect the Google account that has it: open ${link.url} in a browser before ${link.expiresAt.toISOString()}, then call ${tool} again.`
  );
}

/** google_account named an account without the property (or page): nothing sent; which accounts do have it. */
export function namedLacksText(tool: string, named: string, what: string, elsewhere: readonly string[]): string {
  const others = elsewhere.length
    ? `${elsewhere.join(', ')} ${elsewhere.length === 1 ? 'has' : 'have'} it: call ${tool} again with google_account set to ${elsewhere.length === 1 ? 'it' : 'one of them'}.`
    : 'None of the Google accounts connected for you has it.';
  return `${named} has no property for ${what} in Search Console, so ${tool} did not run and nothing was sent to Google. ${others}`;
}
