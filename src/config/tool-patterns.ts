import { ConfigError } from './config-error.js';
import { isWithheld, quote } from './quote.js';

/** An entry of GSC_ALLOW_TOOLS / GSC_DENY_TOOLS, as written. */
export type ToolPattern =
  | { readonly kind: 'exact'; readonly text: string; readonly name: string }
  | { readonly kind: 'prefix'; readonly text: string; readonly prefix: string }
  | { readonly kind: 'essential'; readonly text: string };

const NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Parses a comma-separated pattern list. A pattern is an exact name, a literal
 * prefix with exactly one trailing *, or `essential`. Shapes like *_sites or
 * list_*_x look plausible and would match nothing forever, so they are refused.
 */
export function parseToolPatterns(variable: string, value: string | undefined): ToolPattern[] | undefined {
  if (!value) {
    return undefined;
  }
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) {
    return undefined;
  }
  return entries.map((text): ToolPattern => {
    const lowered = text.toLowerCase();
    // Checked first: a key can pass for a long tool name, and later messages quote entries as written.
    if (isWithheld(text)) {
      throw invalid(variable, text);
    }
    if (lowered === 'essential') {
      return { kind: 'essential', text };
    }
    if (NAME.test(lowered)) {
      return { kind: 'exact', text, name: lowered };
    }
    if (lowered.endsWith('*') && (lowered === '*' || NAME.test(lowered.slice(0, -1)))) {
      return { kind: 'prefix', text, prefix: lowered.slice(0, -1) };
    }
    throw invalid(variable, text);
  });
}

function invalid(variable: string, text: string): ConfigError {
  return new ConfigError(
    `${variable} entry ${quote(text)} is not a valid pattern; write an exact tool name (list_sites), a prefix with one trailing * (list_*), or essential`,
  );
}

export function patternMatches(pattern: ToolPattern, name: string, essential: ReadonlySet<string>): boolean {
  switch (pattern.kind) {
    case 'exact':
      return pattern.name === name;
    case 'prefix':
      return name.startsWith(pattern.prefix);
    case 'essential':
      return essential.has(name);
  }
}
