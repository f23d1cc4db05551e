import type { IncomingMessage } from 'node:http';
import { type CanActivate, type ExecutionContext, Injectable, SetMetadata, UnauthorizedException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Reflector } from '@nestjs/core';

export interface CompanyUser {
  readonly email: string;
  readonly groups: readonly string[];
}

export type CompanyRequest = IncomingMessage & { user?: CompanyUser };

const PUBLIC = 'company:public';

/** A route anyone may call (e.g. the metrics scrape). */
export const Public = () => SetMetadata(PUBLIC, true);

/**
 * The company's own authentication, as a global guard: an ordinary HTTP guard
 * that reads a header and sets req.user. COMPANY_USERS (a JSON object of
 * key → { email, groups }) stands in for your real SSO or API-key store.
 */
@Injectable()
export class CompanyAuthGuard implements CanActivate {
  private readonly users: ReadonlyMap<string, CompanyUser>;

  constructor(
    private readonly reflector: Reflector,
    config: ConfigService,
  ) {
    this.users = new Map(Object.entries(JSON.parse(config.get<string>('COMPANY_USERS', '{}')) as Record<string, CompanyUser>));
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const req = context.switchToHttp().getRequest<CompanyRequest>();
    const key = req.headers['x-company-key'];
    const user = typeof key === 'string' ? this.users.get(key) : undefined;
    if (!user) {
      throw new UnauthorizedException('company-backend: send your company key in the x-company-key header');
    }
    req.user = user;
    return true;
  }
}
