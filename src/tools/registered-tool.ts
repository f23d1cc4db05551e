import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { ToolSpec } from './tool-spec.js';

/** One tool as this server serves it: found by ToolRegistry at bootstrap, run by call/pipeline.ts. */
export interface RegisteredTool {
  /** The declaration as served: site_url optional when GSC_SITE_URL is set, confirm_token and the guarded fields added to destructive tools. */
  readonly spec: ToolSpec;
  /** Input and output schemas as served to clients (see wire-schema.ts). */
  readonly wire: { readonly input: StandardSchemaWithJSON; readonly output: StandardSchemaWithJSON };
  /** The provider instance and the name of its @Tool method: the pipeline runs it after its steps. */
  readonly instance: object;
  readonly method: string;
  /** GSC_SITE_URL, when it was made the default of this tool's site_url (the schemas then differ; see tool-catalog.ts). */
  readonly defaultSite?: string;
  /** Served in connected mode: google_account and the connected output schema added where the tool has them (the schemas then differ; see tool-catalog.ts). */
  readonly connected?: true;
}
