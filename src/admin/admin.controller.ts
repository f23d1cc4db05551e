import { Controller, Get, HttpStatus, Inject, Query, Res, UseGuards, ValidationPipe } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { GoogleAuthService } from '../auth/google-auth.service.js';
import { CONFIG, type Config, describeState } from '../config/config.js';
import { AuditTrail } from '../mcp/approval/audit-trail.service.js';
import { STATE_STORE } from '../state/state.module.js';
import { type StateStore, StateUnavailableError } from '../state/state-store.js';
import { annotationsFor } from '../mcp/tool.decorator.js';
import { ToolRegistry } from '../mcp/tool-registry.service.js';
import { AdminAccessGuard } from './admin-access.guard.js';
import { ADMIN_OPENAPI } from './admin-openapi.js';
import { AuditQueryDto } from './audit-query.dto.js';

/** Operations endpoints beside /mcp. Nothing here changes state, and nothing returns a secret. */
@Controller('admin')
@UseGuards(AdminAccessGuard)
export class AdminController {
  private readonly started = Date.now();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly auth: GoogleAuthService,
    private readonly audit: AuditTrail,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Get('health')
  health() {
    return { status: 'ok', uptime_seconds: Math.round((Date.now() - this.started) / 1000) };
  }

  @Inject(STATE_STORE) private readonly store!: StateStore;

  /** Whether the credential can mint an access token for the requested scopes right now, and the state store answers. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) res: ServerResponse) {
    const state = describeState(this.config.state);
    const problems: string[] = [];
    if (!this.auth.hasCredential()) problems.push('no Google credential configured');
    else {
      try {
        await (await this.auth.authClient()).getAccessToken();
      } catch (error) {
        problems.push(`token request failed: ${(error as Error).message}`);
      }
    }
    try {
      await this.store.ping();
    } catch (error) {
      problems.push(error instanceof StateUnavailableError ? error.message : `the state store (${state}) failed: ${(error as Error).message}`);
    }
    if (problems.length > 0) {
      res.statusCode = HttpStatus.SERVICE_UNAVAILABLE;
      return { status: 'error', reason: problems.join('; '), state };
    }
    return { status: 'ok', credential: this.auth.summary().kind, state };
  }

  @Get('tools')
  tools() {
    return {
      registered: this.registry.tools.map(({ spec }) => ({
        name: spec.name,
        title: spec.title,
        access: spec.access,
        guarded: spec.access === 'destructive',
        annotations: annotationsFor(spec),
      })),
      excluded: this.registry.excluded,
    };
  }

  @Get('config')
  effectiveConfig() {
    const c = this.config;
    return {
      credential: this.auth.summary(),
      scopes: this.registry.scopes,
      site_url: c.siteUrl ?? null,
      allowed_sites: c.allowedSites ?? null,
      read_only: c.readOnly,
      allow_tools: c.allowTools?.map((p) => p.text) ?? null,
      deny_tools: c.denyTools.map((p) => p.text),
      elicitation: c.elicitation,
      transport: c.transport,
      http: { host: c.http.host, port: c.http.port, token: c.http.token ? 'set' : 'unset', admin_token: c.http.adminToken ? 'set' : 'unset', allowed_origins: c.http.allowedOrigins },
      approval_secret: c.approval.secretSource === 'store' ? 'kept in the state store' : 'set',
      audit_log: c.auditLog ?? null,
      google: { api_root_url: c.google.apiRootUrl ?? 'Google', oauth_token_url: c.google.oauthTokenUrl ?? 'Google' },
    };
  }

  @Get('openapi.json')
  openApi() {
    return ADMIN_OPENAPI;
  }

  /** Guarded decisions from the state store's audit trail, newest first; filters and paging through query parameters. */
  @Get('audit')
  async recentAudit(
    @Res({ passthrough: true }) res: ServerResponse,
    @Query(new ValidationPipe({ transform: true, transformOptions: { enableImplicitConversion: true }, whitelist: true, forbidNonWhitelisted: true })) query: AuditQueryDto,
  ) {
    try {
      return await this.audit.query(query);
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) throw error;
      res.statusCode = HttpStatus.SERVICE_UNAVAILABLE;
      return { status: 'error', reason: error.message };
    }
  }
}
