import { Controller, Get, Query, UseGuards, ValidationPipe } from '@nestjs/common';
import { QuotaOverviewService } from '../quota/quota-overview.service.js';
import { AdminAccessGuard } from './admin-access.guard.js';
import { AdminRoute } from './admin-route.decorator.js';
import { QuotaQueryDto } from './quota-query.dto.js';

/**
 * GET <admin path>/quota (/admin/quota standalone): the quota ledger, as
 * gsc://quota shows it, for every property counted today (no caller's
 * allowlist narrows it: this is the operator's view). Mounted beside
 * AdminController by SearchConsoleMcpModule, at the same path.
 */
@Controller()
@UseGuards(AdminAccessGuard)
export class QuotaController {
  constructor(private readonly quota: QuotaOverviewService) {}

  @Get('quota')
  @AdminRoute({
    summary:
      'The quota ledger: URL inspections per property per minute and Pacific day, Indexing publishes per project per Pacific day (lower bounds: other clients share the quota)',
    responses: { 400: 'property is not one property' },
  })
  async overview(@Query(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true })) { property }: QuotaQueryDto) {
    const overview = await this.quota.overview();
    return property === undefined ? overview : { ...overview, inspection: overview.inspection.filter((q) => q.property === property) };
  }
}
