import { Inject, Injectable } from '@nestjs/common';
import { type CallToolResult, type InputRequiredResult, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { ConnectRequests } from '../accounts/connect-requests.js';
import { CONFIG, type Config } from '../config/config.js';
import type { ConnectedGrant } from '../google/connected-accounts.js';
import { normalizeProperty, pageInProperty, parsePageUrl, verificationSiteToProperty } from '../property/property.js';
import { decodeResourceId } from '../property/resource-id.js';
import { isPageAllowed, isPropertyAllowed } from '../property/site-allowlist.js';
import { type AccountSiteList, AccountSites } from './account-sites.js';
import { whyNoDialog } from './approval/approval-flow.js';
import { callFingerprint } from './call-fingerprint.js';
import { clientCapabilities } from './client-capabilities.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import type { ToolCall } from './tool-call.js';

/** How long the person's choice of account answers the later rounds of the same call (the approval dialog of a guarded tool). */
const CHOICE_TTL_MS = 10 * 60_000;

/** The inputRequests key of the form elicitation that asks which Google account a call should use. */
export const ACCOUNT_KEY = 'google_account';

/** The account a call acts as, and whether it was matched from a cached sites.list (a 403 then refreshes it); or the answer instead. */
export type Resolution =
  | { readonly grant: ConnectedGrant; readonly cached: boolean; readonly choice?: string }
  | { readonly answer: CallToolResult | InputRequiredResult };

/** What a call's arguments name at Google, for matching against each account's sites.list. */
type Subject =
  | { readonly kind: 'property'; readonly property: string }
  | { readonly kind: 'pages'; readonly pages: readonly URL[] }
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
    const subject = outsideAllowed(this.subjectOf(call, args), call.sites);
    if (!subject) {
      return undefined;
    }
    const grants = await this.sites.grantsOf(call.principal);
    const named = typeof args.google_account === 'string' ? args.google_account.trim() : '';
    if (named) {
      const grant = grants.find((g) => g.googleEmail.toLowerCase() === named.toLowerCase());
      if (!grant) {
        return { answer: errorResult(unknownAccountText(call.tool.spec.name, named, grants)) };
      }
      return { grant, cached: false };
    }
    if (subject.kind === 'unparsed') {
      // SiteAccessGuard refuses the argument with its own sentence before anything is sent.
      return { grant: grants[0], cached: false };
    }
    if (subject.kind === 'new') {
      return grants.length === 1 ? { grant: grants[0], cached: false } : this.ask(call, args, grants, subject.property);
    }
    const { lists, failure } = await this.listsOf(grants);
    const matches = lists.filter((list) => covers(list, subject));
    if (matches.length === 0 && failure !== undefined) {
      // An account whose properties could not be read may be the one: its failure is the answer, not "none has it".
      throw failure;
    }
    if (matches.length === 1) {
      return { grant: matches[0].grant, cached: matches[0].cached };
    }
    const what = subject.kind === 'property' ? subject.property : subject.pages.map((p) => p.href).join(', ');
    if (matches.length === 0) {
      const link = await this.requests.create(call.principal, connectScopes);
      return { answer: errorResult(noAccountText(call.tool.spec.name, what, lists, link)) };
    }
    return this.ask(
      call,
      args,
      matches.map((m) => m.grant),
      what,
    );
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

  private async ask(call: ToolCall, args: Record<string, unknown>, grants: readonly ConnectedGrant[], what: string): Promise<Resolution> {
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
      return { grant: remembered, cached: false, choice: choiceKey };
    }
    const answer = inputResponse(call.sdk.mcpReq.inputResponses, ACCOUNT_KEY);
    if (answer.kind === 'elicit') {
      const picked: unknown = answer.action === 'accept' ? answer.content?.google_account : undefined;
      const chosen = typeof picked === 'string' ? picked : '';
      const grant = grants.find((g) => g.googleEmail === chosen);
      if (grant) {
        // Later rounds of this same call (an approval dialog follows on a guarded tool) carry only their own answer.
        await this.store.put(choiceKey, grant.googleSub, CHOICE_TTL_MS);
        return { grant, cached: false, choice: choiceKey };
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
    // An argument that does not parse is refused by SiteAccessGuard before anything is sent; here it names no account.
    const parsed = <T>(parse: () => T): T | undefined => {
      try {
        return parse();
      } catch {
        return undefined;
      }
    };
    if (kinds.has('site')) {
      const raw = site ?? (call.tool.spec.newProperty ? undefined : this.config.siteUrl);
      const property = raw ? parsed(() => normalizeProperty(raw)) : undefined;
      if (property) {
        return { kind: call.tool.spec.newProperty ? 'new' : 'property', property };
      }
    }
    if (kinds.has('page') || kinds.has('pages')) {
      const raw = kinds.has('page') ? [args.url] : Array.isArray(args.urls) ? args.urls : [];
      const pages = raw.flatMap((u) => {
        const page = typeof u === 'string' ? parsed(() => parsePageUrl(u)) : undefined;
        return page ? [page] : [];
      });
      if (pages.length > 0) {
        return { kind: 'pages', pages };
      }
    }
    if (kinds.has('resource') && typeof args.id === 'string') {
      const id = decodeResourceId(args.id);
      const dns = /^dns:\/\//i.exec(id);
      const property = verificationSiteToProperty(
        dns ? { type: 'INET_DOMAIN', identifier: id.slice(dns[0].length) } : { type: 'SITE', identifier: id },
      );
      if (property) {
        return { kind: 'property', property };
      }
    }
    return kinds.size > 0 ? { kind: 'unparsed' } : undefined;
  }
}

/** A property or page the caller may not touch is refused by SiteAccessGuard with its own sentence: no account is looked up for it, so nothing at all is sent. */
function outsideAllowed(subject: Subject | undefined, allowed: readonly string[] | undefined): Subject | undefined {
  if (!subject || !allowed) {
    return subject;
  }
  const refused =
    subject.kind === 'pages'
      ? subject.pages.some((page) => !isPageAllowed(page, allowed))
      : (subject.kind === 'property' || subject.kind === 'new') && !isPropertyAllowed(subject.property, allowed);
  return refused ? { kind: 'unparsed' } : subject;
}

/** The person's choice of account for one call: principal, tool and its arguments (confirm_token aside, which changes between rounds). */
function choiceKeyOf(call: ToolCall, args: Record<string, unknown>): string {
  return `account-choice:${callFingerprint(call, args)}`;
}

function covers(list: AccountSiteList, subject: Subject): boolean {
  if (subject.kind === 'property') {
    return list.sites.some((s) => s.siteUrl === subject.property);
  }
  if (subject.kind === 'pages') {
    return subject.pages.every((page) => list.sites.some((s) => pageInProperty(page, s.siteUrl)));
  }
  return false;
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

function severalText(tool: string, what: string, emails: readonly string[]): string {
  return (
    `Several of the Google accounts connected for you have ${what} in Search Console (${emails.join(', ')}), and this client cannot show a person a choice, so ${tool} did not run and nothing was sent to Google. ` +
    `Call ${tool} again with the google_account argument set to the one to act as (e.g. "${emails[0]}").`
  );
}
