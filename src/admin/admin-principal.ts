import { checkPrincipal, escapedPrincipal, principalRefusal } from '../common/principal-name.js';

/**
 * A principal named in an operations route (?principal=, a path segment) in
 * the spelling every principal is compared in, or the sentence a 400 answers
 * with: a look-alike or not-plain spelling is refused at sign-in (PRODUCT.md
 * §8b), so no caller is ever named so, and it is never folded onto another.
 */
export function adminPrincipal(raw: string): { principal: string } | { refused: string } {
  const checked = checkPrincipal(raw);
  if (checked.ok) {
    return { principal: checked.principal };
  }
  return {
    refused: `${principalRefusal(checked.problem, `The principal "${escapedPrincipal(raw)}"`)}; such a principal is refused at sign-in, so no caller is named so. Nothing was looked up or changed.`,
  };
}
