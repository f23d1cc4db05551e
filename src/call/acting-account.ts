import { UserFacingError } from '../common/user-facing-error.js';
import type { ToolOutput } from '../tools/tool-output.js';

/**
 * In connected mode an answer says whom it is about and who acted (PRODUCT.md
 * §8d "Never the wrong account, never silently"): its first line names the
 * Google account the call acted as and the property it resolved to, and its
 * structuredContent carries both (`google_account`; `site_url` when the tool's
 * own result has none, e.g. a page-URL tool), for clients that give the model
 * only the structured half. The account step names it on the tool's output, before the dispatcher renders it.
 */
export function namingOutput(output: ToolOutput, googleAccount: string, property: string | undefined): ToolOutput {
  const structured = output.structured as unknown;
  const fields =
    structured && typeof structured === 'object' && !Array.isArray(structured)
      ? {
          ...output.structured,
          google_account: googleAccount,
          ...(property && !('site_url' in output.structured) ? { site_url: property } : {}),
        }
      : output.structured;
  const heading = firstLine(googleAccount, property);
  return { ...output, heading, text: `${heading}\n${output.text}`, structured: fields };
}

/** The same for a failure after Google was reached: the sentence the dispatcher answers with starts with that line. */
export function namingAccountIn(error: UserFacingError, googleAccount: string, property: string | undefined): UserFacingError {
  return new UserFacingError(`${firstLine(googleAccount, property)}\n${error.message}`, { cause: error });
}

function firstLine(googleAccount: string, property: string | undefined): string {
  return property ? `As ${googleAccount} on ${property}:` : `As ${googleAccount}:`;
}
