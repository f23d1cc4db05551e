import { ConfigError } from '../config/config-error.js';
import type { ToolDeclaration } from './tool-declaration.js';
import { describeWriteOnly, matchesNoTool, matchingTools } from './tool-selection.js';
import type { Policy, PolicyRule } from '../config/policy-file.js';

/**
 * The tool-name checks that need the declared tools, with the rules of
 * GSC_ALLOW_TOOLS / GSC_DENY_TOOLS (selectTools): an entry that matches no tool
 * stops start-up naming the real tools, and under read-only a "tools" entry that
 * names only write tools says read-only is why ("unknown tool" would be wrong:
 * the tool exists). A deny entry that names only write tools is harmless there,
 * as it is for GSC_DENY_TOOLS.
 */
export function checkPolicyTools(policy: Policy, declared: readonly ToolDeclaration[], options: { readonly readOnly: boolean }): void {
  const essential = new Set(declared.filter((t) => t.essential).map((t) => t.name));
  for (const rule of policy.rules) {
    for (const [key, patterns] of [
      ['tools', rule.tools],
      ['deny_tools', rule.denyTools],
    ] as const) {
      for (const pattern of patterns) {
        const hits = matchingTools(pattern, declared, essential);
        if (hits.length === 0) {
          fail(policy, rule, `"${key}" ${matchesNoTool(pattern, declared)}`);
        }
        if (key === 'tools' && options.readOnly && hits.every((t) => t.access !== 'read')) {
          fail(
            policy,
            rule,
            `"tools" names ${describeWriteOnly(pattern, hits)}, but GSC_READ_ONLY=true never registers write tools; remove the entry or set GSC_READ_ONLY=false`,
          );
        }
      }
    }
  }
}

function fail(policy: Policy, rule: PolicyRule, what: string): never {
  throw new ConfigError(`${policy.source} ${rule.label}: ${what}`);
}
