import { Injectable } from '@nestjs/common';
import * as z from 'zod';
import { actingPart, type ApprovalPlan } from '../tools/approval-plan.js';
import { NoArgs, SiteUrlArg } from '../tools/tool-args.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { TargetOf } from '../tools/tool-target.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { fitToBudget, type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { partitionAllowed, withheldNote } from '../property/site-allowlist.js';
import { MethodOut, RecordOut } from '../verification/verification.schemas.js';
import { SETUP_STEPS, setupNextStep, setupSteps } from './setup-status.js';
import { describePermission, type SiteEntry, SitesService } from './sites.service.js';
import { plural } from '../common/sentences.js';
import { actingIdentity } from '../google/connected-accounts.js';

const PermissionLevel = z.string().describe('siteOwner, siteFullUser, siteRestrictedUser or siteUnverifiedUser.');
const SiteOut = z.object({ site_url: z.string(), permission_level: PermissionLevel });
const SetupStep = z.object({ step: z.enum(SETUP_STEPS), done: z.boolean(), detail: z.string() });
const SiteInput = z.object({ site_url: SiteUrlArg });
const ListSitesOut = z.object({
  sites: z.array(SiteOut),
  withheld: z.number().int().optional().describe('Properties hidden by GSC_ALLOWED_SITES.'),
});
const GoogleAccountOut = z.string().describe('The connected Google account that sees it (connected mode).');

@ToolProvider()
@Injectable()
export class SitesTools {
  constructor(private readonly sites: SitesService) {}

  @Tool({
    name: 'list_sites',
    title: 'List properties',
    description: 'Search Console properties this server can use, with permission levels.',
    input: NoArgs,
    output: ListSitesOut,
    // Connected mode: the union over the person's Google accounts, each entry naming its account.
    connectedOutput: ListSitesOut.extend({ sites: z.array(SiteOut.extend({ google_account: GoogleAccountOut })) }),
    access: 'read',
    apis: ['searchconsole'],
    essential: true,
  })
  async listSites(_args: unknown, call: ToolCall<unknown>): Promise<ToolOutput> {
    const { kept, withheld } = partitionAllowed(await this.sites.listAcross(), (s) => s.siteUrl, call.sites);
    return fitToBudget(kept, (shown, dropped) => {
      const lines = shown.map(
        (s) => `- ${s.siteUrl} — ${describePermission(s.permissionLevel)}${s.googleAccount ? ` — as ${s.googleAccount}` : ''}`,
      );
      const head =
        kept.length === 0
          ? `No Search Console properties are available to ${actingIdentity()}.`
          : `${plural(kept.length, 'property', 'properties')}:`;
      const notes = [
        withheld ? withheldNote(withheld) : '',
        dropped ? `${dropped} not shown to stay within the size limit.` : '',
        kept.length === 0 && !withheld
          ? `Add ${actingIdentity()} as a user of a property in Search Console (Settings → Users and permissions), or add one with add_site.`
          : '',
      ].filter(Boolean);
      const sites = shown.map((s) => ({ ...siteOut(s), ...(s.googleAccount ? { google_account: s.googleAccount } : {}) }));
      return toolOutput({ sites, ...(withheld ? { withheld } : {}) }, [head, ...lines, ...notes].join('\n'));
    });
  }

  @Tool({
    name: 'get_site',
    title: 'Get property',
    description: 'Whether this credential can use a property, and its permission level.',
    input: SiteInput,
    target: ['site'],
    output: SiteOut,
    access: 'read',
    apis: ['searchconsole'],
    essential: true,
  })
  async getSite(_args: unknown, call: ToolCall<TargetOf<typeof SiteInput>>): Promise<ToolOutput> {
    const site = await this.sites.get(call.target.site);
    return toolOutput(siteOut(site), `${site.siteUrl}: ${describePermission(site.permissionLevel)}.`);
  }

  @Tool({
    name: 'add_site',
    title: 'Add property',
    description:
      'Add a property to this account. It stays unverified (no data) until ownership is proven: see setup_site. Never uses the default property.',
    input: SiteInput,
    target: ['site'],
    output: SiteOut.extend({ added: z.boolean() }),
    access: 'write',
    apis: ['searchconsole'],
    idempotent: true,
    newProperty: true,
  })
  async addSite(_args: unknown, call: ToolCall<TargetOf<typeof SiteInput>>): Promise<ToolOutput> {
    const property = call.target.site;
    await this.sites.add(property);
    const site = await this.sites.get(property);
    const next =
      site.permissionLevel === 'siteUnverifiedUser'
        ? ' It has no data until ownership is verified: setup_site lists the remaining steps.'
        : '';
    return toolOutput(
      { ...siteOut(site), added: true },
      `Added ${property} to Search Console; permission: ${describePermission(site.permissionLevel)}.${next}`,
    );
  }

  @Tool({
    name: 'delete_site',
    title: 'Remove property',
    description:
      "Remove a property from this account's list: the account stops seeing its data. Google says it can be added back later. Asks a person first.",
    input: SiteInput,
    target: ['site'],
    output: z.object({ site_url: z.string(), deleted: z.boolean() }),
    access: 'destructive',
    apis: ['searchconsole'],
    idempotent: true,
    approval: describeDeleteSite,
  })
  async deleteSite(_args: unknown, call: ToolCall<TargetOf<typeof SiteInput>>): Promise<ToolOutput> {
    const { site } = call.target;
    await this.sites.delete(site);
    return toolOutput({ site_url: site, deleted: true }, `Removed ${site} from this account's Search Console properties. ${READD}`);
  }

  @Tool({
    name: 'setup_site',
    title: 'Setup status',
    description:
      'Which setup step a property lacks (token, place it, verify, add), with the exact DNS record or meta tag. Changes nothing.',
    input: SiteInput,
    target: ['site'],
    output: z.object({
      site_url: z.string(),
      steps: z.array(SetupStep),
      next_step: z.string(),
      method: MethodOut.optional().describe('The verification method the record is for.'),
      record: RecordOut.optional().describe('What to place, when ownership is not verified yet.'),
    }),
    access: 'read',
    apis: ['searchconsole', 'siteverification'],
  })
  async setupSite(_args: unknown, call: ToolCall<TargetOf<typeof SiteInput>>): Promise<ToolOutput> {
    const property = call.target.site;
    const status = await this.sites.setupStatus(property);
    const steps = setupSteps(status);
    const next = setupNextStep(status);
    const lines = steps.map((s, i) => `${i + 1}. ${s.done ? '[done]' : '[missing]'} ${s.step}: ${s.detail}`);
    return toolOutput(
      { site_url: property, steps, next_step: next, ...(status.token ? { method: status.token.method, record: status.token.record } : {}) },
      [`Setup of ${property}:`, ...lines, `Next: ${next}`].join('\n'),
    );
  }
}

/**
 * What removing a property costs, as Google documents it and no more. Search Console Help, "Remove a property"
 * (https://support.google.com/webmasters/answer/9357768): you stop receiving its notifications and cannot see any of
 * its information or settings; with other verified owners left, the only effect is that it leaves your list; if you
 * are its last verified owner, every user loses access; you regain access by adding the same property again and
 * clicking Verify while your verification token is still in place. "Property Settings page"
 * (https://support.google.com/webmasters/answer/7687465): "Remove a property from your list, with the option of adding
 * it back later (in most cases)… You can regain access to the property by adding it back without the need for
 * verification (as long as the property still has one verified owner)." Neither page says the data is deleted, nor
 * that a re-added property starts empty — the wording of spec/asking-a-person.txt ("roughly 16 months of performance
 * history. Re-adding starts empty") goes further than Google's pages, so it is not said here.
 */
const REMOVAL_COST =
  "This account stops seeing the property's data and notifications, and if it is the last verified owner every user of the property loses access; " +
  "Google's help says it can be added back later, without verifying again while a verified owner remains, and does not say its data is deleted.";
const READD =
  "This account no longer sees its data or notifications. Google's help says it can be added back (add_site), without verifying again while the property keeps a verified owner.";

function describeDeleteSite(_args: unknown, { site }: TargetOf<typeof SiteInput>, actor?: string): ApprovalPlan {
  const acting = actingPart(actor);
  return {
    target: site,
    ...(acting.effect.length ? { effect: acting.effect.join('\n') } : {}),
    summary: `This will remove ${site} from Search Console for this account.`,
    cost: REMOVAL_COST,
    supplied: acting.supplied,
    action: `remove ${site} from Search Console`,
  };
}

function siteOut(site: SiteEntry) {
  return { site_url: site.siteUrl, permission_level: site.permissionLevel };
}
