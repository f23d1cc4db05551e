import type * as z from 'zod';
import type { ToolDeclaration } from '../policy/tool-declaration.js';
import type { ApprovalPlan } from './approval-plan.js';
import type { TargetKindsOf, TargetOf } from './tool-target.js';

// A tool's declaration (the @Tool argument), apart from the decorator so RegisteredTool and ToolCall
// can name it without importing the decorator (no file circle in tools/).

/**
 * What a destructive tool shows the person before it runs, computed from the same arguments and target it runs with,
 * and the Google identity that will act (the connected account, or the service account), when the server knows it.
 */
export type ApprovalDescriber<I extends z.ZodObject = z.ZodObject> = (
  args: z.infer<I>,
  target: TargetOf<I>,
  actor?: string,
) => ApprovalPlan;

export interface ToolSpec<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> extends ToolDeclaration {
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  /**
   * What SiteAccessGuard checks before the call and hands the method as
   * `call.target`: `site` (the site_url argument, a property), `page` (url),
   * `pages` (urls), `resource` (id, a Site Verification resource), `annotation` (id, an annotation). Only kinds
   * whose argument the input has type-check; a tool that has one of those
   * arguments and leaves its kind out fails at start-up.
   */
  readonly target?: readonly TargetKindsOf<I>[];
  /** Writes only: whether repeating the call has no further effect (default false: say so where it holds). */
  readonly idempotent?: boolean;
  /** `site_url` names a property that does not exist yet, so GSC_SITE_URL never fills it in (add_site). */
  readonly newProperty?: boolean;
  /** Destructive tools (required for them): what the call will do, for the approval dialog and the binding. */
  readonly approval?: ApprovalDescriber<I>;
  /** Registered only in connected mode (PRODUCT.md §8d: list_google_accounts, disconnect_google_account); the default listing never has it. */
  readonly connectedOnly?: boolean;
  /** Connected mode: the output schema served instead of `output` (list_sites names each entry's Google account). */
  readonly connectedOutput?: z.ZodObject;
  /** MCP Apps: the ui:// view a client that renders views shows this tool's result in (`_meta.ui.resourceUri`). */
  readonly view?: string;
  /**
   * Works on this server's own state store only (annotations): nothing reaches Google, so openWorldHint is
   * false, and in connected mode it takes no google_account (it acts as no Google account).
   */
  readonly closedWorld?: true;
}
