import { Controller, Delete, Get, HttpStatus, Inject, Param, Res, UseGuards } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { GrantRevocation } from '../accounts/grant-revocation.js';
import { GrantStore } from '../accounts/grant-store.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import { AuditTrail } from '../call/approval/audit-trail.service.js';
import { AdminAccessGuard } from './admin-access.guard.js';
import { adminPrincipal } from './admin-principal.js';
import { refuse, unavailable } from './admin-replies.js';
import { AdminRoute } from './admin-route.decorator.js';

/** The principal the audit trail names for what the operations API did. */
export const ADMIN_ACTOR = 'admin';

/** One Google account of a principal as ops see it: never a token. */
export interface AccountView {
  readonly google_email: string | null;
  readonly google_sub: string;
  /** connected: usable; revoked: Google answered invalid_grant (the person is asked to connect again); unreadable: the record does not open. */
  readonly status: 'connected' | 'revoked' | 'unreadable';
  readonly scopes: readonly string[];
  readonly connected_at: string | null;
  /** When a call last used the grant (to the minute), or null when none has since it was connected. */
  readonly last_used: string | null;
  readonly revoked_at?: string;
  readonly reason?: string;
}

const OFF =
  'Connected accounts are off on this server (GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_GOOGLE_OAUTH_CLIENT_SECRET are unset): every call uses the one shared Google credential, so there are no per-person Google accounts to list or disconnect.';

/**
 * GET <admin path>/accounts and DELETE <admin path>/accounts/{principal}/{account}
 * (PRODUCT.md §8d): the principals with Google grants, from GrantStore's
 * index (no key scan), and ops disconnecting one of them — revoked at Google,
 * then deleted (GrantRevocation, as the person's own disconnect tool does),
 * audited. Mounted beside AdminController by SearchConsoleMcpModule, behind the
 * same guard; in the default mode both answer 409 with a sentence.
 */
@Controller()
@UseGuards(AdminAccessGuard)
export class AccountsController {
  constructor(
    private readonly grants: GrantStore,
    private readonly revocation: GrantRevocation,
    private readonly audit: AuditTrail,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get('accounts')
  @AdminRoute({
    summary:
      "Connected accounts: each principal's Google accounts (e-mail, sub), granted scopes, connected at, last use and status; never a token",
    responses: { 409: 'Connected accounts are off (one shared Google credential)', 503: 'The state store cannot be reached' },
  })
  async list(@Res({ passthrough: true }) res: ServerResponse) {
    if (!this.config.connected) {
      return refuse(res, HttpStatus.CONFLICT, OFF);
    }
    try {
      const principals = await Promise.all(
        (await this.grants.principals()).map(async (principal) => ({ principal, accounts: await this.accountsOf(principal) })),
      );
      const listed = principals.filter((p) => p.accounts.length > 0);
      return {
        principals: listed,
        count: { principals: listed.length, accounts: listed.reduce((n, p) => n + p.accounts.length, 0) },
      };
    } catch (error) {
      return unavailable(res, error);
    }
  }

  @Delete('accounts/:principal/:account')
  @AdminRoute({
    summary:
      "Disconnects one Google account of a principal (account: its e-mail or sub): revoked at Google, then its grant deleted, audited; the person's next call asks them to connect again",
    responses: {
      400: 'The principal is spelled with characters no caller may have (a look-alike, or not plain text)',
      404: 'The principal has no such Google account',
      409: 'Connected accounts are off (one shared Google credential)',
      502: "Google's revocation endpoint failed or did not answer: nothing was deleted",
      503: 'The state store cannot be reached',
    },
  })
  async disconnect(
    @Param('principal') rawPrincipal: string,
    @Param('account') account: string,
    @Res({ passthrough: true }) res: ServerResponse,
  ) {
    if (!this.config.connected) {
      return refuse(res, HttpStatus.CONFLICT, OFF);
    }
    const named = adminPrincipal(rawPrincipal);
    if ('refused' in named) {
      return refuse(res, HttpStatus.BAD_REQUEST, named.refused);
    }
    const { principal } = named;
    try {
      const outcome = await this.revocation.revokeAndDelete(principal, account);
      if (!outcome) {
        return refuse(
          res,
          HttpStatus.NOT_FOUND,
          `Principal ${JSON.stringify(principal)} has no connected Google account ${JSON.stringify(account)} (an e-mail or a Google account id), so nothing was changed; GET accounts lists who has which.`,
        );
      }
      const { grant, revokedAtGoogle } = outcome;
      const email = grant.googleEmail;
      await this.audit.record({
        event: 'account_disconnected',
        tool: 'DELETE /admin/accounts',
        principal: ADMIN_ACTOR,
        target_principal: principal,
        google_account: email,
        ...(revokedAtGoogle ? {} : { reason: 'already_ended' }),
      });
      return {
        status: 'ok',
        principal,
        google_email: email,
        google_sub: grant.googleSub,
        revoked_at_google: revokedAtGoogle,
        message: `${revokedAtGoogle ? 'Revoked at Google and deleted' : 'Deleted (Google had already ended it)'}: the grant of ${email} for ${principal}. Their calls no longer act as ${email}; their next call that needs it asks them to connect again.`,
      };
    } catch (error) {
      if (error instanceof UserFacingError) {
        return refuse(res, HttpStatus.BAD_GATEWAY, error.message);
      }
      return unavailable(res, error);
    }
  }

  private async accountsOf(principal: string): Promise<AccountView[]> {
    const records = await this.grants.read(principal);
    const used = (sub: string) => this.grants.lastUsed(principal, sub).then((t) => t ?? null);
    type Grant = (typeof records.usable)[number] | (typeof records.revoked)[number];
    const view = async (g: Grant, status: 'connected' | 'revoked'): Promise<AccountView> => ({
      google_email: g.googleEmail,
      google_sub: g.googleSub,
      status,
      scopes: g.scopes,
      connected_at: g.connectedAt,
      last_used: await used(g.googleSub),
      ...('revokedAt' in g ? { revoked_at: g.revokedAt } : {}),
    });
    const views = [
      ...(await Promise.all(records.usable.map((g) => view(g, 'connected')))),
      ...(await Promise.all(records.revoked.map((g) => view(g, 'revoked')))),
      ...records.unreadable.map((u): AccountView => ({
        google_email: null,
        google_sub: u.googleSub,
        status: 'unreadable',
        scopes: [],
        connected_at: null,
        last_used: null,
        reason: u.reason,
      })),
    ];
    return views;
  }
}
