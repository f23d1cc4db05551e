/**
 * The part of a tool declaration the policy decisions read (selection, scopes,
 * per-person access). It lives here, below mcp/, so that policy/ never imports
 * the MCP layer; mcp/tool.decorator.ts extends it with the schemas and the rest.
 */

/** What a call can do to the world. Annotations, read-only filtering and the approval guard all follow from it. */
export type ToolAccess = 'read' | 'write' | 'destructive';

/** The Google API families a tool talks to; the OAuth scopes requested are derived from them. */
export type GoogleApi = 'searchconsole' | 'indexing' | 'siteverification';

export interface ToolDeclaration {
  readonly name: string;
  readonly access: ToolAccess;
  readonly apis: readonly GoogleApi[];
  /** Part of the `essential` preset of GSC_ALLOW_TOOLS. */
  readonly essential?: boolean;
  /**
   * MCP Apps: called only by the view of the named tool (`_meta.ui.visibility: ["app"]`), never listed for the
   * model. Read tools only. Tool filters and policy rules name the model's tools; this one is registered and
   * allowed exactly when the named tool is (withAppOnly).
   */
  readonly appOnlyFor?: string;
}

/** The names plus the app-only tools of the views of those named: what a caller allowed those tools may call. */
export function withAppOnly(names: ReadonlySet<string>, declared: readonly ToolDeclaration[]): Set<string> {
  const all = new Set(names);
  for (const tool of declared) {
    if (tool.appOnlyFor && names.has(tool.appOnlyFor)) {
      all.add(tool.name);
    }
  }
  return all;
}
