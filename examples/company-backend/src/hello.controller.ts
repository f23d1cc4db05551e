import { Controller, Get, Req } from '@nestjs/common';
import type { CompanyRequest } from './company-auth.guard.js';
import { HelloStats } from './hello-stats.service.js';

@Controller('hello')
export class HelloController {
  constructor(private readonly stats: HelloStats) {}

  @Get()
  hello(@Req() req: CompanyRequest): { message: string } {
    this.stats.greeted++;
    return { message: `Hello, ${req.user?.email ?? 'stranger'}` };
  }
}
