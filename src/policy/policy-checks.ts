import { ConfigError } from '../config/config-error.js';
import type { ToolSpec } from '../mcp/tool.decorator.js';
import { describeWriteOnly, matchesNoTool, matchingTools } from '../mcp/tool-selection.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import type { Policy, PolicyRule } from './policy.js';

/**
 * The tool-name checks that need the declared tools, with the rules of
 * GSC_ALLOW_TOOLS / GSC_DENY_TOOLS (selectTools): an entry that matches no tool
 * stops start-up naming the real tools, and under read-only a "tools" entry that
 * names only write tools says read-only is why ("unknown tool" would be wrong:
 * the tool exists). A deny entry that names only write tools is harmless there,
 * as it is for GSC_DENY_TOOLS.
 */
export function checkPolicyTools(policy: Policy, declared: readonly ToolSpec[], options: { readonly readOnly: boolean }): void {
  const essential = new Set(declared.filter((t) => t.essential).map((t) => t.name));
  for (const rule of policy.rules) {
    for (const [key, patterns] of [['tools', rule.tools], ['deny_tools', rule.denyTools]] as const) {
      for (const pattern of patterns) {
        const hits = matchingTools(pattern, declared, essential);
        if (hits.length === 0) fail(policy, rule, `"${key}" ${matchesNoTool(pattern, declared)}`);
        if (key === 'tools' && options.readOnly && hits.every((t) => t.access !== 'read')) {
          fail(policy, rule, `"tools" names ${describeWriteOnly(pattern, hits)}, but GSC_READ_ONLY=true never registers write tools; remove the entry or set GSC_READ_ONLY=false`);
        }
      }
    }
  }
}

/**
 * A rule only narrows GSC_ALLOWED_SITES, so a "sites" entry the server-wide list
 * does not cover is a start-up error, as GSC_SITE_URL outside the list is: left
 * in, it would read as access the rule grants while every call to it is refused.
 * An entry inside a server-wide one is fine (server sc-domain:corp.example, rule
 * https://blog.corp.example/).
 */
export function checkPolicySites(policy: Policy, allowedSites: readonly string[] | undefined): void {
  if (!allowedSites) return;
  for (const rule of policy.rules) {
    for (const site of rule.sites ?? []) {
      if (!isPropertyAllowed(site, allowedSites)) {
        fail(policy, rule, `"sites" entry ${site} is outside GSC_ALLOWED_SITES (${allowedSites.join(', ')}); a rule only narrows the server-wide list — remove the entry or widen GSC_ALLOWED_SITES`);
      }
    }
  }
}

function fail(policy: Policy, rule: PolicyRule, what: string): never {
  throw new ConfigError(`${policy.source} ${rule.label}: ${what}`);
}
