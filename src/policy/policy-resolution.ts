import { patternMatches } from '../config/tool-patterns.js';
import type { ToolDeclaration } from './tool-declaration.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import type { AnnotationMode, Policy, PolicyRule } from '../config/policy-file.js';
import type { Caller } from '../identity/caller.js';
import { canonicalPrincipal } from '../common/principal-name.js';

/** What the server-wide settings allow: the registered tools and GSC_ALLOWED_SITES. */
export interface ServerAccess {
  readonly registered: readonly Pick<ToolDeclaration, 'name' | 'essential'>[];
  readonly allowedSites?: readonly string[];
}

export interface Access {
  /** The number of the rule that decided; undefined without a policy or when no rule matched. */
  readonly rule: number | undefined;
  /** `server`: no policy, the server-wide settings apply; `rule`: a rule matched; `no_match`: a policy, and no rule for this caller. */
  readonly decidedBy: 'server' | 'rule' | 'no_match';
  readonly tools: ReadonlySet<string>;
  /** Properties this caller may touch; undefined means every property the credential can see. */
  readonly sites?: readonly string[];
  /** The rule whose "sites" narrowed those properties, and the policy file it is in: where an operator widens them. */
  readonly sitesRule?: { readonly number: number; readonly source: string };
  /** What this caller does with annotations (the rule's "annotations"; `shared` without a policy). */
  readonly annotations: AnnotationMode;
}

/**
 * PRODUCT §8b: the first rule whose principals (an address, ASCII case-insensitive,
 * or `*@domain`) or groups (exact) match decides; no match means no tools.
 * A rule only narrows: its tools are taken from the registered ones (so
 * read-only and GSC_ALLOW/DENY_TOOLS still hold) and its sites are intersected
 * with GSC_ALLOWED_SITES. Without a policy every caller has the server-wide access.
 */
export function resolvePolicy(policy: Policy | undefined, caller: Caller, server: ServerAccess): Access {
  if (!policy) {
    return {
      rule: undefined,
      decidedBy: 'server',
      tools: new Set(server.registered.map((t) => t.name).sort()),
      sites: server.allowedSites,
      annotations: 'shared',
    };
  }
  const rule = matchingRule(policy, caller);
  if (!rule) {
    return { rule: undefined, decidedBy: 'no_match', tools: new Set(), sites: [], annotations: 'shared' };
  }
  return {
    rule: rule.number,
    decidedBy: 'rule',
    tools: toolsOf(rule, server.registered),
    sites: intersectSites(rule.sites, server.allowedSites),
    ...(rule.sites ? { sitesRule: { number: rule.number, source: policy.source } } : {}),
    annotations: rule.annotations ?? 'shared',
  };
}

function matchingRule(policy: Policy, caller: Caller): PolicyRule | undefined {
  // The one canonical spelling (NFC, ASCII lower-case for an address), as rules are parsed: never
  // Unicode case folding, which let the Kelvin sign's "Kate" take kate's rule while her
  // sessions and exports stayed someone else's.
  const principal = canonicalPrincipal(caller.principal) ?? caller.principal;
  const groups = new Set(caller.groups);
  return policy.rules.find(
    (rule) =>
      rule.principals?.some((p) => (p.kind === 'address' ? p.address === principal : domainOf(principal) === p.domain)) ||
      rule.groups?.some((g) => groups.has(g)),
  );
}

/**
 * The properties both lists allow, with GSC_ALLOWED_SITES containment
 * (site-allowlist.ts): an entry of one list kept when the other list covers it.
 * Server sc-domain:corp.example ∩ rule https://blog.corp.example/ is the blog;
 * server https://blog.corp.example/ ∩ rule sc-domain:corp.example is the blog too.
 */
export function intersectSites(rule: readonly string[] | undefined, server: readonly string[] | undefined): readonly string[] | undefined {
  if (!rule) {
    return server;
  }
  if (!server) {
    return rule;
  }
  const both = [...new Set([...rule.filter((r) => isPropertyAllowed(r, server)), ...server.filter((s) => isPropertyAllowed(s, rule))])];
  // Drop entries another kept entry already covers, so the list reads as what it allows.
  return both.filter((site) => !both.some((other) => other !== site && isPropertyAllowed(site, [other])));
}

function toolsOf(rule: PolicyRule, registered: ServerAccess['registered']): Set<string> {
  const essential = new Set(registered.filter((t) => t.essential).map((t) => t.name));
  const allowed = registered.filter(
    (t) =>
      rule.tools.some((p) => patternMatches(p, t.name, essential)) && !rule.denyTools.some((p) => patternMatches(p, t.name, essential)),
  );
  return new Set(allowed.map((t) => t.name).sort());
}

// An address has exactly one @; anything else (an opaque sub, "a@b@corp.example") has no domain to match.
function domainOf(principal: string): string | undefined {
  const at = principal.indexOf('@');
  return at > 0 && at === principal.lastIndexOf('@') ? principal.slice(at + 1) : undefined;
}
