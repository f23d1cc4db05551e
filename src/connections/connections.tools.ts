import { Injectable } from '@nestjs/common';
import * as z from 'zod';
import { inert } from '../common/inert-text.js';
import { plural } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { type AccountSiteList, AccountSites } from '../call/account-sites.js';
import { ConnectedCalls } from '../call/connected-calls.js';
import { withheldWords } from '../call/account-texts.js';
import { permissionName } from '../call/granted-scopes.js';
import { NoArgs } from '../tools/tool-args.js';
import type { ToolCall } from '../tools/tool-call.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { partitionAllowed } from '../property/site-allowlist.js';
import { ConnectionsService } from './connections.service.js';

const AccountOut = z.object({
  google_account: z.string().describe('The Google account (e-mail).'),
  scopes: z.array(z.string()).describe('The Google scopes it granted this server.'),
  connected_at: z.string(),
  last_used: z.string().optional().describe('When a tool call last reached Google as this account.'),
  sites: z
    .array(z.object({ site_url: z.string(), permission_level: z.string() }))
    .describe('The properties it sees that you may use here.'),
  withheld: z.number().int().optional().describe('Properties it sees that the allowlist or your policy hides.'),
  sites_error: z.string().optional().describe('Why its properties could not be listed.'),
});

const DisconnectInput = z.object({
  google_account: z.string().describe('The connected Google account (e-mail) to disconnect; list_google_accounts shows them.'),
});

@ToolProvider()
@Injectable()
export class ConnectionsTools {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly sites: AccountSites,
    private readonly connected: ConnectedCalls,
  ) {}

  @Tool({
    name: 'list_google_accounts',
    title: 'List connected Google accounts',
    description:
      'Your Google accounts connected to this server: granted scopes, last use, and the properties each sees. Calls resolve a property to the account that has it.',
    input: NoArgs,
    output: z.object({ accounts: z.array(AccountOut), connect_url: z.string().optional() }),
    access: 'read',
    // Runs without a grant (it says there is none); it looks up each account's properties itself.
    apis: [],
    connectedOnly: true,
  })
  async listAccounts(_args: unknown, call: ToolCall<unknown>): Promise<ToolOutput> {
    const grants = await this.connections.list(call.principal);
    const link = await this.connected.connectLink(call);
    const connect = `To connect ${grants.length ? 'another' : 'one'}, open ${link.url} in a browser before ${link.expiresAt.toISOString()}.`;
    if (grants.length === 0) {
      return toolOutput({ accounts: [], connect_url: link.url }, `No Google account is connected for you on this server. ${connect}`);
    }
    const accounts = await Promise.all(
      grants.map(async (grant) => {
        const lastUsed = await this.sites.lastUse(grant);
        let list: AccountSiteList | undefined;
        let error: string | undefined;
        try {
          list = await this.sites.sitesOf(grant);
        } catch (failure) {
          error = failure instanceof Error ? failure.message : String(failure);
        }
        const { kept: shown, withheld } = partitionAllowed(list?.sites ?? [], (s) => s.siteUrl, call.sites);
        return {
          google_account: grant.googleEmail,
          scopes: [...grant.scopes],
          connected_at: grant.connectedAt,
          ...(lastUsed ? { last_used: lastUsed } : {}),
          sites: shown.map((s) => ({ site_url: s.siteUrl, permission_level: s.permissionLevel })),
          ...(withheld ? { withheld } : {}),
          ...(error ? { sites_error: error } : {}),
        };
      }),
    );
    const lines = accounts.map((a) => {
      const sees = a.sites_error
        ? `its properties could not be listed: ${a.sites_error}`
        : a.sites.length
          ? `sees ${a.sites.map((s) => s.site_url).join(', ')}`
          : 'sees no property you may use here';
      const hidden = a.withheld
        ? ` (${plural(a.withheld, 'more property', 'more properties')} hidden by the allowlist or your policy)`
        : '';
      const granted = a.scopes.map(permissionName).join(', ');
      return `- ${a.google_account}: ${sees}${hidden}; granted ${granted}; connected ${a.connected_at}; ${a.last_used ? `last used ${a.last_used}` : 'not used yet'}.`;
    });
    return toolOutput(
      { accounts, connect_url: link.url },
      [`${plural(accounts.length, 'Google account', 'Google accounts')} connected for you:`, ...lines, connect].join('\n'),
    );
  }

  @Tool({
    name: 'disconnect_google_account',
    title: 'Disconnect a Google account',
    description:
      'Revoke this server’s access to one of your Google accounts at Google and delete its grant here. Calls for its properties then ask you to connect it again.',
    input: DisconnectInput,
    output: z.object({
      google_account: z.string(),
      disconnected: z.boolean(),
      revoked_at_google: z.boolean(),
      properties: z
        .array(z.string())
        .describe('The properties calls could reach through this account until now, of those you may use here.'),
      withheld: z.number().int().optional().describe('Properties it had that the allowlist or your policy hides.'),
    }),
    access: 'write',
    idempotent: true,
    apis: [],
    connectedOnly: true,
  })
  async disconnect(args: z.infer<typeof DisconnectInput>, call: ToolCall<unknown>): Promise<ToolOutput> {
    const grant = await this.connections.find(call.principal, args.google_account);
    if (!grant) {
      const yours = (await this.connections.list(call.principal)).map((g) => g.googleEmail);
      throw new UserFacingError(
        `${inert(args.google_account, 120)} is not a Google account connected for you (${yours.length ? `yours: ${yours.join(', ')}` : 'none is'}), so nothing was changed. list_google_accounts shows them.`,
      );
    }
    // What stops working: what calls reached through it (from the cached list when there is one; never a failure here).
    const before = await this.sites.sitesOf(grant).catch(() => undefined);
    const done = await this.connections.disconnect(grant);
    await this.sites.forget(grant);
    // Only the properties this caller may use are named; the rest are counted (PRODUCT.md §8d).
    const { kept, withheld } = partitionAllowed(before?.sites ?? [], (s) => s.siteUrl, call.sites);
    const properties = kept.map((s) => s.siteUrl);
    const others = (await this.connections.list(call.principal)).map((g) => g.googleEmail);
    const hidden = withheld ? ` (${withheldWords(withheld)})` : '';
    const stops = properties.length
      ? `Calls for ${properties.join(', ')}${hidden} no longer act as ${grant.googleEmail}. ${
          others.length
            ? `No other account takes its place silently: a call for a property that acted as ${grant.googleEmail} asks you first which of your other connected accounts (${others.join(', ')}) to use, or, where no one can be asked, names them for the google_account argument.`
            : 'No other Google account is connected for you: those calls ask you to connect one.'
        }`
      : `Calls no longer act as ${grant.googleEmail}${hidden}.`;
    const revoked = done?.revokedAtGoogle
      ? `Google revoked this server's access to ${grant.googleEmail}, and its grant was deleted here.`
      : `Its grant was deleted here (Google had already ended it).`;
    return toolOutput(
      {
        google_account: grant.googleEmail,
        disconnected: true,
        revoked_at_google: done?.revokedAtGoogle ?? false,
        properties,
        ...(withheld ? { withheld } : {}),
      },
      `${revoked} ${stops} Connecting it again restores access.`,
    );
  }
}
