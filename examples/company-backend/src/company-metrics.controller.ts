import { Controller, Get } from '@nestjs/common';
import { Public } from './company-auth.guard.js';
import { HelloStats } from './hello-stats.service.js';

/** The company's own /api/metrics; Search Console's are at /api/metrics/search-console. */
@Controller('metrics')
export class CompanyMetricsController {
  constructor(private readonly stats: HelloStats) {}

  @Public()
  @Get()
  metrics(): { service: string; hello_requests: number } {
    return { service: 'company-backend', hello_requests: this.stats.greeted };
  }
}
