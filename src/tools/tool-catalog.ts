import type { StandardSchemaWithJSON, Tool as ListedTool } from '@modelcontextprotocol/server';
import type { RegisteredTool } from './registered-tool.js';
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
// tools' schemas was ~20 ms of every cold start. The schemas a tool is served
// with depend on the mode (issue 29: connected mode adds google_account and
// its own output schemas; GSC_SITE_URL makes site_url optional), so the build
// boots one context per variant and keeps each variant's schemas that differ
// from the default ones; a tool is served its own variant's, and, as a last
// guard, a prebuilt schema whose arguments are not the tool's is not used.
// Unbundled code (the library, tests, nest start --watch) converts at run
// time, so an edited schema is never served stale; test/tool-schemas.e2e.spec.ts
// checks that the binary serves exactly what run-time conversion gives, in
// every mode.

const TARGET = 'draft-2020-12';

/** Stands for GSC_SITE_URL in the schemas built for tools whose site_url it defaults (replaced when served). */
export const DEFAULT_SITE_PLACEHOLDER = 'sc-domain:gsc-default-site.invalid';

/** A tool's JSON Schemas as tools/list serves them. */
export interface ToolSchemas {
  readonly input: Record<string, unknown>;
  readonly output: Record<string, unknown>;
}

/** How a tool's served schemas differ from the default mode's: GSC_SITE_URL made its default (`site`), connected accounts (`connected`), both, or neither (`plain`). */
export type SchemaVariant = 'plain' | 'site' | 'connected' | 'connected+site';

/** Every tool's schemas as served in the default mode (`plain`), and per other variant those that differ (or that the default mode lacks). */
export interface BuiltToolSchemas {
  readonly plain: Record<string, ToolSchemas>;
  readonly variants: Partial<Record<Exclude<SchemaVariant, 'plain'>, Record<string, ToolSchemas>>>;
}

/** The variant a registered tool is served in. */
export function schemaVariant(tool: Pick<RegisteredTool, 'connected' | 'defaultSite'>): SchemaVariant {
  if (tool.connected) {
    return tool.defaultSite ? 'connected+site' : 'connected';
  }
  return tool.defaultSite ? 'site' : 'plain';
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

/**
 * What the build inlines into the bundle, from one booted context per variant
 * (GSC_SITE_URL set to DEFAULT_SITE_PLACEHOLDER where the variant has a site):
 * every default-mode tool, and per variant the tools whose schemas differ.
 */
export function builtToolSchemas(booted: Readonly<Record<SchemaVariant, readonly RegisteredTool[]>>): BuiltToolSchemas {
  const plain = Object.fromEntries(booted.plain.map((tool) => [tool.spec.name, convert(tool)]));
  const variants: Record<string, Record<string, ToolSchemas>> = {};
  for (const tools of Object.values(booted)) {
    for (const tool of tools) {
      const variant = schemaVariant(tool);
      if (variant === 'plain' || (tool.defaultSite !== undefined && tool.defaultSite !== DEFAULT_SITE_PLACEHOLDER)) {
        continue;
      }
      const schemas = convert(tool);
      if (JSON.stringify(schemas) !== JSON.stringify(plain[tool.spec.name])) {
        (variants[variant] ??= {})[tool.spec.name] = schemas;
      } else {
        variants[variant] ??= {};
      }
    }
  }
  return { plain, variants };
}

function prebuilt(tool: RegisteredTool): ToolSchemas | undefined {
  const schemas = builtSchemas();
  if (!schemas) {
    return undefined;
  }
  const variant = schemaVariant(tool);
  const name = tool.spec.name;
  // A variant the build did not boot is converted; one it booted lists only the tools that differ from the default mode.
  const chosen =
    variant === 'plain' ? schemas.plain[name] : schemas.variants[variant] && (schemas.variants[variant][name] ?? schemas.plain[name]);
  if (!chosen || !sameArguments(tool, chosen)) {
    return undefined;
  }
  if (!tool.defaultSite) {
    return chosen;
  }
  // The placeholder only ever appears inside a description string; the site is spliced in as JSON string content.
  const site = JSON.stringify(tool.defaultSite).slice(1, -1);
  return JSON.parse(JSON.stringify(chosen).replaceAll(DEFAULT_SITE_PLACEHOLDER, () => site)) as ToolSchemas;
}

/** Whether prebuilt schemas name exactly the arguments (and top-level result fields) the tool's zod schemas have: a cheap check that they are this tool's as served. */
function sameArguments(tool: RegisteredTool, schemas: ToolSchemas): boolean {
  const names = (json: Record<string, unknown>) =>
    Object.keys((json.properties as Record<string, unknown> | undefined) ?? {})
      .sort()
      .join(',');
  const shape = (zod: { shape?: Record<string, unknown> }) =>
    Object.keys(zod.shape ?? {})
      .sort()
      .join(',');
  if (names(schemas.input) !== shape(tool.spec.input)) {
    return false;
  }
  return schemas.output.properties === undefined || names(schemas.output) === shape(tool.spec.output);
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
