import { type CanActivate, type ExecutionContext, ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { CONFIG, type Config, isLoopback } from '../config/config.js';
import { sameSecret } from '../http/http-identity.service.js';
import { HTTP_MOUNT, type HttpMount } from '../http/http-mount.js';
import { checkSurface } from '../http/http-surface.js';
import { bearerTokenOf } from '../identity/protected-resource.js';

/**
 * The operations routes (admin, metrics): Host and Origin as on /mcp, so a
 * DNS-rebinding page cannot read them; then GSC_ADMIN_TOKEN as a bearer token,
 * or — without one configured — loopback callers only.
 */
@Injectable()
export class AdminAccessGuard implements CanActivate {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(HTTP_MOUNT) private readonly mount: HttpMount,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<IncomingMessage>();
    const token = this.config.http.adminToken;
    const surface = checkSurface(req, this.config, this.mount, token !== undefined);
    if (!surface.ok) {
      throw new ForbiddenException(surface.message);
    }
    if (token) {
      const presented = bearerTokenOf(req.headers.authorization);
      if (!('token' in presented) || !sameSecret(presented.token, token)) {
        throw new UnauthorizedException('GSC_ADMIN_TOKEN bearer token required');
      }
      return true;
    }
    if (!isLoopback(req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '')) {
      throw new ForbiddenException('admin endpoints answer loopback callers only unless GSC_ADMIN_TOKEN is set');
    }
    return true;
  }
}
