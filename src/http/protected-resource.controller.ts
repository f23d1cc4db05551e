import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { protectedResourceMetadata } from '../identity/protected-resource.js';
import { CONFIG, type Config } from '../config/config.js';
import { HttpIdentity, requestOrigin } from './http-identity.service.js';
import { HTTP_MOUNT, type HttpMount } from './http-mount.js';
import { checkSurface } from './http-surface.js';

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint, at
 * /.well-known/oauth-protected-resource and …/<mcp path>; mounted only in
 * OAuth resource-server mode (GSC_AUTH_ISSUER). A public document: no
 * credential, but the same Host/Origin rules as every route.
 */
@Controller()
export class ProtectedResourceController {
  constructor(
    private readonly identity: HttpIdentity,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(HTTP_MOUNT) private readonly mount: HttpMount,
  ) {}

  @Get()
  metadata(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    const settings = this.identity.protectedResource(`/${this.mount.mcpPath}`);
    const surface = checkSurface(req, this.config, this.mount, false);
    const [status, body] = !surface.ok
      ? [403, { error: surface.message }]
      : settings
        ? [200, protectedResourceMetadata(settings, requestOrigin(req))]
        : [404, { error: 'not found' }];
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    res.end(JSON.stringify(body));
  }
}
