import type { StandardSchemaWithJSON, Tool as ListedTool } from '@modelcontextprotocol/server';
import type { RegisteredTool } from './tool-registry.service.js';
import { toolUiMeta } from './app-visibility.js';
import { annotationsFor } from './tool.decorator.js';

// What tools/list says about each tool, computed once: the same JSON the SDK's
// McpServer.registerTool would build (draft 2020-12 from the zod schemas),
// shared by every connection and request instead of rebuilt per server — a
// 2025 session used to cost ~45 KiB of registered-tool objects, and every
// 2026 request paid for building them.
//
// The bundled binary does not even convert: scripts/bundle.mjs converts every
// tool's schemas when it builds (builtToolSchemas below, from the same dist it
// bundles) and inlines the result as GSC_BUILT_TOOL_SCHEMAS. Converting 21
// tools' schemas was ~20 ms of every cold start. Unbundled code (the library,
// tests, nest start --watch) converts at run time, so an edited schema is never
// served stale; test/tool-schemas.e2e.spec.ts checks that the binary serves
// exactly what run-time conversion gives.

const TARGET = 'draft-2020-12';

/** Stands for GSC_SITE_URL in the schemas built for tools whose site_url it defaults (replaced when served). */
export const DEFAULT_SITE_PLACEHOLDER = 'sc-domain:gsc-default-site.invalid';

/** A tool's JSON Schemas as tools/list serves them. */
export interface ToolSchemas {
  readonly input: Record<string, unknown>;
  readonly output: Record<string, unknown>;
}

/** Every tool's schemas as served without GSC_SITE_URL (`plain`) and with it (`defaultSite`, for the tools it changes). */
export interface BuiltToolSchemas {
  readonly plain: Record<string, ToolSchemas>;
  readonly defaultSite: Record<string, ToolSchemas>;
}

// Replaced by scripts/bundle.mjs with the JSON text of BuiltToolSchemas; undeclared anywhere else.
declare const GSC_BUILT_TOOL_SCHEMAS: string;
let built: BuiltToolSchemas | null | undefined;

function builtSchemas(): BuiltToolSchemas | null {
  return (built ??= typeof GSC_BUILT_TOOL_SCHEMAS === 'string' ? (JSON.parse(GSC_BUILT_TOOL_SCHEMAS) as BuiltToolSchemas) : null);
}

export interface CatalogEntry {
  readonly tool: RegisteredTool;
  readonly listed: ListedTool;
  /** The advertised output schema, for the SDK's per-revision projection of structuredContent. */
  readonly outputJson: Record<string, unknown>;
}

export function catalogEntry(tool: RegisteredTool, schemas: ToolSchemas = prebuilt(tool) ?? convert(tool)): CatalogEntry {
  const { spec } = tool;
  const meta = toolUiMeta(spec);
  return {
    tool,
    outputJson: schemas.output,
    listed: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: schemas.input as ListedTool['inputSchema'],
      annotations: annotationsFor(spec),
      outputSchema: schemas.output,
      ...(meta ? { _meta: meta } : {}),
    },
  };
}

/** What the build inlines into the bundle: the tools of a context booted without GSC_SITE_URL, and of one booted with the placeholder. */
export function builtToolSchemas(plain: readonly RegisteredTool[], withDefaultSite: readonly RegisteredTool[]): BuiltToolSchemas {
  const of = (tools: readonly RegisteredTool[]) => Object.fromEntries(tools.map((tool) => [tool.spec.name, convert(tool)]));
  return { plain: of(plain), defaultSite: of(withDefaultSite.filter((tool) => tool.defaultSite === DEFAULT_SITE_PLACEHOLDER)) };
}

function prebuilt(tool: RegisteredTool): ToolSchemas | undefined {
  const schemas = builtSchemas();
  if (!schemas) {
    return undefined;
  }
  if (!tool.defaultSite) {
    return schemas.plain[tool.spec.name];
  }
  const withPlaceholder = schemas.defaultSite[tool.spec.name];
  // The placeholder only ever appears inside a description string; the site is spliced in as JSON string content.
  const site = JSON.stringify(tool.defaultSite).slice(1, -1);
  return withPlaceholder && (JSON.parse(JSON.stringify(withPlaceholder).replaceAll(DEFAULT_SITE_PLACEHOLDER, () => site)) as ToolSchemas);
}

function convert(tool: RegisteredTool): ToolSchemas {
  return { input: jsonOf(tool.wire.input, 'input'), output: objectRoot(jsonOf(tool.wire.output, 'output')) };
}

function jsonOf(schema: StandardSchemaWithJSON, io: 'input' | 'output'): Record<string, unknown> {
  return schema['~standard'].jsonSchema[io]({ target: TARGET });
}

function objectRoot(json: Record<string, unknown>): Record<string, unknown> {
  return json.type !== undefined ? json : { type: 'object', ...json };
}

/** The SDK's own wording for a failed validation (validateStandardSchema), so that answers read as they always did. */
export async function validate(
  schema: StandardSchemaWithJSON,
  value: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const result = await schema['~standard'].validate(value);
  if (result.issues?.length) {
    const error = result.issues
      .map((issue) =>
        issue.path?.length
          ? `${issue.path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')}: ${issue.message}`
          : issue.message,
      )
      .join(', ');
    return { ok: false, error };
  }
  return { ok: true, value: (result as { value: unknown }).value };
}
