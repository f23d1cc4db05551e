import type { ServerResponse } from 'node:http';
import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import { AdminAccessGuard } from './admin-access.guard.js';
import { AdminRoute } from './admin-route.decorator.js';
import { MetricsService } from './metrics.service.js';

@Controller()
@UseGuards(AdminAccessGuard)
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  // Written to the response directly: inside a company's app, a global interceptor that
  // wraps answers (map(data => ({ data }))) would otherwise turn the exposition into JSON
  // that no Prometheus scraper reads. The host's guards and interceptors still run around it.
  @Get()
  @AdminRoute({
    summary:
      'Prometheus metrics: tool calls by tool and outcome, latency, Google errors by status, approval decisions by event, process metrics',
  })
  async scrape(@Res() res: ServerResponse): Promise<void> {
    const body = await this.metrics.registry.metrics();
    res.writeHead(200, { 'content-type': this.metrics.registry.contentType });
    res.end(body);
  }
}
