// The tool result of an all_rows export: a summary within the result budget
// (counts, totals, the first rows, the data truth) and resource_link blocks to
// the stored rows.

import type { ContentBlock } from '@modelcontextprotocol/server';
import { type ToolOutput } from '../tools/tool-output.js';
import { describeRequest, rowLine, tableHead } from './analytics-format.js';
import { PAGE_ROWS, ROW_CAP, type ReportRequest } from './analytics-request.js';
import { roundMetrics } from './analytics-metrics.js';
import { noDataSentence, requestFacts, totalsFacts, totalsLine } from './analytics-report.js';
import type { ExportOutcome } from './analytics-export.service.js';
import { buildDataTruth } from './data-truth.js';
import { columnsOf, exportUri, FORMATS } from './export-format.js';
import type { KnownAnomaly } from '../config/anomalies-file.js';

type ExportBound = NonNullable<ExportOutcome['replaced']>['bound'];

export function buildExportReport(request: ReportRequest, outcome: ExportOutcome, anomalies?: readonly KnownAnomaly[]): ToolOutput {
  const { record } = outcome;
  const rows = record?.rows ?? 0;
  const truth = buildDataTruth({
    request,
    freshness: outcome.freshness,
    rowCapReached: record?.row_cap_reached ?? false,
    listed: {
      totals: outcome.totals,
      complete: !!record?.complete && !record.row_cap_reached,
      count: rows,
      aggregationType: outcome.aggregationType,
    },
    property: outcome.property,
    anomalies,
  });
  const header = describeRequest(request).replace(/\.(\n|$)/, ' — all rows.$1');
  const structured = {
    ...requestFacts(request),
    ...(outcome.aggregationType ? { aggregation_type: outcome.aggregationType } : {}),
    rows: outcome.preview.map((r) => ({ keys: r.keys, ...roundMetrics(r) })),
    // How many rows were exported is export.rows; rows here are only the first few.
    ...totalsFacts(request.dimensions, outcome.totals, outcome.property),
    start_row: 0,
    data_truth: truth.structured,
    untrusted: true as const,
  };
  if (!record) {
    return { structured: { ...structured }, text: [header, noDataSentence(request), 'Nothing was stored.', ...truth.lines].join('\n') };
  }
  const csv = exportUri(record.id, 'csv');
  const ndjson = exportUri(record.id, 'ndjson');
  const columns = columnsOf(request.dimensions);
  const exported = {
    id: record.id,
    csv,
    ndjson,
    rows,
    requests: outcome.requests,
    complete: record.complete,
    columns,
    expires_at: record.expires_at,
    principal: record.principal,
    ...(outcome.stopped ? { stopped: outcome.stopped } : {}),
    ...(outcome.replaced ? { replaced: [...outcome.replaced.ids] } : {}),
  };
  const stored = [
    `Exported ${rows} rows in ${outcome.requests} ${outcome.requests === 1 ? 'request' : 'requests'} of up to ${PAGE_ROWS}` +
      (record.row_cap_reached ? `: Google's ${ROW_CAP}-row cap was reached, so more rows may match than it serves (see Data truth).` : '.'),
    ...(outcome.stopped
      ? [
          `The export is incomplete: ${outcome.stoppedBy === 'bound' ? 'a later page would have passed the per-person bound' : 'Google refused a later page'}, so it holds the first ${rows} rows only. ${outcome.stopped}`,
        ]
      : []),
    ...(outcome.replaced ? [replacedSentence(outcome.replaced.ids, outcome.replaced.bound)] : []),
    `Stored until ${record.expires_at} (24 hours), readable only by the principal that asked (${record.principal}), with resources/read:`,
    `- ${csv} — CSV, header ${columns.join(',')}`,
    `- ${ndjson} — NDJSON, one JSON object per row`,
  ];
  const preview = outcome.preview.length
    ? [
        `The first rows, in Google's order:`,
        ...tableHead([...request.dimensions, 'clicks', 'impressions', 'CTR', 'position']),
        ...outcome.preview.map(rowLine),
      ]
    : [];
  const text = [
    header,
    ...stored,
    ...preview,
    totalsLine(rows, outcome.totals, request.dimensions.length === 0, 'exported'),
    ...truth.lines,
  ].join('\n');
  const links: ContentBlock[] = [
    {
      type: 'resource_link',
      uri: csv,
      name: `${record.id}.csv`,
      title: `Search performance export (CSV, ${rows} rows)`,
      mimeType: FORMATS.csv,
    },
    {
      type: 'resource_link',
      uri: ndjson,
      name: `${record.id}.ndjson`,
      title: `Search performance export (NDJSON, ${rows} rows)`,
      mimeType: FORMATS.ndjson,
    },
  ];
  return { structured: { ...structured, export: exported }, text, content: links };
}

function replacedSentence(ids: readonly string[], bound: ExportBound): string {
  return (
    `To stay within ${bound.maxPerPrincipal} exports and ${bound.maxBytesPerPrincipal} bytes of rows per person (GSC_EXPORT_MAX_PER_PRINCIPAL, GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL), ` +
    `your oldest ${ids.length === 1 ? 'export was' : `${ids.length} exports were`} removed: ${ids.join(', ')}.`
  );
}
