import { Injectable } from '@nestjs/common';
import { type ReadResourceResult, type Resource, ResourceNotFoundError } from '@modelcontextprotocol/server';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import { McpResource, McpResourceList, ResourceProvider, type ResourceContext } from '../tools/resource.decorator.js';
import { AnalyticsExports, type ExportRecord } from './analytics-export.service.js';
import { csvHeader, csvLine, exportUri, type ExportFormat, FORMATS, FORMATS_NOTE, ndjsonLine, parseExportFile } from './export-format.js';

/**
 * gsc://exports/<id>.csv and .ndjson: the rows of an all_rows export, for the
 * principal who made it. Anyone else — another principal, or this one after
 * the 24 hours, or once the property left their allowlist — is told the
 * resource does not exist, never that it belongs to someone.
 */
@ResourceProvider()
@Injectable()
export class ExportResources {
  constructor(private readonly exports: AnalyticsExports) {}

  @McpResource({
    name: 'exports',
    title: 'Search performance exports',
    description: `Every row of a query_search_analytics all_rows export, as CSV or NDJSON; kept 24 hours, readable only by the principal who asked, and bounded per person in number and bytes (the oldest removed first). ${FORMATS_NOTE}`,
    template: 'gsc://exports/{file}',
  })
  async read(uri: URL, variables: Record<string, string>, context: ResourceContext): Promise<ReadResourceResult> {
    const file = parseExportFile(variables.file ?? '');
    const record = file && (await this.exports.find(file.id, context.caller.principal));
    if (!file || !record || !visible(record, context)) {
      throw new ResourceNotFoundError(uri.href);
    }
    // Pieces joined once at the end: the rows are never held as objects and as text at the same time.
    const parts: string[] = file.format === 'csv' ? [csvHeader(record.dimensions)] : [];
    for await (const chunk of this.exports.rows(record.id)) {
      for (const row of chunk) {
        parts.push(file.format === 'csv' ? csvLine(row) : ndjsonLine(record.dimensions, row));
      }
    }
    return { contents: [{ uri: uri.href, mimeType: FORMATS[file.format], text: parts.join('') }] };
  }

  @McpResourceList('exports')
  async list(context: ResourceContext): Promise<Resource[]> {
    const records = (await this.exports.recent(context.caller.principal)).filter((r) => visible(r, context));
    return records.flatMap((r) => (['csv', 'ndjson'] as const).map((format) => listed(r, format)));
  }
}

function visible(record: ExportRecord, context: ResourceContext): boolean {
  return !context.sites || isPropertyAllowed(record.site, context.sites);
}

function listed(record: ExportRecord, format: ExportFormat): Resource {
  const dims = record.dimensions.length ? ` by ${record.dimensions.join(', ')}` : '';
  return {
    uri: exportUri(record.id, format),
    name: `${record.id}.${format}`,
    title: `${record.site}${dims}, ${record.start_date} to ${record.end_date} (${format.toUpperCase()})`,
    description: `${record.rows} rows, ${record.type} search, data_state ${record.data_state}${record.row_cap_reached ? ", stopped at Google's 50 000-row cap" : ''}; until ${record.expires_at}.`,
    mimeType: FORMATS[format],
  };
}
