import { Inject, Injectable } from '@nestjs/common';
import { type CallToolResult, type InputRequiredResult, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { ConnectRequests } from '../accounts/connect-requests.js';
import { inert } from '../common/inert-text.js';
import { CONFIG, type Config } from '../config/config.js';
import type { ConnectedGrant } from '../google/connected-accounts.js';
import { normalizeProperty, pageInProperty, parsePageUrl, verificationSiteToProperty } from '../property/property.js';
import { decodeResourceId } from '../property/resource-id.js';
import { isPageAllowed, isPropertyAllowed } from '../property/site-allowlist.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import { AccountMemory, hostKey, propertyKey } from './account-memory.js';
import { type AccountSite, type AccountSiteList, AccountSites } from './account-sites.js';
import {
  type AskReason,
  chooseByArgumentText,
  chooserMessage,
  noAccountText,
  notChosenText,
  type Offer,
  offerTitle,
  unknownAccountText,
} from './account-texts.js';
import { whyNoDialog } from './approval/approval-flow.js';
import { CallRounds, type Round } from './call-rounds.js';
import { clientCapabilities } from './client-capabilities.js';
import { grantCovers } from './granted-scopes.js';
import type { ToolCall } from './tool-call.js';

/** The inputRequests key of the form elicitation that asks which Google account a call should use. */
export const ACCOUNT_KEY = 'google_account';

/**
 * What a call acts as: the account, the property it resolved to (for a page,
 * the property that covers it), whether the account was matched from a cached
 * sites.list (a 403 then refreshes it) and, when the person chose it, its sub
 * (later rounds of the same call keep it). `refused`: the guard refuses the
 * call's arguments before Google hears of them, so no account is chosen at
 * all. Or the answer the call gets instead, with the accounts a chooser
 * offered (remembered for the round that answers it).
 */
export type Resolution =
  | { readonly grant: ConnectedGrant; readonly property?: string; readonly cached: boolean; readonly chosen?: string }
  | { readonly refused: true }
  | { readonly answer: CallToolResult | InputRequiredResult; readonly offered?: readonly string[] };

/** What a call's arguments name at Google. */
export type Subject =
  | { readonly kind: 'property'; readonly property: string }
  | { readonly kind: 'pages'; readonly pages: readonly URL[] }
  | { readonly kind: 'new'; readonly property: string }
  | { readonly kind: 'resource'; readonly id: string; readonly property?: string }
  | { readonly kind: 'refused' };

/** What the resolution rule matches against each account's sites.list. */
export type MatchSubject = Extract<Subject, { kind: 'property' | 'pages' }>;

/** One account that holds the subject, and its entry for the property it holds it as. */
export interface AccountMatch {
  readonly list: AccountSiteList;
  readonly site: AccountSite;
}

/**
 * The resolution rule (PRODUCT.md §8d), the one function a stricter resolver
 * may replace: a `site_url` names one property exactly (never a covering one);
 * a page URL resolves to the exact property, else the longest covering
 * URL-prefix property, else the narrowest covering `sc-domain:` — over every
 * account at once, so the accounts returned all hold that one property (more
 * than one is a tie: the person is asked). Undefined property: none has it.
 */
export function matchAccounts(lists: readonly AccountSiteList[], subject: MatchSubject): { property?: string; matches: AccountMatch[] } {
  const holding = (property: string) =>
    lists.flatMap((list) => {
      const site = list.sites.find((s) => canonical(s.siteUrl) === property);
      return site ? [{ list, site }] : [];
    });
  if (subject.kind === 'property') {
    const matches = holding(subject.property);
    return matches.length ? { property: subject.property, matches } : { matches: [] };
  }
  const bests = subject.pages.map((page) => bestProperty(lists, page));
  const first = bests[0];
  if (first === undefined || bests.some((b) => b === undefined)) {
    return { matches: [] };
  }
  const others = new Set(bests.filter((b) => b !== first));
  const matches = holding(first).filter((m) => [...others].every((b) => m.list.sites.some((s) => canonical(s.siteUrl) === b)));
  return matches.length ? { property: first, matches } : { matches: [] };
}

function bestProperty(lists: readonly AccountSiteList[], page: URL): string | undefined {
  let best: { property: string; rank: number } | undefined;
  for (const list of lists) {
    for (const site of list.sites) {
      const property = canonical(site.siteUrl);
      const rank = coverRank(page, property);
      if (rank >= 0 && (!best || rank > best.rank)) {
        best = { property, rank };
      }
    }
  }
  return best?.property;
}

/** How closely a property covers a page: any URL-prefix above any sc-domain:, a longer path or a narrower domain above a shorter one; -1 when it does not. */
function coverRank(page: URL, property: string): number {
  try {
    if (!pageInProperty(page, property)) {
      return -1;
    }
  } catch {
    return -1;
  }
  return property.startsWith('sc-domain:') ? property.length : 100_000 + property.length;
}

/** A property as Google lists it, spelt as the server normalises one (case, trailing slash, IDN); as listed when it does not parse. */
function canonical(siteUrl: string): string {
  try {
    return normalizeProperty(siteUrl);
  } catch {
    return siteUrl;
  }
}

/** Who a call could act as, before the person is asked (when more than one, or the one before is gone). */
type Candidates = {
  readonly offers: readonly (Offer & { readonly cached?: boolean })[];
  readonly property?: string;
  readonly what: string;
  /** Why the person would be asked with more than one offer (or with one, when `gone`). */
  readonly reason: AskReason;
  /** Where the account used is remembered (none for add_site, or a resource no property names). */
  readonly keys: readonly string[];
  /** The account calls for the property acted as last, when it is among the offers: the chooser's default. */
  readonly preferred?: string;
};

/**
 * Which of a principal's Google accounts a call acts as (PRODUCT.md §8d
 * "Several Google accounts per person", "Never the wrong account, never
 * silently"). Never a guess and never a default:
 *
 * - `google_account` names it (its e-mail; it must be one of the principal's);
 * - otherwise the property the call takes (site_url or GSC_SITE_URL; for a page
 *   URL the property that covers it; for a Site Verification id its site) is
 *   matched against each account's sites.list (AccountSites: cached 10 minutes
 *   per account in the state store) by matchAccounts. Exactly one account has
 *   it → that one. None → an isError naming the accounts (and only the
 *   properties the caller may use) and a connect link; nothing sent. Several →
 *   the person is asked (a form listing each account with its permission on
 *   the property); on the token path an isError naming them and google_account.
 * - The account calls for that property acted as last is remembered
 *   (AccountMemory). When it is gone (disconnected, revoked) and another
 *   account would take over, the person is asked, or on the token path told
 *   which accounts remain: never a silent switch to another account, which may
 *   hold more rights.
 * - Arguments the guard refuses before Google hears of them (a site_url that is
 *   no property, a page or property outside the allowlist) choose no account.
 *   A Site Verification id that names no property of any account is fetched as
 *   the only account, or the person says which one holds it.
 *
 * An answer counts only in the round after its question (CallRounds).
 */
@Injectable()
export class AccountResolution {
  /** What each round of a call asked, so that only answers to those count. */
  readonly rounds: CallRounds;
  private readonly memory: AccountMemory;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly sites: AccountSites,
    private readonly requests: ConnectRequests,
    @Inject(STATE_STORE) store: StateStore,
  ) {
    this.rounds = new CallRounds(store);
    this.memory = new AccountMemory(store);
  }

  /** undefined: the tool takes no property, so no one account is chosen (it runs over every account). */
  async resolve(call: ToolCall, args: Record<string, unknown>, connectScopes: string[], round?: Round): Promise<Resolution | undefined> {
    const subject = this.subjectOf(call, args);
    if (!subject || subject.kind === 'refused') {
      return subject && { refused: true };
    }
    const grants = await this.sites.grantsOf(call.principal);
    const named = typeof args.google_account === 'string' ? args.google_account.trim() : '';
    if (named) {
      const grant = grants.find((g) => g.googleEmail.toLowerCase() === named.toLowerCase());
      if (!grant) {
        return { answer: errorResult(unknownAccountText(call.tool.spec.name, named, grants)) };
      }
      const property = await this.propertyIn(grant, subject);
      await this.memory.remember(grant, memoryKeys(subject, property));
      return { grant, property, cached: false };
    }
    const found = await this.candidates(call, subject, grants, connectScopes);
    if ('answer' in found) {
      return found;
    }
    const { offers, property, keys } = found;
    const chose = (offer: Offer): Resolution => ({ grant: offer.grant, property, cached: false, chosen: offer.grant.googleSub });
    // A later round of this very call (the approval dialog of a guarded tool): the account chosen in an earlier one.
    const before = round?.chosen === undefined ? undefined : offers.find((o) => o.grant.googleSub === round.chosen);
    if (before) {
      return chose(before);
    }
    const answer = inputResponse(call.sdk.mcpReq.inputResponses, ACCOUNT_KEY);
    if (round?.asked.includes(ACCOUNT_KEY) && answer.kind === 'elicit') {
      if (answer.action !== 'accept') {
        return { answer: errorResult(notChosenText(call.tool.spec.name, offers)) };
      }
      const picked: unknown = answer.content?.google_account;
      const offer = offers.find((o) => o.grant.googleEmail === picked && round.offered?.includes(o.grant.googleSub));
      if (offer) {
        await this.memory.remember(offer.grant, keys);
        return chose(offer);
      }
      // Accepted with an account that was not offered (or is gone since): asked afresh.
    }
    if (offers.length === 1 && found.reason.kind !== 'gone') {
      await this.memory.remember(offers[0].grant, keys);
      return { grant: offers[0].grant, property, cached: offers[0].cached ?? false };
    }
    return this.ask(call, found);
  }

  /** Google answered 403 for a property matched from a cached list: look the account's properties up again next time. */
  async staleMatch(grant: ConnectedGrant): Promise<void> {
    await this.sites.forget(grant);
  }

  private async candidates(
    call: ToolCall,
    subject: Exclude<Subject, { kind: 'refused' }>,
    grants: readonly ConnectedGrant[],
    connectScopes: string[],
  ): Promise<Candidates | { answer: CallToolResult }> {
    if (subject.kind === 'new') {
      // add_site: a property no account has yet; any of them may add it.
      return {
        offers: grants.map((grant) => ({ grant })),
        property: subject.property,
        what: subject.property,
        reason: { kind: 'new' },
        keys: [],
      };
    }
    const { lists, failures } = await this.listsOf(grants);
    let property: string | undefined;
    let matches: AccountMatch[];
    let what: string;
    if (subject.kind === 'resource') {
      ({ property, matches } = subject.property ? matchAccounts(lists, { kind: 'property', property: subject.property }) : { matches: [] });
      what = property ?? `the resource ${inert(subject.id, 120)}`;
      if (!property) {
        // The resource stands for no property any account lists: which account holds it is known only to Google.
        const able = grants.filter((g) => grantCovers(call.tool.spec, g.scopes));
        const why = `The Site Verification resource "${inert(subject.id, 120)}" ${subject.property ? `(${subject.property}) is not among the Search Console properties of your accounts` : 'names no Search Console property'}, so which of your Google accounts holds it is not known.`;
        return { offers: (able.length ? able : grants).map((grant) => ({ grant })), what, reason: { kind: 'any', why }, keys: [] };
      }
    } else {
      ({ property, matches } = matchAccounts(lists, subject));
      what = subject.kind === 'property' ? subject.property : pagesWhat(subject.pages, property);
    }
    if (!property) {
      const failed = failures.values().next();
      if (!failed.done) {
        // An account whose properties could not be read may be the one: its failure is the answer, not "none has it".
        throw failed.value;
      }
      const link = await this.requests.create(call.principal, connectScopes);
      return { answer: errorResult(noAccountText(call.tool.spec.name, what, lists, call.sites, link)) };
    }
    const keys = memoryKeys(subject, property);
    const used = await this.memory.recall(call.principal, keys);
    const candidates = { ...offered(matches), property, what, keys };
    if (used && !candidates.offers.some((o) => o.grant.googleSub === used.sub)) {
      const failure = failures.get(used.sub);
      if (failure) {
        // The account used before could not be read now: it may still hold the property, so no other takes its place.
        throw failure;
      }
      if (!grants.some((g) => g.googleSub === used.sub)) {
        return { ...candidates, reason: { kind: 'gone', before: used.email } };
      }
    }
    return { ...candidates, reason: { kind: 'several' }, ...(used ? { preferred: used.sub } : {}) };
  }

  /** The property a named account holds the call's subject as (for a page, the one that covers it), when it lists one. */
  private async propertyIn(grant: ConnectedGrant, subject: Exclude<Subject, { kind: 'refused' }>): Promise<string | undefined> {
    if (subject.kind !== 'pages') {
      return subject.property;
    }
    const list = await this.sites.sitesOf(grant).catch(() => undefined);
    return list ? matchAccounts([list], subject).property : undefined;
  }

  /** Every account's list, and the lookups that failed by account (one Google refused, or one revoked meanwhile). */
  private async listsOf(grants: readonly ConnectedGrant[]): Promise<{ lists: AccountSiteList[]; failures: Map<string, Error> }> {
    const settled = await Promise.allSettled(grants.map((grant) => this.sites.sitesOf(grant)));
    const lists: AccountSiteList[] = [];
    const failures = new Map<string, Error>();
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') {
        lists.push(s.value);
      } else {
        const reason: unknown = s.reason;
        failures.set(grants[i].googleSub, reason instanceof Error ? reason : new Error(String(reason)));
      }
    });
    return { lists, failures };
  }

  private ask(call: ToolCall, found: Candidates): Resolution {
    const tool = call.tool.spec.name;
    const { offers, what, reason } = found;
    const noDialog = whyNoDialog(this.config.elicitation, clientCapabilities(call));
    if (noDialog) {
      return { answer: errorResult(chooseByArgumentText(tool, what, offers, reason)) };
    }
    const preferred = offers.find((o) => o.grant.googleSub === found.preferred)?.grant.googleEmail;
    // A titled single-select enum (oneOf of const + title): both revisions' elicitation schema has it, and a client shows the titles.
    const requestedSchema = {
      type: 'object' as const,
      properties: {
        [ACCOUNT_KEY]: {
          type: 'string' as const,
          title: 'Google account',
          description: `The connected Google account ${tool} should act as.`,
          oneOf: offers.map((o) => ({ const: o.grant.googleEmail, title: offerTitle(o) })),
          ...(preferred ? { default: preferred } : {}),
        },
      },
      required: [ACCOUNT_KEY],
    };
    return {
      answer: inputRequired({
        inputRequests: { [ACCOUNT_KEY]: inputRequired.elicit({ message: chooserMessage(tool, what, offers, reason), requestedSchema }) },
      }),
      offered: offers.map((o) => o.grant.googleSub),
    };
  }

  private subjectOf(call: ToolCall, args: Record<string, unknown>): Subject | undefined {
    const kinds = new Set(call.tool.spec.target ?? []);
    const allowed = call.sites;
    if (kinds.has('site')) {
      const given = typeof args.site_url === 'string' && args.site_url.trim() ? args.site_url : undefined;
      const raw = given ?? (call.tool.spec.newProperty ? undefined : this.config.siteUrl);
      const property = raw === undefined ? undefined : attempt(() => normalizeProperty(raw));
      // No property, one that does not parse, or one outside the allowlist: SiteAccessGuard refuses it before anything is sent.
      if (!property || (allowed && !isPropertyAllowed(property, allowed))) {
        return { kind: 'refused' };
      }
      return { kind: call.tool.spec.newProperty ? 'new' : 'property', property };
    }
    if (kinds.has('page') || kinds.has('pages')) {
      const raw: unknown[] = kinds.has('page') ? [args.url] : Array.isArray(args.urls) ? (args.urls as unknown[]) : [];
      const pages = raw.map((u) => (typeof u === 'string' ? attempt(() => parsePageUrl(u)) : undefined));
      if (pages.length === 0 || pages.some((p) => !p || (allowed && !isPageAllowed(p, allowed)))) {
        return { kind: 'refused' };
      }
      return { kind: 'pages', pages: pages as URL[] };
    }
    if (kinds.has('resource') && typeof args.id === 'string' && args.id.trim()) {
      // The guard fetches the resource (as the account resolved here) and checks its site against the allowlist.
      const id = decodeResourceId(args.id);
      const dns = /^dns:\/\//i.exec(id);
      const property = verificationSiteToProperty(
        dns ? { type: 'INET_DOMAIN', identifier: id.slice(dns[0].length) } : { type: 'SITE', identifier: id },
      );
      return { kind: 'resource', id, ...(property ? { property } : {}) };
    }
    return kinds.size > 0 ? { kind: 'refused' } : undefined;
  }
}

function offered(matches: readonly AccountMatch[]): { offers: (Offer & { cached: boolean })[] } {
  return { offers: matches.map((m) => ({ grant: m.list.grant, permissionLevel: m.site.permissionLevel, cached: m.list.cached })) };
}

/** Where the account a call used is remembered: its property; for a page, also its host (PRODUCT.md §8d: what "used before" means). */
function memoryKeys(subject: Exclude<Subject, { kind: 'refused' }>, property: string | undefined): string[] {
  if (subject.kind === 'pages') {
    return [hostKey(subject.pages[0].hostname), ...(property ? [propertyKey(property)] : [])];
  }
  return subject.kind === 'new' || !property ? [] : [propertyKey(property)];
}

function pagesWhat(pages: readonly URL[], property: string | undefined): string {
  const named = pages.map((p) => p.href).join(', ');
  return property ? `${named} (property ${property})` : named;
}

function attempt<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
