import type { StandardSchemaWithJSON, Tool as ListedTool } from '@modelcontextprotocol/server';
import type { RegisteredTool } from './tool-registry.service.js';
import { annotationsFor } from './tool.decorator.js';

// What tools/list says about each tool, computed once: the same JSON the SDK's
// McpServer.registerTool would build (draft 2020-12 from the zod schemas),
// shared by every connection and request instead of rebuilt per server — a
// 2025 session used to cost ~45 KiB of registered-tool objects, and every
// 2026 request paid for building them.

const TARGET = 'draft-2020-12';

export interface CatalogEntry {
  readonly tool: RegisteredTool;
  readonly listed: ListedTool;
  /** The advertised output schema, for the SDK's per-revision projection of structuredContent. */
  readonly outputJson: Record<string, unknown>;
}

export function catalogEntry(tool: RegisteredTool): CatalogEntry {
  const { spec, wire } = tool;
  const outputJson = objectRoot(jsonOf(wire.output, 'output'));
  return {
    tool,
    outputJson,
    listed: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: jsonOf(wire.input, 'input') as ListedTool['inputSchema'],
      annotations: annotationsFor(spec),
      outputSchema: outputJson,
    },
  };
}

function jsonOf(schema: StandardSchemaWithJSON, io: 'input' | 'output'): Record<string, unknown> {
  return schema['~standard'].jsonSchema[io]({ target: TARGET });
}

function objectRoot(json: Record<string, unknown>): Record<string, unknown> {
  return json.type !== undefined ? json : { type: 'object', ...json };
}

/** The SDK's own wording for a failed validation (validateStandardSchema), so that answers read as they always did. */
export async function validate(schema: StandardSchemaWithJSON, value: unknown): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const result = await schema['~standard'].validate(value);
  if (result.issues?.length) {
    const error = result.issues
      .map((issue) => (issue.path?.length ? `${issue.path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')}: ${issue.message}` : issue.message))
      .join(', ');
    return { ok: false, error };
  }
  return { ok: true, value: (result as { value: unknown }).value };
}
