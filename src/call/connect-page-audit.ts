import { Inject, Injectable } from '@nestjs/common';
import { ConnectFlow } from '../accounts/connect-flow.service.js';
import { CONFIG, type Config } from '../config/config.js';
import { AuditTrail } from './approval/audit-trail.service.js';

/** The audit trail's `tool` for a page event whose link was made outside a tool call. */
export const CONNECT_PAGE_TOOL = 'connect_page';

/**
 * Hands the connect pages (accounts/, which may not import mcp/) the audit
 * trail, so that their events — started, completed, denied at Google, sign-in
 * cancelled, wrong browser, wrong person — are entries of `/admin/audit` and
 * GSC_AUDIT_LOG, not only lines on stderr (PRODUCT.md §8d). Built once per
 * graph with the MCP module, in connected mode only.
 */
@Injectable()
export class ConnectPageAudit {
  constructor(@Inject(CONFIG) config: Config, flow: ConnectFlow, trail: AuditTrail) {
    if (config.connected) {
      flow.recordEventsWith(({ tool, ...entry }) => trail.record({ ...entry, tool: tool ?? CONNECT_PAGE_TOOL }));
    }
  }
}
