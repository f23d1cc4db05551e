import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { ToolSpec } from './tool.decorator.js';

/** What the Site Verification API returns for a resource, as far as policy needs it. */
export interface FetchedResource {
  readonly id: string;
  readonly site: { readonly type: string; readonly identifier: string };
  readonly owners: readonly string[];
}

/**
 * The second argument of every tool method, and what guards and interceptors
 * see through `ExecutionContext.getArgs()[1]`.
 */
export interface ToolCall {
  readonly spec: ToolSpec;
  readonly era: 'legacy' | 'modern';
  readonly sdk: ServerContext;
  readonly server: McpServer;
  /** The authenticated HTTP principal, when the transport has one. */
  readonly principal?: string;
  /** The property the call acts on — resolved, normalised and checked by SiteAccessGuard. */
  site?: string;
  /** Page URLs the call names, parsed and checked by SiteAccessGuard. */
  pages?: URL[];
  /** The Site Verification resource named by `id`, fetched by SiteAccessGuard when the allowlist needs it. */
  resource?: FetchedResource;
}
