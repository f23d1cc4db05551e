import { describe, expect, it } from '@jest/globals';
import { declaredTools } from '../../test/support/declared-tools.js';
import { ConfigError } from '../config/config-error.js';
import { parsePolicy } from '../config/policy-file.js';
import { checkPolicyTools } from './policy-checks.js';

const declared = declaredTools();
const policyOf = (...rules: unknown[]) => parsePolicy({ rules }, 'GSC_POLICY_FILE');
const alice = { principals: ['alice@corp.example'] };
const seo = { groups: ['seo'] };

function refusal(run: () => void): string {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message.split('\n')).toHaveLength(1);
  return (error as Error).message;
}

describe('checkPolicyTools', () => {
  it('reads the real tool declarations', () => {
    expect(declared.map((t) => t.name)).toEqual(
      expect.arrayContaining(['list_sites', 'submit_sitemap', 'delete_sitemap', 'unverify_site']),
    );
    expect(
      declared
        .filter((t) => t.essential)
        .map((t) => t.name)
        .sort(),
    ).toEqual(['get_site', 'inspect_url', 'list_sitemaps', 'list_sites', 'query_search_analytics']);
  });

  it('accepts the PRODUCT §8b rules', () => {
    const policy = policyOf(
      { ...alice, tools: ['*'] },
      { ...seo, tools: ['essential', 'submit_sitemap'], deny_tools: ['delete_*'] },
      { principals: ['*@corp.example'], tools: ['essential'] },
    );
    expect(() => checkPolicyTools(policy, declared, { readOnly: false })).not.toThrow();
    // Under read-only, * and essential still match read tools; deny of write tools is harmless.
    expect(() =>
      checkPolicyTools(policyOf({ ...alice, tools: ['*'], deny_tools: ['delete_*'] }, { ...seo, tools: ['essential'] }), declared, {
        readOnly: true,
      }),
    ).not.toThrow();
  });

  it.each([
    [
      { ...alice, tools: ['list_sitez'] },
      /^GSC_POLICY_FILE rule 1 \("principals": \["alice@corp.example"\]\): "tools" entry "list_sitez" matches no tool; the tools are: add_site, delete_site, delete_sitemap, /,
    ],
    [
      { ...seo, tools: ['essential'], deny_tools: ['remove_*'] },
      /^GSC_POLICY_FILE rule 1 \("groups": \["seo"\]\): "deny_tools" entry "remove_\*" matches no tool; the tools are: /,
    ],
  ])('refuses an entry that matches no tool: %j', (rule, message) => {
    expect(refusal(() => checkPolicyTools(policyOf(rule), declared, { readOnly: false }))).toMatch(message);
  });

  it('under read-only, refuses a "tools" entry naming only write tools and says read-only is why', () => {
    const exact = refusal(() =>
      checkPolicyTools(policyOf({ ...alice, tools: ['essential'] }, { ...seo, tools: ['essential', 'submit_sitemap'] }), declared, {
        readOnly: true,
      }),
    );
    expect(exact).toBe(
      'GSC_POLICY_FILE rule 2 ("groups": ["seo"]): "tools" names submit_sitemap, a write tool, but GSC_READ_ONLY=true never registers write tools; remove the entry or set GSC_READ_ONLY=false',
    );
    const prefix = refusal(() => checkPolicyTools(policyOf({ ...seo, tools: ['delete_*'] }), declared, { readOnly: true }));
    expect(prefix).toMatch(
      /rule 1 \("groups": \["seo"\]\): "tools" names "delete_\*", which matches only write tools \(delete_site, delete_sitemap\), but GSC_READ_ONLY=true/,
    );
  });
});
