import { Controller, Get, HttpStatus, Inject, Query, Req, Res, UseGuards, ValidationPipe } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GoogleAuthService } from '../google/google-auth.service.js';
import { CONFIG, type Config, describeState } from '../config/config.js';
import { configView } from '../config/config-view.js';
import { HttpIdentity } from '../http/http-identity.service.js';
import { HTTP_MOUNT, type HttpMount } from '../http/http-mount.js';
import { AccessPolicy } from '../policy/access-policy.service.js';
import { AuditTrail } from '../call/approval/audit-trail.service.js';
import { STATE_STORE } from '../state/state.module.js';
import { type StateStore, StateUnavailableError } from '../state/state-store.js';
import { annotationsFor } from '../tools/tool.decorator.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import { ToolRegistry } from '../tools/tool-registry.service.js';
import { AdminAccessGuard } from './admin-access.guard.js';
import { adminOpenApi } from './admin-openapi.js';
import { AdminRoute } from './admin-route.decorator.js';
import { AuditQueryDto } from './audit-query.dto.js';
import { adminPrincipal } from './admin-principal.js';

/** Operations endpoints beside /mcp, at the path the module mounts them (/admin standalone). Nothing here changes state, and nothing returns a secret. */
@Controller()
@UseGuards(AdminAccessGuard)
export class AdminController {
  private readonly started = Date.now();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly access: AccessPolicy,
    private readonly auth: GoogleAuthService,
    private readonly audit: AuditTrail,
    private readonly identity: HttpIdentity,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(HTTP_MOUNT) private readonly mount: HttpMount,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {}

  @Get('health')
  @AdminRoute({ summary: 'Liveness: the process answers' })
  health() {
    return { status: 'ok', uptime_seconds: Math.round((Date.now() - this.started) / 1000) };
  }

  /** Whether the credential can mint an access token for the requested scopes right now, and the state store answers. */
  @Get('ready')
  @AdminRoute({
    summary: 'Readiness: the credential can mint an access token now, and the state store answers',
    responses: { 503: 'Not ready: { status: "error", reason, state }' },
  })
  async ready(@Res({ passthrough: true }) res: ServerResponse) {
    const state = describeState(this.config.state);
    const problems: string[] = [];
    if (this.config.connected) {
      // Connected accounts (PRODUCT.md §8d): no shared credential to try; each person's grant answers for itself on their calls.
    } else if (!this.auth.hasCredential()) {
      problems.push('no Google credential configured');
    } else {
      try {
        await (await this.auth.authClient()).getAccessToken();
      } catch (error) {
        // The token endpoint's own text, without any secret it echoed (the refresh token, the client secret).
        problems.push(`token request failed: ${this.auth.redact((error as Error).message, error)}`);
      }
    }
    try {
      await this.store.ping();
    } catch (error) {
      problems.push(
        error instanceof StateUnavailableError ? error.message : `the state store (${state}) failed: ${(error as Error).message}`,
      );
    }
    if (problems.length > 0) {
      res.statusCode = HttpStatus.SERVICE_UNAVAILABLE;
      return { status: 'error', reason: problems.join('; '), state };
    }
    return { status: 'ok', credential: this.auth.summary().kind, state };
  }

  /** The registered tools; with ?principal= (and ?groups=a,b) what that caller would see under the policy. */
  @Get('tools')
  @AdminRoute({
    summary:
      'Registered tools with annotations and the guarded flag, what was filtered out and why; with principal (and groups) what that caller sees',
    responses: { 400: 'The principal is spelled with characters no caller may have (a look-alike, or not plain text)' },
  })
  tools(@Res({ passthrough: true }) res: ServerResponse, @Query('principal') principal?: string, @Query('groups') groups?: string) {
    const describe = ({ spec }: RegisteredTool) => ({
      name: spec.name,
      title: spec.title,
      access: spec.access,
      guarded: spec.access === 'destructive',
      annotations: annotationsFor(spec),
      ...(spec.appOnlyFor ? { app_only_for: spec.appOnlyFor } : {}),
    });
    if (principal === undefined) {
      return { registered: this.registry.tools.map(describe), excluded: this.registry.excluded };
    }
    // The spelling every principal is compared in, as the caller's own requests would carry it.
    const named = adminPrincipal(principal);
    if ('refused' in named) {
      res.statusCode = HttpStatus.BAD_REQUEST;
      return { status: 'error', reason: named.refused };
    }
    const caller = {
      principal: named.principal,
      groups: (groups ?? '')
        .split(',')
        .map((g) => g.trim())
        .filter(Boolean),
    };
    const access = this.access.accessFor(caller);
    return {
      principal: caller.principal,
      groups: caller.groups,
      decided_by: access.decidedBy,
      ...(access.rule !== undefined ? { rule: access.rule } : {}),
      tools: this.registry.tools.filter((t) => access.tools.has(t.spec.name)).map(describe),
      sites: access.sites ?? null,
    };
  }

  @Get('config')
  @AdminRoute({
    summary: 'Effective configuration, secrets redacted: credential kind and principal, scopes, mount, auth mode, policy, state store',
  })
  effectiveConfig() {
    // Every setting from its row of the configuration table; beside them what no one setting decides.
    const view = configView(this.config) as { http?: object; auth?: object };
    return {
      credential: this.auth.summary(),
      scopes: this.registry.scopes,
      ...view,
      http: {
        ...view.http,
        mount: {
          mcp: `/${this.mount.mcpPath}`,
          admin: this.mount.adminPath ? `/${this.mount.adminPath}` : null,
          metrics: this.mount.metricsPath ? `/${this.mount.metricsPath}` : null,
        },
        allowed_hosts: this.mount.allowedHosts,
      },
      auth: { mode: this.identity.mode, ...view.auth },
    };
  }

  @Get('openapi.json')
  @AdminRoute({ summary: 'This document, generated from the controllers at build time' })
  openApi(@Req() req: IncomingMessage & { originalUrl?: string }) {
    return adminOpenApi(this.mount, new URL(req.originalUrl ?? req.url ?? '/', 'http://localhost').pathname);
  }

  /** Guarded decisions (and, in connected mode, requests to connect and Google calls) from the state store's audit trail, newest first; filters and paging through query parameters. */
  @Get('audit')
  @AdminRoute({
    summary: 'Recent guarded decisions from the audit trail, newest first',
    description:
      'In connected mode the trail also holds requests to connect a Google account (connect_asked, connect_declined, connect_cancelled, permission_missing), what happened on the connect pages (connect_started, connect_completed, connect_denied, connect_sign_in_cancelled, connect_wrong_browser, connect_wrong_person; tool is the tool whose call made the link, or connect_page) and every tool call that reached Google (google_call); those entries and guarded ones name the Google account used in google_account. A caller refused for the spelling of its principal (a look-alike that Unicode normalisation would change, or text that is not plain) is recorded as principal_refused, with that spelling escaped to ASCII in refused_principal.',
    responses: { 400: 'A query parameter is not valid', 503: 'The state store cannot be reached' },
  })
  async recentAudit(
    @Res({ passthrough: true }) res: ServerResponse,
    @Query(
      new ValidationPipe({
        transform: true,
        transformOptions: { enableImplicitConversion: true },
        whitelist: true,
        forbidNonWhitelisted: true,
      }),
    )
    query: AuditQueryDto,
  ) {
    const named = query.principal === undefined ? undefined : adminPrincipal(query.principal);
    if (named && 'refused' in named) {
      res.statusCode = HttpStatus.BAD_REQUEST;
      return { status: 'error', reason: named.refused };
    }
    try {
      return await this.audit.query(query);
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) {
        throw error;
      }
      res.statusCode = HttpStatus.SERVICE_UNAVAILABLE;
      return { status: 'error', reason: error.message };
    }
  }
}
