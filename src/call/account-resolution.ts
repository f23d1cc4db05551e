import { Inject, Injectable } from '@nestjs/common';
import { type CallToolResult, type InputRequiredResult, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { ConnectRequests } from '../accounts/connect-requests.js';
import { inert } from '../common/inert-text.js';
import { CONFIG, type Config } from '../config/config.js';
import type { ConnectedGrant } from '../google/connected-accounts.js';
import { matchProperty, type PropertyMatch, type PropertySubject } from '../property/property-match.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import { AccountMemory } from './account-memory.js';
import { type AccountSiteList, AccountSites } from './account-sites.js';
import {
  type AskReason,
  chooseByArgumentText,
  chooserMessage,
  namedLacksText,
  noAccountText,
  notChosenText,
  type Offer,
  offerTitle,
  unknownAccountText,
} from './account-texts.js';
import { ASK_KEYS, type Round, whyNoDialog } from './asking.js';
import { memoryKeys, whatOf } from './call-subject.js';
import { targetOf } from './target.js';
import type { Subject } from '../tools/call-scope.js';
import { clientCapabilities } from '../tools/client-capabilities.js';
import { grantCovers } from './granted-scopes.js';
import type { ToolCall } from '../tools/tool-call.js';
import { errorResult } from '../tools/tool-output.js';

/** The inputRequests key of the form elicitation that asks which Google account a call should use. */
export const ACCOUNT_KEY = ASK_KEYS.account;

/**
 * What a call acts as: the account, the property it resolved to (for a page,
 * the property it belongs to: property-match.ts), whether the account was matched from a cached
 * sites.list (a 403 then refreshes it) and, when the person chose it, its sub
 * (later rounds of the same call keep it). `refused`: the guard refuses the
 * call's arguments before Google hears of them, so no account is chosen at
 * all. Or the answer the call gets instead, with the accounts a chooser
 * offered (remembered for the round that answers it).
 */
export type Resolution =
  | {
      readonly grant: ConnectedGrant;
      readonly property?: string;
      /** The account's level on that property, as its sites.list said (unknown for add_site and a resource no property names). */
      readonly permissionLevel?: string;
      readonly cached: boolean;
      readonly chosen?: string;
    }
  | { readonly refused: true }
  | { readonly answer: CallToolResult | InputRequiredResult; readonly offered?: readonly string[] };

/** Every account's sites.list, matched; the lookups that failed, by account (userinfo `sub`). */
interface Matched {
  readonly match: PropertyMatch<ConnectedGrant>;
  readonly lists: readonly AccountSiteList[];
  readonly failures: ReadonlyMap<string, Error>;
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
 * - the property the call takes (site_url or GSC_SITE_URL; for a page URL the
 *   property it belongs to; for a Site Verification id its site) is matched
 *   against each account's sites.list (AccountSites: cached 10 minutes per
 *   account in the state store) by the one rule, matchProperty
 *   (property-match.ts). Exactly one account has it → that one. None → an
 *   isError naming the accounts (and only the properties the caller may use)
 *   and a connect link; nothing sent. Several → the person is asked (a form
 *   listing each account with its permission on the property); on the token
 *   path an isError naming them and google_account. A "none" from cached
 *   lists is looked up again once before it is said.
 * - `google_account` names the account (its e-mail; it must be one of the
 *   principal's); when it lacks the property, the call is refused before
 *   anything is sent, naming the accounts that have it.
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
 * An answer counts only in the round after its question (asking.ts).
 */
@Injectable()
export class AccountResolution {
  private readonly memory: AccountMemory;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly sites: AccountSites,
    private readonly requests: ConnectRequests,
    @Inject(STATE_STORE) store: StateStore,
  ) {
    this.memory = new AccountMemory(store);
  }

  /** undefined: the tool takes no property, so no one account is chosen (it runs over every account). */
  async resolve(call: ToolCall, args: Record<string, unknown>, connectScopes: string[], round?: Round): Promise<Resolution | undefined> {
    // The target step parsed it (target.ts); a call resolved outside the pipeline parses it the same way.
    const subject = (
      call.scope.target ??
      targetOf(call.tool.spec, args, {
        ...(this.config.siteUrl ? { siteUrl: this.config.siteUrl } : {}),
        principal: call.principal,
        access: call.access,
      })
    ).subject;
    if (!subject || subject.kind === 'refused') {
      return subject && { refused: true };
    }
    const grants = await this.sites.grantsOf(call.principal);
    const named = typeof args.google_account === 'string' ? args.google_account.trim() : '';
    if (named) {
      const grant = grants.find((g) => g.googleEmail.toLowerCase() === named.toLowerCase());
      return grant
        ? this.named(call, subject, grants, grant)
        : { answer: errorResult(unknownAccountText(call.tool.spec.name, named, grants)) };
    }
    const found = await this.candidates(call, subject, grants, connectScopes);
    if ('answer' in found) {
      return found;
    }
    const { offers, property, keys } = found;
    const acts = (offer: Offer) => ({
      grant: offer.grant,
      property,
      ...(offer.permissionLevel ? { permissionLevel: offer.permissionLevel } : {}),
    });
    const chose = (offer: Offer): Resolution => ({ ...acts(offer), cached: false, chosen: offer.grant.googleSub });
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
      return { ...acts(offers[0]), cached: offers[0].cached ?? false };
    }
    return this.ask(call, found);
  }

  /** Google answered 403 for a property matched from a cached list: look the account's properties up again next time. */
  async staleMatch(grant: ConnectedGrant): Promise<void> {
    await this.sites.forget(grant);
  }

  /**
   * google_account names `grant`: a property or page it lacks is refused before
   * anything is sent, naming the accounts that have it. add_site and a Site
   * Verification resource act as it (which account holds a resource only
   * Google knows: it may be verified without being a listed property).
   */
  private async named(
    call: ToolCall,
    subject: Exclude<Subject, { kind: 'refused' }>,
    grants: readonly ConnectedGrant[],
    grant: ConnectedGrant,
  ): Promise<Resolution> {
    if (subject.kind !== 'site' && subject.kind !== 'page') {
      await this.memory.remember(grant, memoryKeys(subject, subject.property));
      return { grant, property: subject.property, cached: false };
    }
    const { match, lists, failures } = await this.match(call, subject, grants, grant.googleEmail);
    const failed = failures.get(grant.googleSub);
    if (failed) {
      // Its properties could not be read: that is the answer, not "it lacks it".
      throw failed;
    }
    if (match.kind === 'match') {
      await this.memory.remember(grant, memoryKeys(subject, match.property));
      const cached = lists.find((l) => l.grant === grant)?.cached ?? false;
      return { grant, property: match.property, permissionLevel: match.permissionLevel, cached };
    }
    const elsewhere = match.kind === 'none' ? match.elsewhere.map((h) => h.email) : [];
    const what = subject.kind === 'page' ? subject.page.href : subject.property;
    return { answer: errorResult(namedLacksText(call.tool.spec.name, grant.googleEmail, what, elsewhere)) };
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
    let query: PropertySubject;
    if (subject.kind === 'resource') {
      if (!subject.property) {
        return anyAccount(call, subject, grants);
      }
      // A Site Verification resource is matched as the property its site maps to.
      query = { kind: 'site', property: subject.property };
    } else {
      query = subject;
    }
    const found = await this.match(call, query, grants);
    const { match, failures } = found;
    if (subject.kind === 'resource' && match.kind === 'none') {
      return anyAccount(call, subject, grants);
    }
    if (match.kind !== 'match' && match.kind !== 'ambiguous') {
      const failed = failures.values().next();
      if (!failed.done) {
        // An account whose properties could not be read may be the one: its failure is the answer, not "none has it".
        throw failed.value;
      }
      const link = await this.requests.create(call.principal, connectScopes);
      const accounts = match.kind === 'none' ? match.accounts : [];
      const what = query.kind === 'page' ? query.page.href : query.property;
      return { answer: errorResult(noAccountText(call.tool.spec.name, what, accounts, link)) };
    }
    const holders = match.kind === 'match' ? [match] : match.candidates;
    const property = holders[0].property;
    const offers = holders.map((h) => ({
      grant: h.account,
      permissionLevel: h.permissionLevel,
      cached: found.lists.find((l) => l.grant === h.account)?.cached ?? false,
    }));
    const keys = memoryKeys(subject, property);
    const used = await this.memory.recall(call.principal, keys);
    const candidates = { offers, property, what: whatOf(subject, property, call.sites), keys };
    if (used && !offers.some((o) => o.grant.googleSub === used.sub)) {
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

  /**
   * The subject matched over every account's properties (property-match.ts;
   * `named`: as google_account names one). A "none" from lists up to 10
   * minutes old is looked up again first: the property may have been added at
   * Google since.
   */
  private async match(call: ToolCall, subject: PropertySubject, grants: readonly ConnectedGrant[], named?: string): Promise<Matched> {
    const over = (lists: readonly AccountSiteList[]) =>
      matchProperty(
        subject,
        lists.map((l) => ({ account: l.grant, email: l.grant.googleEmail, sites: l.sites })),
        { ...(call.sites ? { allowed: call.sites } : {}), ...(named ? { googleAccount: named } : {}) },
      );
    let { lists, failures } = await this.listsOf(grants);
    let match = over(lists);
    const stale = lists.filter((l) => l.cached);
    if (match.kind === 'none' && stale.length > 0) {
      await Promise.all(stale.map((l) => this.sites.forget(l.grant)));
      ({ lists, failures } = await this.listsOf(grants));
      match = over(lists);
    }
    return { match, lists, failures };
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
}

/** A Site Verification resource no account lists as a property: which account holds it is known only to Google, so any may be asked for. */
function anyAccount(
  call: ToolCall,
  subject: { readonly id: string; readonly property?: string },
  grants: readonly ConnectedGrant[],
): Candidates {
  const able = grants.filter((g) => grantCovers(call.tool.spec, g.scopes));
  const id = inert(subject.id, 120);
  const why = `The Site Verification resource "${id}" ${subject.property ? `(${subject.property}) is not among the Search Console properties of your accounts` : 'names no Search Console property'}, so which of your Google accounts holds it is not known.`;
  return {
    offers: (able.length ? able : grants).map((grant) => ({ grant })),
    what: `the resource ${id}`,
    reason: { kind: 'any', why },
    keys: [],
  };
}
