import { type CanActivate, type ExecutionContext, ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { CONFIG, type Config, isLoopback } from '../config/config.js';
import { sameSecret } from '../mcp/http-access.js';

/** /admin/* needs GSC_ADMIN_TOKEN as a bearer token; without one configured it answers loopback callers only. */
@Injectable()
export class AdminAccessGuard implements CanActivate {
  constructor(@Inject(CONFIG) private readonly config: Config) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<IncomingMessage>();
    const token = this.config.http.adminToken;
    if (token) {
      const presented = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
      if (!presented || !sameSecret(presented, token)) throw new UnauthorizedException('GSC_ADMIN_TOKEN bearer token required');
      return true;
    }
    if (!isLoopback(req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '')) {
      throw new ForbiddenException('admin endpoints answer loopback callers only unless GSC_ADMIN_TOKEN is set');
    }
    return true;
  }
}
