import { fingerprint } from '../common/fingerprint.js';

/**
 * What a destructive tool says about one call before it is allowed to run:
 * the target the approval binds to, the server's own two sentences, and the
 * caller- or Google-supplied strings that are shown only as quoted data.
 */
export interface ApprovalPlan {
  /** Canonical text of the exact target (for target sets: the exact list). Fingerprinted, never shown. */
  readonly target: string;
  /**
   * What the change would do that can drift between asking and executing
   * (who gains and who loses ownership, read from Google now). Bound separately:
   * when it changed, the person is asked again — a fresh question, or a fresh
   * token — instead of the approval running on what they were not shown.
   */
  readonly effect?: string;
  /** First sentence, the server's own words: what will happen. May name only the normalised property. */
  readonly summary: string;
  /** Second sentence, the server's own words: what it costs. */
  readonly cost: string;
  /**
   * Supplied strings, quoted below the two sentences. `effect` marks the ones
   * that say what the change does and who does it (who gains or loses
   * ownership, the sitemap deleted, the Google account acting): with no dialog
   * to show them, the token path quotes those in its text.
   */
  readonly supplied: readonly { readonly label: string; readonly values: readonly string[]; readonly effect?: true }[];
  /** Short verb phrase for result texts: "delete the property https://example.com/". */
  readonly action: string;
}

/**
 * What an approval is bound to: the tool, the exact target and every other
 * argument. A token or sealed answer for one fingerprint never executes another.
 */
export function approvalFingerprint(tool: string, plan: ApprovalPlan, site: string | undefined, args: Record<string, unknown>): string {
  const { confirm_token: _token, site_url: _site, ...rest } = args;
  return fingerprint({ tool, target: plan.target, site, args: rest });
}

/** The fingerprint of a plan's effect (empty for tools whose effect cannot drift). */
export function effectFingerprint(plan: ApprovalPlan): string {
  return fingerprint({ effect: plan.effect ?? '' });
}

/** The label under which a dialog quotes the Google identity that makes the change. */
export const ACTING_LABEL = 'Google account making the change';

/**
 * The Google identity that will act, as a plan quotes and binds it: it is
 * Google's or the configuration's text, so it is quoted, never one of the
 * server's own sentences; and it is part of the effect, so an approval given
 * for one account never executes as another (the person is asked again).
 */
export function actingPart(actor: string | undefined): {
  supplied: ApprovalPlan['supplied'];
  effect: string[];
} {
  return actor
    ? { supplied: [{ label: ACTING_LABEL, values: [actor], effect: true }], effect: [`actor:${actor.toLowerCase()}`] }
    : { supplied: [], effect: [] };
}
