import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { AdminAccessGuard } from './admin-access.guard.js';
import { AdminRoute } from './admin-route.decorator.js';
import { MetricsService } from './metrics.service.js';

@Controller()
@UseGuards(AdminAccessGuard)
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @AdminRoute({ summary: 'Prometheus metrics: tool calls by tool and outcome, latency, Google errors by status, approval decisions by event, process metrics' })
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
