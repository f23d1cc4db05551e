import { BadRequestException, Controller, Get, Query, UseGuards } from '@nestjs/common';
import { QuotaOverviewService } from '../quota/quota-overview.service.js';
import { AdminAccessGuard } from './admin-access.guard.js';

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
  async overview(@Query('property') property?: unknown) {
    if (property !== undefined && (typeof property !== 'string' || !property.trim())) {
      throw new BadRequestException('property must be one property, spelled as Search Console does (sc-domain:example.com or https://www.example.com/)');
    }
    const overview = await this.quota.overview();
    return property === undefined ? overview : { ...overview, inspection: overview.inspection.filter((q) => q.property === property) };
  }
}
