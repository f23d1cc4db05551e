import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { AdminAccessGuard } from './admin-access.guard.js';
import { MetricsService } from './metrics.service.js';

@Controller()
@UseGuards(AdminAccessGuard)
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
