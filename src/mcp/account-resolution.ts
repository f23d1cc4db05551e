import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type CallToolResult, type InputRequiredResult, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { ConnectRequests } from '../accounts/connect-requests.js';
import { CONFIG, type Config } from '../config/config.js';
import type { ConnectedGrant } from '../google/connected-accounts.js';
import { normalizeProperty, verificationSiteToProperty } from '../property/property.js';
import {
  matchProperty,
  parsePropertyQuery,
  type PropertyMatch,
  type PropertyQuery,
  type PropertySubject,
} from '../property/property-match.js';
import { decodeResourceId } from '../property/resource-id.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import { type AccountSiteList, AccountSites } from './account-sites.js';
import { whyNoDialog } from './approval/approval-flow.js';
import { clientCapabilities } from './client-capabilities.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import type { ToolCall } from './tool-call.js';

/** How long the person's choice of account answers the later rounds of the same call (the approval dialog of a guarded tool). */
const CHOICE_TTL_MS = 10 * 60_000;

/** The inputRequests key of the form elicitation that asks which Google account a call should use. */
export const ACCOUNT_KEY = 'google_account';

/**
 * The account a call acts as, and whether it was matched from a cached sites.list (a 403 then refreshes it); or the answer instead.
 * `property`: the property the call resolved to in that account (for a page, the one it belongs to: property-match.ts), and the account's level on it.
 */
export type Resolution =
  | {
      readonly grant: ConnectedGrant;
      readonly cached: boolean;
      readonly choice?: string;
      readonly property?: string;
      readonly permissionLevel?: string;
    }
  | { readonly answer: CallToolResult | InputRequiredResult };

/** What a call's arguments name at Google, for matching against each account's sites.list. */
type Subject =
  | { readonly kind: 'query'; readonly query: PropertyQuery }
  | { readonly kind: 'new'; readonly property: string }
  | { readonly kind: 'unparsed' };

/**
 * Which of a principal's Google accounts a call acts as (PRODUCT.md §8d
 * "Several Google accounts per person"). Never a guess and never a default:
 *
 * - `google_account` names it (its e-mail; it must be one of the principal's);
 * - otherwise the property the call takes (site_url or GSC_SITE_URL; for a page
 *   URL the property that covers it; for a Site Verification id its site) is
 *   matched against each account's sites.list (AccountSites: cached 10 minutes
 *   per account in the state store). Exactly one account has it → that one.
 *   None → an isError naming the accounts and a connect link; nothing sent.
 *   Several → the person is asked (form elicitation with the e-mails as an enum,
 *   either revision); on the token path, an isError naming them and the
 *   `google_account` argument.
 *
 * With one account the property is still matched (cached), so that a property
 * the account lacks gets the "connect the account that has it" answer before
 * anything goes to Google. A tool that takes no property (list_sites,
 * list_verified_sites) is not resolved: it runs over every account itself.
 * add_site names a property no account has yet: one account → that one,
 * several → asked.
 */
@Injectable()
export class AccountResolution {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly sites: AccountSites,
    private readonly requests: ConnectRequests,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {}

  /** undefined: the tool takes no property, so no one account is chosen (it runs over every account). */
  async resolve(call: ToolCall, args: Record<string, unknown>, connectScopes: string[]): Promise<Resolution | undefined> {
    const subject = this.subjectOf(call, args);
    if (!subject) {
      return undefined;
    }
    const grants = await this.sites.grantsOf(call.principal);
    const named = typeof args.google_account === 'string' ? args.google_account.trim() : '';
    const namedGrant = named ? grants.find((g) => g.googleEmail.toLowerCase() === named.toLowerCase()) : undefined;
    if (named && !namedGrant) {
      return { answer: errorResult(unknownAccountText(call.tool.spec.name, named, grants)) };
    }
    // A property or page that does not parse, or that the caller may not touch, is refused by SiteAccessGuard with its own sentence: no account is looked up, nothing is sent.
    const parsed = subject.kind === 'query' ? parsePropertyQuery(subject.query, call.sites) : undefined;
    if (subject.kind === 'unparsed' || parsed?.kind === 'invalid' || parsed?.kind === 'outside') {
      return { grant: namedGrant ?? grants[0], cached: false };
    }
    if (subject.kind === 'new') {
      if (namedGrant) {
        return { grant: namedGrant, cached: false, property: subject.property };
      }
      return grants.length === 1
        ? { grant: grants[0], cached: false, property: subject.property }
        : this.ask(call, args, grants, subject.property);
    }
    const { match, lists, failure } = await this.match(parsed as PropertySubject, grants, named, call.sites);
    if (match.kind === 'unknown-account' || (match.kind === 'none' && failure !== undefined && !named)) {
      // An account whose properties could not be read may be the one: its failure is the answer, not "none has it".
      throw failure ?? new Error(`the properties of ${named} could not be read`);
    }
    if (match.kind === 'match') {
      const cached = lists.find((l) => l.grant === match.account)?.cached ?? false;
      return { grant: match.account, cached, property: match.property, permissionLevel: match.permissionLevel };
    }
    if (match.kind === 'ambiguous') {
      // A page let through by a narrower allowlist entry may belong to a wider property the person may not see: name the page then.
      const shown = !call.sites || isPropertyAllowed(match.property, call.sites) ? match.property : match.subject;
      return this.ask(
        call,
        args,
        match.candidates.map((c) => c.account),
        shown,
        match.property,
      );
    }
    if (match.named) {
      return {
        answer: errorResult(
          namedLacksText(
            call.tool.spec.name,
            match.named,
            match.subject,
            match.elsewhere.map((h) => h.email),
          ),
        ),
      };
    }
    const link = await this.requests.create(call.principal, connectScopes);
    return { answer: errorResult(noAccountText(call.tool.spec.name, match.subject, lists, link)) };
  }

  /**
   * The subject matched over every account's properties (property-match.ts).
   * A "none" from lists up to 10 minutes old is looked up again first: the
   * property may have been added at Google since.
   */
  private async match(subject: PropertySubject, grants: readonly ConnectedGrant[], named: string, allowed: readonly string[] | undefined) {
    const matchOver = (lists: readonly AccountSiteList[]): PropertyMatch<ConnectedGrant> =>
      matchProperty(
        subject,
        lists.map((l) => ({ account: l.grant, email: l.grant.googleEmail, sites: l.sites })),
        { allowed, ...(named ? { googleAccount: named } : {}) },
      );
    let { lists, failure } = await this.listsOf(grants);
    let match = matchOver(lists);
    const stale = lists.filter((l) => l.cached);
    if (match.kind === 'none' && stale.length > 0) {
      await Promise.all(stale.map((l) => this.sites.forget(l.grant)));
      ({ lists, failure } = await this.listsOf(grants));
      match = matchOver(lists);
    }
    return { match, lists, failure };
  }

  /** The call the person chose an account for has its answer (it did not ask for more input): a new call asks again. */
  async settled(choice: string): Promise<void> {
    await this.store.delete(choice);
  }

  /** Google answered 403 for a property matched from a cached list: look the account's properties up again next time. */
  async staleMatch(grant: ConnectedGrant): Promise<void> {
    await this.sites.forget(grant);
  }

  /** Every account's list, and the first lookup that failed (an account Google refused, or one revoked meanwhile), if any. */
  private async listsOf(grants: readonly ConnectedGrant[]): Promise<{ lists: AccountSiteList[]; failure?: Error }> {
    const settled = await Promise.allSettled(grants.map((grant) => this.sites.sitesOf(grant)));
    const lists = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    const reason: unknown = failed?.reason;
    return failed ? { lists, failure: reason instanceof Error ? reason : new Error(String(reason)) } : { lists };
  }

  private async ask(
    call: ToolCall,
    args: Record<string, unknown>,
    grants: readonly ConnectedGrant[],
    what: string,
    property?: string,
  ): Promise<Resolution> {
    const tool = call.tool.spec.name;
    const emails = grants.map((g) => g.googleEmail);
    const noDialog = whyNoDialog(this.config.elicitation, clientCapabilities(call));
    if (noDialog) {
      return { answer: errorResult(severalText(tool, what, emails)) };
    }
    // The person already chose for this very call (same tool, same arguments) in an earlier round.
    const choiceKey = choiceKeyOf(call, args);
    const before = await this.store.get(choiceKey);
    const remembered = before === undefined ? undefined : grants.find((g) => g.googleSub === before);
    if (remembered && inputResponse(call.sdk.mcpReq.inputResponses, ACCOUNT_KEY).kind !== 'elicit') {
      return { grant: remembered, cached: false, choice: choiceKey, property };
    }
    const answer = inputResponse(call.sdk.mcpReq.inputResponses, ACCOUNT_KEY);
    if (answer.kind === 'elicit') {
      const picked: unknown = answer.action === 'accept' ? answer.content?.google_account : undefined;
      const chosen = typeof picked === 'string' ? picked : '';
      const grant = grants.find((g) => g.googleEmail === chosen);
      if (grant) {
        // Later rounds of this same call (an approval dialog follows on a guarded tool) carry only their own answer.
        await this.store.put(choiceKey, grant.googleSub, CHOICE_TTL_MS);
        return { grant, cached: false, choice: choiceKey, property };
      }
      if (answer.action !== 'accept') {
        return {
          answer: errorResult(
            `No Google account was chosen, so ${tool} did not run and nothing was sent to Google. Call it again with google_account set to one of ${emails.join(', ')}.`,
          ),
        };
      }
    }
    const schema = z.object({
      google_account: z.enum(emails as [string, ...string[]]).meta({
        title: 'Google account',
        description: `The connected Google account ${tool} should act as.`,
      }),
    });
    return {
      answer: inputRequired({
        inputRequests: {
          [ACCOUNT_KEY]: inputRequired.elicit({
            message: `Several of your connected Google accounts have ${what} in Search Console (${emails.join(', ')}). Which one should ${tool} act as? Nothing is sent to Google until you choose.`,
            requestedSchema: schema,
          }),
        },
      }),
    };
  }

  private subjectOf(call: ToolCall, args: Record<string, unknown>): Subject | undefined {
    const kinds = new Set(call.tool.spec.target ?? []);
    const site = typeof args.site_url === 'string' && args.site_url.trim() ? args.site_url : undefined;
    if (kinds.has('site')) {
      // inspect_url(s): the site_url names the property; its pages are checked against it by SiteAccessGuard.
      const raw = site ?? (call.tool.spec.newProperty ? undefined : this.config.siteUrl);
      if (!raw) {
        return { kind: 'unparsed' };
      }
      if (!call.tool.spec.newProperty) {
        return { kind: 'query', query: { siteUrl: raw } };
      }
      try {
        return { kind: 'new', property: normalizeProperty(raw) };
      } catch {
        // SiteAccessGuard refuses the argument with its own sentence before anything is sent.
        return { kind: 'unparsed' };
      }
    }
    if (kinds.has('page') && typeof args.url === 'string') {
      return { kind: 'query', query: { pageUrl: args.url } };
    }
    if (kinds.has('resource') && typeof args.id === 'string') {
      const id = decodeResourceId(args.id);
      const dns = /^dns:\/\//i.exec(id);
      const property = verificationSiteToProperty(
        dns ? { type: 'INET_DOMAIN', identifier: id.slice(dns[0].length) } : { type: 'SITE', identifier: id },
      );
      if (property) {
        return { kind: 'query', query: { siteUrl: property } };
      }
    }
    return kinds.size > 0 ? { kind: 'unparsed' } : undefined;
  }
}

/** The person's choice of account for one call: principal, tool and its arguments (confirm_token aside, which changes between rounds). */
function choiceKeyOf(call: ToolCall, args: Record<string, unknown>): string {
  const { confirm_token: _token, ...rest } = args;
  const canonical = JSON.stringify(sortedKeys(rest));
  const digest = createHash('sha256').update(`${call.principal}\n${call.tool.spec.name}\n${canonical}`).digest('base64url');
  return `account-choice:${digest}`;
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(sortedKeys);
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, sortedKeys(record[k])]),
    );
  }
  return value;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function unknownAccountText(tool: string, named: string, grants: readonly ConnectedGrant[]): string {
  const yours = grants.map((g) => g.googleEmail).join(', ');
  return `google_account "${named.slice(0, 120)}" is not one of the Google accounts connected for you (${yours}), so ${tool} did not run and nothing was sent to Google. Use one of those, or connect that account first (list_google_accounts shows them).`;
}

function noAccountText(tool: string, what: string, lists: readonly AccountSiteList[], link: { url: string; expiresAt: Date }): string {
  const seen = lists
    .map(
      (l) =>
        `${l.grant.googleEmail} has ${
          l.sites.length
            ? l.sites
                .map((s) => s.siteUrl)
                .slice(0, 10)
                .join(', ')
            : 'no properties'
        }`,
    )
    .join('; ');
  return (
    `None of the Google accounts connected for you has ${what} in Search Console (${seen}), so ${tool} did not run and nothing was sent to Google. ` +
    `Use a property one of them has, or connect the Google account that has it: open ${link.url} in a browser before ${link.expiresAt.toISOString()}, then call ${tool} again.`
  );
}

function namedLacksText(tool: string, named: string, what: string, elsewhere: readonly string[]): string {
  const others = elsewhere.length
    ? `${elsewhere.join(', ')} ${elsewhere.length === 1 ? 'has' : 'have'} it: call ${tool} again with google_account set to ${elsewhere.length === 1 ? 'it' : 'one of them'}.`
    : 'None of the Google accounts connected for you has it.';
  return `${named} has no property for ${what} in Search Console, so ${tool} did not run and nothing was sent to Google. ${others}`;
}

function severalText(tool: string, what: string, emails: readonly string[]): string {
  return (
    `Several of the Google accounts connected for you have ${what} in Search Console (${emails.join(', ')}), and this client cannot show a person a choice, so ${tool} did not run and nothing was sent to Google. ` +
    `Call ${tool} again with the google_account argument set to the one to act as (e.g. "${emails[0]}").`
  );
}
