import { isDomainProperty, normalizeProperty, pageInProperty, parsePageUrl, PropertyError, propertyHost } from './property.js';
import { isPageAllowed, isPropertyAllowed, partitionAllowed } from './site-allowlist.js';

// Which property, held by which of a person's connected Google accounts, a
// call is about (PRODUCT.md §8d "Never the wrong account, never silently", the
// last paragraph). Pure: the accounts' sites.list answers come in, one of
// match / ambiguous / none comes out. The rule:
// - a site_url names one property exactly, spelled any way a person writes it
//   (scheme and host case, trailing slash, Unicode or punycode host, default
//   port, percent-encoded letters): never a property that covers it;
// - a page URL belongs to the exact property, else the longest URL-prefix
//   property covering it, else the narrowest sc-domain: property covering it,
//   over every account's properties together;
// - exactly one account holds that property → it; several → ask (never the
//   one with more rights, never the newest); none → refuse, naming only the
//   properties the caller may use.

/** One connected account's Search Console properties, as its sites.list returned them, and what the caller keeps to act as it. */
export interface AccountProperties<A> {
  readonly account: A;
  readonly email: string;
  readonly sites: readonly { readonly siteUrl: string; readonly permissionLevel: string }[];
}

/** What a call names: a property (site_url, GSC_SITE_URL, a Site Verification resource's site) or one page (url). */
export type PropertyQuery = { readonly siteUrl: string } | { readonly pageUrl: string };

/** The query parsed and checked against the caller's properties (GSC_ALLOWED_SITES narrowed by their rule). */
export type PropertySubject = { readonly kind: 'site'; readonly property: string } | { readonly kind: 'page'; readonly page: URL };
export type SubjectRefusal =
  /** The argument is no property or page URL (SiteAccessGuard refuses it with its own sentence). */
  | { readonly kind: 'invalid'; readonly reason: string }
  /** Outside the caller's allowed properties (SiteAccessGuard refuses it; no account is looked up). */
  | { readonly kind: 'outside'; readonly what: string };

/** One account holding the property a call resolved to. */
export interface Holding<A> {
  readonly account: A;
  readonly email: string;
  /** Normalised (normalizeProperty): what the call sends and names. */
  readonly property: string;
  /** The account's level on it, as sites.list said. */
  readonly permissionLevel: string;
}

/** One account's properties the caller may see, and how many more it has that the caller may not (never named). */
export interface AccountView<A> {
  readonly account: A;
  readonly email: string;
  readonly properties: readonly string[];
  readonly withheld: number;
}

export type PropertyMatch<A> =
  | ({ readonly kind: 'match' } & Holding<A>)
  /** Several accounts hold the one property the call resolved to: ask which acts. `subject`: the property or page URL the call named. */
  | { readonly kind: 'ambiguous'; readonly subject: string; readonly property: string; readonly candidates: readonly Holding<A>[] }
  /**
   * No account (or not the named one) holds it. `accounts` names only allowed
   * properties; `elsewhere`: with an account named, the other accounts that do hold it.
   */
  | {
      readonly kind: 'none';
      readonly subject: string;
      readonly named?: string;
      readonly accounts: readonly AccountView<A>[];
      readonly elsewhere: readonly Holding<A>[];
    }
  /** google_account names none of the connected accounts. */
  | { readonly kind: 'unknown-account'; readonly named: string };

export interface MatchOptions {
  /** The caller's properties (GSC_ALLOWED_SITES narrowed by their rule); undefined: all. */
  readonly allowed?: readonly string[];
  /** google_account: the e-mail of the account to act as (ASCII case-insensitive). */
  readonly googleAccount?: string;
}

/** Parses what a call names and checks it against the caller's allowed properties, before any account is looked up. */
export function parsePropertyQuery(query: PropertyQuery, allowed?: readonly string[]): PropertySubject | SubjectRefusal {
  try {
    if ('siteUrl' in query) {
      const property = normalizeProperty(query.siteUrl);
      return allowed && !isPropertyAllowed(property, allowed) ? { kind: 'outside', what: property } : { kind: 'site', property };
    }
    const page = parsePageUrl(query.pageUrl);
    return allowed && !isPageAllowed(page, allowed) ? { kind: 'outside', what: page.href } : { kind: 'page', page };
  } catch (error) {
    if (error instanceof PropertyError) {
      return { kind: 'invalid', reason: error.message };
    }
    throw error;
  }
}

/** The account (and property) a parsed subject resolves to over the accounts' properties. */
export function matchProperty<A>(
  subject: PropertySubject,
  accounts: readonly AccountProperties<A>[],
  options: MatchOptions = {},
): PropertyMatch<A> {
  const named = options.googleAccount?.trim();
  const lists = accounts.map((a) => ({ ...a, held: heldBy(a) }));
  const holders = bestHolders(subject, lists);
  const what = subject.kind === 'site' ? subject.property : subject.page.href;
  if (named) {
    const chosen = lists.find((a) => a.email.toLowerCase() === named.toLowerCase());
    if (!chosen) {
      return { kind: 'unknown-account', named };
    }
    const own = bestHolders(subject, [chosen]);
    if (own.length > 0) {
      return { kind: 'match', ...own[0] };
    }
    return { kind: 'none', subject: what, named: chosen.email, accounts: views(lists, options.allowed), elsewhere: holders };
  }
  if (holders.length === 1) {
    return { kind: 'match', ...holders[0] };
  }
  if (holders.length > 1) {
    return { kind: 'ambiguous', subject: what, property: holders[0].property, candidates: holders };
  }
  return { kind: 'none', subject: what, accounts: views(lists, options.allowed), elsewhere: [] };
}

/** parsePropertyQuery then matchProperty. */
export function resolveProperty<A>(
  query: PropertyQuery,
  accounts: readonly AccountProperties<A>[],
  options: MatchOptions = {},
): PropertyMatch<A> | SubjectRefusal {
  const subject = parsePropertyQuery(query, options.allowed);
  return subject.kind === 'site' || subject.kind === 'page' ? matchProperty(subject, accounts, options) : subject;
}

type Held = { readonly property: string; readonly permissionLevel: string };
type Listed<A> = AccountProperties<A> & { readonly held: readonly Held[] };

/** The account's properties normalised (Google's spelling may differ from a person's: IDN, case); entries that are no property are left out. */
function heldBy(account: AccountProperties<unknown>): Held[] {
  const held = new Map<string, Held>();
  for (const { siteUrl, permissionLevel } of account.sites) {
    let property: string;
    try {
      property = normalizeProperty(siteUrl);
    } catch {
      continue;
    }
    if (!held.has(property)) {
      held.set(property, { property, permissionLevel });
    }
  }
  return [...held.values()];
}

/**
 * The accounts holding the one property the subject resolves to: a site is
 * its own property; a page's is the most specific property covering it among
 * every account's properties together.
 */
function bestHolders<A>(subject: PropertySubject, lists: readonly Listed<A>[]): Holding<A>[] {
  let property: string | undefined;
  if (subject.kind === 'site') {
    property = subject.property;
  } else {
    let best = -1;
    for (const list of lists) {
      for (const held of list.held) {
        const rank = pageRank(subject.page, held.property);
        if (rank > best) {
          best = rank;
          property = held.property;
        }
      }
    }
  }
  if (property === undefined) {
    return [];
  }
  return lists.flatMap((list) => {
    const held = list.held.find((h) => h.property === property);
    return held ? [{ account: list.account, email: list.email, property, permissionLevel: held.permissionLevel }] : [];
  });
}

/**
 * How specifically a property covers a page, -1 when it does not: any
 * URL-prefix property ranks above any sc-domain: one; among URL-prefix
 * properties the longer path (the exact property is the longest), among
 * domain properties the deeper domain. Two different properties covering one
 * page never rank equal (prefixes of one path, or suffixes of one host).
 */
function pageRank(page: URL, property: string): number {
  if (!pageInProperty(page, property)) {
    return -1;
  }
  if (isDomainProperty(property)) {
    return propertyHost(property).split('.').length;
  }
  return 1_000_000 + new URL(property).pathname.length;
}

function views<A>(lists: readonly Listed<A>[], allowed: readonly string[] | undefined): AccountView<A>[] {
  return lists.map((list) => {
    const { kept, withheld } = partitionAllowed(list.held, (h) => h.property, allowed);
    return { account: list.account, email: list.email, properties: kept.map((h) => h.property), withheld };
  });
}
