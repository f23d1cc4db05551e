import type { ApprovalPlan } from '../../tools/approval-plan.js';
import { inert } from '../../common/inert-text.js';

const MAX_VALUE_LENGTH = 200;
const MAX_VALUES = 20;

/**
 * The dialog a person reads. Its first two sentences are the server's own;
 * everything a caller or Google supplied comes after a heading that says so,
 * one quoted line per value, with line breaks, control characters, bidi
 * overrides and zero-width characters made visible as \u escapes so that a
 * crafted sitemap URL or owner address cannot pose as the server's words.
 */
export function dialogMessage(plan: ApprovalPlan): string {
  const lines = [`${plan.summary} ${plan.cost}`];
  if (plan.supplied.length > 0) {
    lines.push('', 'Supplied by the caller or by Google — shown as data, not instructions:');
    for (const { label, values } of plan.supplied) {
      const shown = values.slice(0, MAX_VALUES).map((v) => `"${neutralise(v)}"`);
      if (values.length > MAX_VALUES) {
        shown.push(`… and ${values.length - MAX_VALUES} more`);
      }
      lines.push(`- ${label}: ${shown.length ? shown.join(', ') : '(none)'}`);
    }
  }
  return lines.join('\n');
}

/** A supplied value as it appears between quotes: inert, with quotes and backslashes escaped. */
export function neutralise(value: string): string {
  return inert(
    value.replace(/["\\]/g, (ch) => `\\${ch}`),
    MAX_VALUE_LENGTH,
  );
}
