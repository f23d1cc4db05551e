import { Injectable } from '@nestjs/common';
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import { McpResource, type ResourceContext, ResourceProvider } from '../tools/resource.decorator.js';
import { QuotaOverviewService } from './quota-overview.service.js';

export const QUOTA_URI = 'gsc://quota';

/** The quota ledger as an MCP resource: a caller sees the properties it may touch, and the server's project. */
@ResourceProvider()
@Injectable()
export class QuotaResource {
  constructor(private readonly quota: QuotaOverviewService) {}

  @McpResource({
    name: 'quota',
    uri: QUOTA_URI,
    title: 'Google quota used today',
    description:
      "This server's own count of URL inspections (per property: this minute of 600, this Pacific day of 2 000) and Indexing API publishes (per Cloud project: this Pacific day of 200), and what remains. A lower bound: other clients spend the same quota.",
    mimeType: 'application/json',
  })
  async read(uri: URL, _variables: Record<string, string>, context: ResourceContext): Promise<ReadResourceResult> {
    const { inspection, indexing_publish, ...rest } = await this.quota.overview(context.sites);
    // Connected mode: which Google accounts spent a property's day is the operator's view (GET /admin/quota);
    // a person reading this is not shown other people's Google e-mails.
    const overview = { ...rest, inspection: inspection.map(withoutAccounts), indexing_publish: indexing_publish.map(withoutAccounts) };
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(overview, null, 2) }] };
  }
}

function withoutAccounts<T extends { google_accounts?: unknown }>(use: T): Omit<T, 'google_accounts'> {
  const { google_accounts: _omitted, ...rest } = use;
  return rest;
}
