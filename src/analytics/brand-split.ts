// The branded / non-branded split (PRODUCT.md §5e). Search Console's own
// brand classifier is not in the API, so the split is the caller's terms,
// sent as Google's own query filter: includingRegex for branded, excludingRegex
// for non-branded, over one RE2 expression — (?i) then the terms joined with
// "|". Each term is used as an RE2 pattern as given; a plain word is already
// one, matching anywhere in the query (RE2 filters are partial matches), and
// (?i) makes every term case-insensitive. Google refuses what RE2 cannot
// parse; the server checks every expression first, with re2js (a port of
// RE2's own parser, pure JavaScript, loaded on first use), so a bad pattern
// costs no request and gets a sentence.

import { NOTHING_SENT } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import type { AnalyticsFilter } from './analytics-request.js';

/** Google's limit on a filter expression. */
export const EXPRESSION_MAX = 4096;
const TERMS_MAX = 100;

export type BrandSide = 'branded' | 'non_branded';

/** What the answer says about a split. */
export interface BrandSplit {
  readonly split: BrandSide;
  readonly terms: readonly string[];
  readonly operator: 'includingRegex' | 'excludingRegex';
  readonly expression: string;
}

/** The split asked for, or undefined; refuses one half without the other. Syntax is checked by checkExpressions. */
export function brandSplit(terms: readonly string[] | undefined, side: BrandSide | undefined): BrandSplit | undefined {
  if (terms === undefined && side === undefined) {
    return undefined;
  }
  if (!terms?.length || side === undefined) {
    throw new UserFacingError(
      `brand_terms and brand go together: brand_terms lists your brand's words or RE2 patterns (e.g. ["acme", "acme ?corp"]) and brand says which side to keep, "branded" or "non_branded". ${NOTHING_SENT}`,
    );
  }
  const cleaned = terms.map((t) => t.trim());
  const empty = cleaned.findIndex((t) => t === '');
  if (empty >= 0) {
    throw new UserFacingError(`brand_terms[${empty}] is empty; give a word or an RE2 pattern. ${NOTHING_SENT}`);
  }
  if (cleaned.length > TERMS_MAX) {
    throw new UserFacingError(
      `brand_terms has ${cleaned.length} terms; at most ${TERMS_MAX} (combine them into patterns). ${NOTHING_SENT}`,
    );
  }
  const expression = `(?i)${cleaned.join('|')}`;
  if (expression.length > EXPRESSION_MAX) {
    throw new UserFacingError(
      `brand_terms make an expression of ${expression.length} characters and Google takes at most ${EXPRESSION_MAX}; use fewer or shorter terms. ${NOTHING_SENT}`,
    );
  }
  return { split: side, terms: cleaned, operator: side === 'branded' ? 'includingRegex' : 'excludingRegex', expression };
}

/** The query filter a split becomes. */
export function brandFilter(split: BrandSplit): AnalyticsFilter {
  return { dimension: 'query', operator: split.operator, expression: split.expression };
}

type Compile = (pattern: string) => unknown;
let compileRe2: Promise<Compile> | undefined;

/** re2js is ~260 kB of code: loaded on the first regular expression, never at start-up. */
function re2(): Promise<Compile> {
  compileRe2 ??= import('re2js').then(
    ({ RE2JS }) =>
      (pattern: string) =>
        RE2JS.compile(pattern),
  );
  return compileRe2;
}

/**
 * Checks every regular expression a request would send — each brand term on
 * its own (so the sentence names the term), then each regex filter — as RE2
 * parses it. Throws a UserFacingError before anything is sent.
 */
export async function checkExpressions(filters: readonly AnalyticsFilter[], split?: BrandSplit): Promise<void> {
  const regexFilters = filters.filter((f) => f.operator === 'includingRegex' || f.operator === 'excludingRegex');
  if (!regexFilters.length && !split) {
    return;
  }
  const compile = await re2();
  const problem = (pattern: string): string | undefined => {
    try {
      compile(pattern);
      return undefined;
    } catch (error) {
      const e = error as { getDescription?: () => string; message?: string };
      return (e.getDescription?.() ?? e.message ?? String(error)).replace(/^error parsing regexp: /, '');
    }
  };
  for (const [i, term] of (split?.terms ?? []).entries()) {
    const why = problem(term);
    if (why) {
      throw refusal(`brand_terms[${i}] ${JSON.stringify(term)}`, why);
    }
  }
  for (const filter of regexFilters) {
    if (filter.expression.length > EXPRESSION_MAX) {
      throw new UserFacingError(
        `The ${filter.operator} filter on ${filter.dimension} has ${filter.expression.length} characters and Google takes at most ${EXPRESSION_MAX}. ${NOTHING_SENT}`,
      );
    }
    const why = problem(filter.expression);
    if (why) {
      const what =
        split && filter.expression === split.expression ? 'brand_terms joined' : `the ${filter.operator} filter on ${filter.dimension}`;
      throw refusal(`${what} ${JSON.stringify(filter.expression)}`, why);
    }
  }
}

function refusal(what: string, why: string): UserFacingError {
  return new UserFacingError(
    `${what} is not a regular expression Google accepts: ${why}. Google's filters use RE2 syntax, which has no look-around ((?=…), (?!…), (?<=…)), no back-references (\\1) and repeats of at most 1000. ${NOTHING_SENT} ` +
      'Rewrite it without those, or escape the special characters (\\. \\( \\+) to match them literally.',
  );
}

/** The text line of a split: which side, the caller's terms, and that they are not Google's classifier. */
export function brandLine(split: BrandSplit): string {
  const side = split.split === 'branded' ? 'branded queries only: those matching' : 'non-branded queries only: those not matching';
  return (
    `Branded split: ${side} your brand_terms ${split.terms.map((t) => JSON.stringify(t)).join(', ')}, sent to Google as the query filter ${split.operator} ${JSON.stringify(split.expression)} (case-insensitive, anywhere in the query). ` +
    "It uses your terms, not Search Console's own branded-query classifier, which the API does not expose; anonymised queries are on neither side."
  );
}
