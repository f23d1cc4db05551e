// MCP Apps (PRODUCT.md §5d): which tools a view may call and which are the
// model's. The ext-apps spec defaults a tool without visibility to both
// ("model" and "app"), so every write tool says "model" explicitly: a view
// never reaches a write or guarded tool, whatever the host does with the
// default. Hosts enforce visibility; the server also keeps app-only tools out
// of the listing a client that renders no views gets (the model's listing).
import { CLIENT_CAPABILITIES_META_KEY, type ClientCapabilities, type ServerContext } from '@modelcontextprotocol/server';
import type { McpUiToolMeta } from '@modelcontextprotocol/ext-apps';
import type { ToolSpec } from './tool-spec.js';

/** The extension id clients declare under capabilities.extensions when they render views. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of a view resource (ext-apps RESOURCE_MIME_TYPE). */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/** A tool's `_meta.ui`, or undefined when the spec's default (both audiences, no view) says it all. */
export function toolUiMeta(spec: ToolSpec): Record<string, unknown> | undefined {
  let ui: McpUiToolMeta | undefined;
  if (spec.appOnlyFor) {
    ui = { visibility: ['app'] };
  } else if (spec.access !== 'read') {
    ui = { visibility: ['model'] };
  }
  if (spec.view) {
    ui = { ...ui, resourceUri: spec.view };
  }
  return ui && { ui };
}

/**
 * Start-up check: only read tools are ever callable by a view, and only read
 * tools are app-only. Thrown, so a declaration that breaks the rule never serves.
 */
export function assertAppVisibility(spec: ToolSpec): void {
  if (spec.appOnlyFor && spec.access !== 'read') {
    throw new Error(`Tool ${spec.name} is app-only but ${spec.access}: only read tools may be called by a view`);
  }
  if (spec.view && !spec.view.startsWith('ui://')) {
    throw new Error(`Tool ${spec.name} links the view ${spec.view}, which is not a ui:// resource`);
  }
  const visibility = (toolUiMeta(spec)?.ui as McpUiToolMeta | undefined)?.visibility ?? ['model', 'app'];
  if (spec.access !== 'read' && visibility.includes('app')) {
    throw new Error(`Tool ${spec.name} (${spec.access}) would be visible to views`);
  }
}

/** Whether the client of this request renders MCP Apps views: per request on 2026-07-28 (its envelope), per session on 2025-11-25. */
export function rendersViews(sdk: ServerContext, era: 'modern' | 'legacy', declared: () => ClientCapabilities | undefined): boolean {
  const caps =
    era === 'modern'
      ? (((sdk.mcpReq.envelope ?? {}) as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
      : declared();
  const extensions = (caps as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return extensions?.[UI_EXTENSION] !== undefined;
}
