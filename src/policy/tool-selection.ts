import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { patternMatches, type ToolPattern } from '../config/tool-patterns.js';
import type { ToolDeclaration } from './tool-declaration.js';

export interface ToolSelection<T extends ToolDeclaration = ToolDeclaration> {
  readonly registered: readonly T[];
  readonly excluded: readonly { readonly name: string; readonly reason: string }[];
  readonly scopes: readonly string[];
}

type Filters = Pick<Config, 'readOnly' | 'allowTools' | 'denyTools'>;

const SCOPE = 'https://www.googleapis.com/auth/';

/**
 * Applies GSC_READ_ONLY, GSC_ALLOW_TOOLS and GSC_DENY_TOOLS to the declared
 * tools. Allow decides what is in, deny is subtracted, read-only removes every
 * write. Entries that match nothing, and write tools named under read-only,
 * are configuration errors: an ignored entry would leave an absence nobody traces.
 */
export function selectTools<T extends ToolDeclaration>(declared: readonly T[], filters: Filters): ToolSelection<T> {
  const essential = new Set(declared.filter((t) => t.essential).map((t) => t.name));
  const isWrite = (t: T) => t.access !== 'read';
  const matching = (variable: string, pattern: ToolPattern) => {
    const hits = matchingTools(pattern, declared, essential);
    if (hits.length === 0) {
      throw new ConfigError(`${variable} ${matchesNoTool(pattern, declared)}`);
    }
    return hits;
  };

  const excluded: { name: string; reason: string }[] = [];
  let chosen: Set<T>;
  if (filters.allowTools) {
    chosen = new Set();
    for (const pattern of filters.allowTools) {
      const hits = matching('GSC_ALLOW_TOOLS', pattern);
      if (filters.readOnly && hits.every(isWrite)) {
        throw new ConfigError(
          `GSC_ALLOW_TOOLS names ${describeWriteOnly(pattern, hits)}, but GSC_READ_ONLY=true never registers write tools; remove the entry or set GSC_READ_ONLY=false`,
        );
      }
      hits.forEach((t) => chosen.add(t));
    }
    for (const t of declared) {
      if (!chosen.has(t)) {
        excluded.push({ name: t.name, reason: 'not matched by GSC_ALLOW_TOOLS' });
      }
    }
  } else {
    chosen = new Set(declared);
  }
  for (const pattern of filters.denyTools) {
    for (const t of matching('GSC_DENY_TOOLS', pattern)) {
      if (chosen.delete(t)) {
        excluded.push({ name: t.name, reason: `denied by GSC_DENY_TOOLS entry "${pattern.text}"` });
      }
    }
  }
  if (filters.readOnly) {
    for (const t of [...chosen].filter(isWrite)) {
      chosen.delete(t);
      excluded.push({ name: t.name, reason: 'write tool, and GSC_READ_ONLY=true' });
    }
  }
  const registered = declared.filter((t) => chosen.has(t)).sort(byName);
  if (registered.length === 0) {
    throw new ConfigError('GSC_ALLOW_TOOLS and GSC_DENY_TOOLS together leave no tool registered; loosen one of them');
  }
  return { registered, excluded: excluded.sort(byName), scopes: scopesFor(registered) };
}

/** The declared tools an allow or deny entry matches (GSC_*_TOOLS, or a policy rule's). */
export function matchingTools<T extends ToolDeclaration>(
  pattern: ToolPattern,
  declared: readonly T[],
  essential: ReadonlySet<string>,
): T[] {
  return declared.filter((t) => patternMatches(pattern, t.name, essential));
}

/** The rest of the sentence for an entry that matches nothing: the real names, so a typo is plain to see. */
export function matchesNoTool(pattern: ToolPattern, declared: readonly ToolDeclaration[]): string {
  return `entry "${pattern.text}" matches no tool; the tools are: ${declared
    .map((t) => t.name)
    .sort()
    .join(', ')}`;
}

/** An allow entry whose every match is a write tool, as the read-only refusal names it. */
export function describeWriteOnly(pattern: ToolPattern, hits: readonly ToolDeclaration[]): string {
  return pattern.kind === 'exact'
    ? `${pattern.text}, a write tool`
    : `"${pattern.text}", which matches only write tools (${hits.map((t) => t.name).join(', ')})`;
}

/**
 * Tool names are ASCII snake_case, whose code-unit order is the alphabetical
 * one; localeCompare would load ICU's collator at every start (~20 ms, see
 * test/start-up-intl.e2e.spec.ts).
 */
function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The OAuth scopes the registered tools need — nothing more. A delegated
 * service account is only granted what a Workspace admin allowed, and asking
 * for one more scope fails the whole token request.
 */
export function scopesFor(tools: readonly ToolDeclaration[]): string[] {
  const scopes: string[] = [];
  const gsc = tools.filter((t) => t.apis.includes('searchconsole'));
  if (gsc.some((t) => t.access !== 'read')) {
    scopes.push(`${SCOPE}webmasters`);
  } else if (gsc.length > 0) {
    scopes.push(`${SCOPE}webmasters.readonly`);
  }
  if (tools.some((t) => t.apis.includes('indexing'))) {
    scopes.push(`${SCOPE}indexing`);
  }
  if (tools.some((t) => t.apis.includes('siteverification'))) {
    scopes.push(`${SCOPE}siteverification`);
  }
  return scopes;
}
