import type { ToolDeclaration } from './tool-declaration.js';

/**
 * The tools this server registered, as the access decision reads them. The MCP
 * layer's ToolRegistry provides it (mcp.module.ts: useExisting); an abstract
 * class rather than the registry itself so that policy/ never imports mcp/,
 * while Nest can still inject it by type.
 */
export abstract class RegisteredTools {
  abstract get tools(): readonly { readonly spec: ToolDeclaration }[];
}
