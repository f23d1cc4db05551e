import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Logger, Optional, Req, Res } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { CONFIG, type Config } from '../config/config.js';
import { HttpIdentity } from '../http/http-identity.service.js';
import { HTTP_MOUNT, type HttpMount } from '../http/http-mount.js';
import { checkSurface } from '../http/http-surface.js';
import { LOCAL_PRINCIPAL } from '../identity/caller.js';
import { type BrowserProof, ConnectFlow, type ConnectSite } from './connect-flow.service.js';
import { sendFailurePage, sendPage } from './connect-pages.js';
import { type ConnectPageHost, ConnectRequests } from './connect-requests.js';

/**
 * Where the connect routes are mounted: beside the MCP endpoint, so `mcp` gives
 * `/connect/google` and a host's `search-console/mcp` gives
 * `/search-console/connect/google`, under the host's global prefix.
 */
export function connectRoot(mount: HttpMount): string {
  const parent = mount.mcpPath.split('/').slice(0, -1).join('/');
  return parent ? `${parent}/connect` : 'connect';
}

/**
 * The connect page and its callbacks on the HTTP server (standalone, or the
 * Nest module inside a company's app). Who the browser is: the host's
 * `principal(req)`; in resource-server mode a login with the company IdP;
 * on loopback `local`. The flow itself is ConnectFlow's.
 */
@Controller()
export class ConnectController implements ConnectPageHost {
  private readonly logger = new Logger('ConnectPages');

  constructor(
    private readonly flow: ConnectFlow,
    requests: ConnectRequests,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(HTTP_MOUNT) private readonly mount: HttpMount,
    private readonly identity: HttpIdentity,
    private readonly adapterHost: HttpAdapterHost,
    @Optional() private readonly application?: ApplicationConfig,
  ) {
    if (config.connected) {
      requests.servePagesWith(this);
    }
  }

  @Get('google')
  page(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    return this.serve(req, res, (site) => this.flow.page(req, res, site));
  }

  @Get('google/callback')
  googleCallback(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    return this.serve(req, res, (site) => this.flow.googleCallback(req, res, site));
  }

  @Get('idp/callback')
  idpCallback(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    return this.serve(req, res, (site) => this.flow.idpCallback(req, res, site));
  }

  /**
   * GSC_PUBLIC_URL, else the address this server listens on; then the host's
   * global prefix and the routes' parent path, as the protected-resource
   * metadata builds the MCP endpoint's URL.
   */
  base(): Promise<string> {
    const parent = connectRoot(this.mount).replace(/\/?connect$/, '');
    const path = [this.application?.getGlobalPrefix() ?? '', parent]
      .map((p) => p.replace(/^\/+|\/+$/g, ''))
      .filter(Boolean)
      .map((p) => `/${p}`)
      .join('');
    const publicUrl = this.config.http.publicUrl;
    if (publicUrl) {
      return Promise.resolve(`${publicUrl.replace(/\/+$/, '')}${path}`);
    }
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    const address = server?.address();
    const port = typeof address === 'object' && address ? address.port : this.config.http.port;
    const bind = ['0.0.0.0', '::', ''].includes(this.config.http.host) ? '127.0.0.1' : this.config.http.host;
    return Promise.resolve(`http://${bind.includes(':') ? `[${bind}]` : bind}:${port}${path}`);
  }

  private async serve(req: IncomingMessage, res: ServerResponse, run: (site: ConnectSite) => Promise<void>): Promise<void> {
    const surface = checkSurface(req, this.config, this.mount, this.identity.credentialRequired);
    if (!surface.ok) {
      return sendPage(res, surface.status, { title: 'Forbidden', lines: [surface.message] });
    }
    try {
      const base = await this.base();
      await run({ base, proof: this.proof(), server: `the Search Console server at ${base}` });
    } catch (error) {
      sendFailurePage(res, error, (line) => this.logger.error(line));
    }
  }

  private proof(): BrowserProof {
    const named = this.mount.principal;
    switch (this.identity.mode) {
      case 'host':
        return {
          kind: 'principal',
          principal: async (req) => {
            const who = await named!(req);
            return typeof who === 'string' && who.trim() ? who : undefined;
          },
        };
      case 'oauth':
        return { kind: 'idp' };
      case 'local':
        return { kind: 'principal', principal: () => Promise.resolve(LOCAL_PRINCIPAL) };
      case 'token':
        // GSC_HTTP_TOKEN cannot tell people apart: the configuration refuses connected accounts with it.
        return { kind: 'principal', principal: () => Promise.resolve(undefined) };
    }
  }
}
