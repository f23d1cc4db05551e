import type { ToolDeclaration } from '../policy/tool-declaration.js';
import { scopesFor } from '../policy/tool-selection.js';

// Connected accounts (PRODUCT.md §8d "Using a grant"): Google's granular
// consent lets a person untick a permission, so a grant may lack a scope one of
// their tools needs. Which tools a grant covers is decided here, for both
// tools/list (the tool is hidden) and tools/call (the call says what is missing).

const READONLY = '.readonly';

/** The scopes `tool` needs that `granted` does not cover; a full scope covers its `.readonly` form (webmasters covers webmasters.readonly). */
export function missingScopes(tool: ToolDeclaration, granted: readonly string[]): string[] {
  const have = new Set(granted);
  return scopesFor([tool]).filter((scope) => !have.has(scope) && !(scope.endsWith(READONLY) && have.has(scope.slice(0, -READONLY.length))));
}

/** Whether a grant with these scopes lets `tool` run. */
export function grantCovers(tool: ToolDeclaration, granted: readonly string[]): boolean {
  return tool.apis.length === 0 || missingScopes(tool, granted).length === 0;
}

// Google's words for each permission live beside the other Google facts (the connect pages use them too).
export { permissionName } from '../google/permission-names.js';
