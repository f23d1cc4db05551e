import { settle } from '../common/settle.js';
import { Injectable } from '@nestjs/common';
import * as z from 'zod';
import { inert } from '../common/inert-text.js';
import { actingAccountName, actingIdentity } from '../google/connected-accounts.js';
import { capitalised, NOTHING_SENT, plural } from '../common/sentences.js';
import { actingPart, type ApprovalPlan } from '../tools/approval-plan.js';
import { NoArgs, SiteUrlArg } from '../tools/tool-args.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { TargetOf } from '../tools/tool-target.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { fitToBudget, type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { decodeResourceId } from '../property/resource-id.js';
import { partitionAllowed, withheldNote } from '../property/site-allowlist.js';
import type { VerifiedResource } from '../property/verification-resource.js';
import { describePlacement, VERIFICATION_METHODS } from './verification-methods.js';
import { MethodOut, RecordOut } from './verification.schemas.js';
import { VerificationService } from './verification.service.js';

const MethodArg = z.enum(VERIFICATION_METHODS);
// Not .min(1): minLength is outside Gemini's declaration subset; the refusal is a sentence instead.
const IdArg = z
  .string()
  .refine((id) => id.length > 0, 'id is empty: give an id from list_verified_sites, e.g. dns%3A%2F%2Fexample.com.')
  .describe('Id from list_verified_sites (dns%3A%2F%2Fexample.com).');

const Owners = z.array(z.string()).describe('Verified owners (e-mail addresses, supplied by Google).');
const SiteUrlOut = z.string().describe('The property it stands for, or the raw identifier when there is none.');
const ResourceOut = z.object({
  id: z.string().describe('Exactly as Google returns it (percent-encoded).'),
  site_url: SiteUrlOut,
  owners: Owners,
});
const ListVerifiedOut = z.object({
  resources: z.array(ResourceOut),
  withheld: z.number().int().optional().describe('Resources hidden by GSC_ALLOWED_SITES.'),
  untrusted: z.literal(true),
});
const TokenOut = z.object({
  site_url: z.string(),
  method: MethodOut,
  token: z.string(),
  record: RecordOut,
  next_step: z.string(),
  // Set when already verified (the covering site or domain): the token then only re-verifies.
  verified_through: z.string().optional(),
});

// eslint-disable-next-line no-control-regex -- an address must not carry control characters
const EMAIL = /^[^\s@<>(),;:"\\\u0000-\u001f\u007f]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;

const OwnersArg = z
  .array(z.string())
  .superRefine((owners, ctx) => {
    if (owners.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: `owners is the complete owner list afterwards, so an empty list would remove every owner, which is not allowed. ${NOTHING_SENT} Pass every address that should remain an owner (get_verified_site shows the current ones); to give up only the ownership of the identity this server acts as, use unverify_site.`,
      });
    }
    const bad = owners.filter((o) => !EMAIL.test(o));
    if (bad.length) {
      ctx.addIssue({
        code: 'custom',
        message: `owners must be e-mail addresses of Google accounts or service accounts; not an address: ${bad.map((o) => `"${inert(o, 120)}"`).join(', ')}. ${NOTHING_SENT}`,
      });
    }
  })
  .describe('COMPLETE owner list afterwards (e-mails).');

const TokenInput = z.object({
  site_url: SiteUrlArg,
  method: MethodArg.optional().describe('Default DNS_TXT (sc-domain:) or META (URL-prefix).'),
});
const VerifyInput = z.object({ site_url: SiteUrlArg, method: MethodArg.describe('The method the token was placed with.') });
const IdInput = z.object({ id: IdArg });
const OwnersInput = z.object({
  id: IdArg,
  owners: OwnersArg,
  method: z.enum(['update', 'patch']).optional().describe('update (PUT, default) or patch.'),
});

@ToolProvider()
@Injectable()
export class VerificationTools {
  constructor(private readonly verification: VerificationService) {}

  @Tool({
    name: 'get_verification_token',
    title: 'Get verification token',
    description:
      'Get the ownership token and the exact record to place (apex TXT for sc-domain:, <meta> tag for URL-prefix). Claims nothing.',
    input: TokenInput,
    target: ['site'],
    output: TokenOut,
    access: 'read',
    apis: ['siteverification'],
  })
  async getVerificationToken(args: z.infer<typeof TokenInput>, call: ToolCall<TargetOf<typeof TokenInput>>): Promise<ToolOutput> {
    const { site } = call.target;
    const method = this.verification.checkMethod(site, args.method); // a method that cannot fit sends nothing at all
    const [t, verifiedBy] = await Promise.all([this.verification.token(site, method), this.verification.verifiedBy(site)]);
    if (verifiedBy) {
      // The same verdict as setup_site: already verified, so nothing needs placing; the token serves only to re-verify.
      const through = siteUrlOf(verifiedBy);
      const next = `Nothing to do. Only to re-verify (if the token in place was removed, or to add this method): ${describePlacement(t.record)}, then call verify_site with method ${t.method}.`;
      return toolOutput(
        { site_url: site, method: t.method, token: t.token, record: t.record, next_step: next, verified_through: through },
        `${site} is already verified: ${actingIdentity()} is a verified owner through ${through} (resource id ${verifiedBy.id}). No token needs placing.\n` +
          `For re-verification only, the ${t.method} token is ${t.token}.\n${next}`,
      );
    }
    return toolOutput(
      { site_url: site, method: t.method, token: t.token, record: t.record, next_step: t.nextStep },
      `${t.method} token for ${site}: ${t.token}\n${describePlacement(t.record)}.\n${t.nextStep}`,
    );
  }

  @Tool({
    name: 'verify_site',
    title: 'Verify ownership',
    description: 'Make this credential a verified owner once the token is placed. Fails until Google sees it (DNS can take hours).',
    input: VerifyInput,
    target: ['site'],
    output: ResourceOut.extend({ method: MethodOut, verified: z.boolean(), next_step: z.string(), untrusted: z.literal(true) }),
    access: 'write',
    apis: ['siteverification'],
    idempotent: true,
  })
  async verifySite(args: z.infer<typeof VerifyInput>, call: ToolCall<TargetOf<typeof VerifyInput>>): Promise<ToolOutput> {
    const { site } = call.target;
    const resource = await this.verification.verify(site, args.method);
    const next = `If ${site} is not in Search Console yet, add it with add_site; otherwise it now has owner access there. Keep the token in place: removing it can cost the ownership.`;
    return toolOutput(
      { ...resourceOut(resource), site_url: site, method: args.method, verified: true, next_step: next, untrusted: true },
      `Verified: ${actingIdentity()} is now a verified owner of ${site} (resource id ${resource.id}; owners: ${resource.owners.join(', ') || 'none listed'}). ${next}`,
    );
  }

  @Tool({
    name: 'list_verified_sites',
    title: 'List verified sites',
    description: 'List the sites and domains this credential has verified, with owners.',
    input: NoArgs,
    output: ListVerifiedOut,
    // Connected mode: the union over the person's Google accounts, each entry naming its account.
    connectedOutput: ListVerifiedOut.extend({
      resources: z.array(ResourceOut.extend({ google_account: z.string().describe('The connected Google account that owns it.') })),
    }),
    access: 'read',
    apis: ['siteverification'],
  })
  async listVerifiedSites(_args: unknown, call: ToolCall<unknown>): Promise<ToolOutput> {
    const { kept, withheld } = partitionAllowed(await this.verification.listAcross(), (r) => r.property, call.sites);
    return fitToBudget(kept, (shown, dropped) => {
      const head =
        kept.length === 0
          ? `${capitalised(actingIdentity())} ${actingAccountName()?.startsWith('the Google accounts') ? 'are' : 'is'} not a verified owner of any site or domain.`
          : `${plural(kept.length, 'verified site')} or domain${kept.length === 1 ? '' : 's'} (owners as Google reports them):`;
      const lines = shown.map(
        (r) =>
          `- ${siteUrlOf(r)} — id ${r.id} — owners: ${r.owners.join(', ') || 'none listed'}${r.googleAccount ? ` — as ${r.googleAccount}` : ''}`,
      );
      const notes = [
        withheld ? withheldNote(withheld) : '',
        dropped ? `${dropped} not shown to stay within the size limit; get_verified_site reads one resource by id.` : '',
        kept.length === 0 && !withheld ? 'setup_site shows how to verify a property.' : '',
      ].filter(Boolean);
      return toolOutput(
        {
          resources: shown.map((r) => ({ ...resourceOut(r), ...(r.googleAccount ? { google_account: r.googleAccount } : {}) })),
          ...(withheld ? { withheld } : {}),
          untrusted: true,
        },
        [head, ...lines, ...notes].join('\n'),
      );
    });
  }

  @Tool({
    name: 'get_verified_site',
    title: 'Get verified site',
    description: 'Show one verified site or domain and its owners.',
    input: IdInput,
    target: ['resource'],
    output: ResourceOut.extend({ untrusted: z.literal(true) }),
    access: 'read',
    apis: ['siteverification'],
  })
  getVerifiedSite(_args: unknown, call: ToolCall<TargetOf<typeof IdInput>>): Promise<ToolOutput> {
    return settle(() => {
      const { resource } = call.target;
      return toolOutput(
        { ...resourceOut(resource), untrusted: true },
        `${siteUrlOf(resource)} (id ${resource.id}) — verified owners: ${resource.owners.join(', ') || 'none listed'}.`,
      );
    });
  }

  @Tool({
    name: 'unverify_site',
    title: 'Give up ownership',
    description: "Give up this credential's verified ownership of a site or domain. Asks a person first: its properties lose owner access.",
    input: IdInput,
    target: ['resource'],
    output: z.object({ id: z.string(), site_url: SiteUrlOut, unverified: z.boolean() }),
    access: 'destructive',
    apis: ['siteverification'],
    idempotent: true,
    approval: describeUnverifySite,
  })
  async unverifySite(args: z.infer<typeof IdInput>, call: ToolCall<TargetOf<typeof IdInput>>): Promise<ToolOutput> {
    const { resource } = call.target;
    const site = siteUrlOf(resource);
    await this.verification.unverify(decodeResourceId(args.id), resource.property);
    return toolOutput(
      { id: resource.id || args.id, site_url: site, unverified: true },
      `Gave up the verified ownership of ${site} held by ${actingIdentity()}. Its properties answer 403 to it unless another owner grants access; to re-verify, place the token again (get_verification_token) and call verify_site.`,
    );
  }

  @Tool({
    name: 'update_site_owners',
    title: 'Replace verified owners',
    description: 'Replace the verified owners with the complete list given; everyone not listed loses ownership. Asks a person first.',
    input: OwnersInput,
    target: ['resource'],
    output: ResourceOut.extend({ untrusted: z.literal(true) }),
    access: 'destructive',
    apis: ['siteverification'],
    idempotent: true,
    approval: describeUpdateSiteOwners,
  })
  async updateSiteOwners(args: z.infer<typeof OwnersInput>, call: ToolCall<TargetOf<typeof OwnersInput>>): Promise<ToolOutput> {
    // The owners read by SiteAccessGuard for this very call: the approval was bound to who loses and gains from them.
    const before = call.target.resource;
    const id = decodeResourceId(args.id);
    const after =
      args.method === 'patch'
        ? await this.verification.patchOwners(id, args.owners, before.property)
        : await this.verification.replaceOwners(id, before, args.owners);
    const { lost } = ownerDiff(before.owners, args.owners);
    return toolOutput(
      { ...resourceOut(after), untrusted: true },
      `The verified owners of ${siteUrlOf(after)} are now: ${after.owners.join(', ')}.${lost.length ? ` No longer owners: ${lost.join(', ')}.` : ''}`,
    );
  }
}

function describeUnverifySite(args: z.infer<typeof IdInput>, { resource }: TargetOf<typeof IdInput>, actor?: string): ApprovalPlan {
  const subject = resource.property ?? 'the Site Verification resource quoted below';
  const acting = actingPart(actor);
  return {
    target: resource.id,
    ...(acting.effect.length ? { effect: acting.effect.join('\n') } : {}),
    summary: `This will give up ownership of ${subject}.`,
    cost: 'Every property for that site drops to 403, and the Indexing API stops working. Re-verifying means placing the token again.',
    // The ownership given up is the acting account's own: the token path quotes whose, and which resource.
    supplied: [{ label: 'Resource id', values: [args.id], effect: true }, ...acting.supplied],
    action: `give up ownership of ${subject}`,
  };
}

/**
 * Bound to the effect, not only the arguments: who gains and who loses
 * ownership, from the owners just read, and who acts. When the acting
 * account is among those who lose ownership, the dialog says so.
 */
function describeUpdateSiteOwners(
  args: z.infer<typeof OwnersInput>,
  { resource }: TargetOf<typeof OwnersInput>,
  actor?: string,
): ApprovalPlan {
  const { gained, lost } = ownerDiff(resource.owners, args.owners);
  const subject = resource.property ?? 'the Site Verification resource quoted below';
  const acting = actingPart(actor);
  const losesItself = actor !== undefined && lost.some((o) => o.toLowerCase() === actor.toLowerCase());
  return {
    target: [resource.id, ...args.owners].join('\n'),
    effect: [
      `gains:${[...gained]
        .map((o) => o.toLowerCase())
        .sort()
        .join(',')}`,
      `loses:${[...lost]
        .map((o) => o.toLowerCase())
        .sort()
        .join(',')}`,
      ...acting.effect,
    ].join('\n'),
    summary: `This will replace the owner list of ${subject}.`,
    cost: losesItself
      ? 'Everyone not in the new list loses ownership — the Google account making the change among them, so it cannot undo this — and nothing here can put them back.'
      : 'Everyone not in the new list loses ownership, and nothing here can put them back.',
    supplied: [
      { label: 'Owners after the change', values: args.owners },
      { label: 'Gaining ownership', values: gained, effect: true },
      { label: 'Losing ownership', values: lost, effect: true },
      ...acting.supplied,
      ...(losesItself
        ? [{ label: 'Losing its own ownership: the Google account making the change', values: [actor], effect: true as const }]
        : []),
      { label: 'Resource id', values: [args.id] },
    ],
    action: `replace the owner list of ${subject}`,
  };
}

function ownerDiff(before: readonly string[], after: readonly string[]) {
  const had = new Set(before.map((o) => o.toLowerCase()));
  const will = new Set(after.map((o) => o.toLowerCase()));
  return {
    gained: [...new Set(after.filter((o) => !had.has(o.toLowerCase())))],
    lost: before.filter((o) => !will.has(o.toLowerCase())),
  };
}

function siteUrlOf(resource: VerifiedResource): string {
  return resource.property ?? resource.identifier;
}

function resourceOut(resource: VerifiedResource) {
  return { id: resource.id, site_url: siteUrlOf(resource), owners: [...resource.owners] };
}
