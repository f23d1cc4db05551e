import { describe, expect, it } from '@jest/globals';
import { ConfigError } from './config-error.js';
import { checkPolicySites, parsePolicy, parsePrincipalPattern } from './policy-file.js';

// PRODUCT §8b, verbatim.
const PRODUCT_EXAMPLE = `{ "rules": [
    { "principals": ["alice@corp.example"], "tools": ["*"], "sites": ["sc-domain:corp.example"] },
    { "groups": ["seo"], "tools": ["essential", "submit_sitemap"], "deny_tools": ["delete_*"], "sites": ["https://blog.corp.example/"] },
    { "principals": ["*@corp.example"], "tools": ["essential"], "sites": ["sc-domain:corp.example"] }
] }`;

const ok = { principals: ['alice@corp.example'], tools: ['essential'] };
const withRules = (...rules: unknown[]) => JSON.stringify({ rules });

function refusal(json: unknown): string {
  let error: unknown;
  try {
    parsePolicy(json, 'GSC_POLICY_FILE');
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as ConfigError).message;
  expect(message.split('\n')).toHaveLength(1);
  return message;
}

describe('parsePolicy', () => {
  it('reads the PRODUCT §8b example', () => {
    const policy = parsePolicy(PRODUCT_EXAMPLE, 'GSC_POLICY_FILE');
    expect(policy.source).toBe('GSC_POLICY_FILE');
    expect(policy.rules.map((r) => r.label)).toEqual([
      'rule 1 ("principals": ["alice@corp.example"])',
      'rule 2 ("groups": ["seo"])',
      'rule 3 ("principals": ["*@corp.example"])',
    ]);
    const [alice, seo, corp] = policy.rules;
    expect(alice.principals).toEqual([{ kind: 'address', text: 'alice@corp.example', address: 'alice@corp.example' }]);
    expect(alice.tools).toEqual([{ kind: 'prefix', text: '*', prefix: '' }]);
    expect(alice.denyTools).toEqual([]);
    expect(seo.groups).toEqual(['seo']);
    expect(seo.tools.map((t) => t.kind)).toEqual(['essential', 'exact']);
    expect(seo.denyTools).toEqual([{ kind: 'prefix', text: 'delete_*', prefix: 'delete_' }]);
    expect(seo.sites).toEqual(['https://blog.corp.example/']);
    expect(corp.principals).toEqual([{ kind: 'domain', text: '*@corp.example', domain: 'corp.example' }]);
    expect(Object.isFrozen(policy.rules)).toBe(true);
  });

  it('takes an object as well as JSON text (the module option)', () => {
    const policy = parsePolicy({ rules: [{ groups: ['seo'], tools: ['list_*'], sites: ['https://Blog.Corp.example'] }] }, 'policy');
    expect(policy.rules[0].sites).toEqual(['https://blog.corp.example/']);
    expect(policy.rules[0].sites).toBeDefined();
    expect(policy.rules[0]).not.toHaveProperty('principals');
  });

  it("keeps a rule's annotations mode, and leaves it out when the rule does not say (shared)", () => {
    const policy = parsePolicy(
      withRules({ ...ok, annotations: 'own' }, { groups: ['leads'], tools: ['*'], annotations: 'admin' }, ok),
      'policy',
    );
    expect(policy.rules.map((r) => r.annotations)).toEqual(['own', 'admin', undefined]);
  });

  it('normalises sites like GSC_ALLOWED_SITES and drops duplicates', () => {
    const policy = parsePolicy(
      withRules({ ...ok, sites: ['SC-DOMAIN:Corp.Example', 'sc-domain:corp.example', 'https://corp.example/shop'] }),
      'GSC_POLICY_FILE',
    );
    expect(policy.rules[0].sites).toEqual(['sc-domain:corp.example', 'https://corp.example/shop/']);
  });

  // Each malformed policy stops start-up with one line that names the rule (or the file, for file-level mistakes).
  const malformed: [string, unknown, RegExp][] = [
    ['invalid JSON', '{ "rules": [ { "principals": ["a@corp.example"], } ] }', /^GSC_POLICY_FILE is not valid JSON \(/],
    ['not an object', '[]', /^GSC_POLICY_FILE must be a JSON object with a "rules" list/],
    ['unknown top-level key', '{"rules": [], "rule": []}', /^GSC_POLICY_FILE has the unknown key "rule"; the only key is "rules"$/],
    ['rules not a list', '{"rules": {"principals": []}}', /^GSC_POLICY_FILE "rules" must be a list of rules/],
    ['no rules', '{"rules": []}', /^GSC_POLICY_FILE "rules" is empty, which would give every caller no tools/],
    ['a rule that is a string', withRules(ok, 'alice'), /^GSC_POLICY_FILE rule 2: a rule must be an object/],
    [
      'unknown rule key',
      withRules(ok, { groups: ['seo'], tools: ['*'], deny: ['delete_*'] }),
      /^GSC_POLICY_FILE rule 2 \("groups": \["seo"\]\): unknown key "deny"; the keys are principals, groups, tools, deny_tools, sites, annotations$/,
    ],
    [
      'annotations that is not a mode',
      withRules(ok, { groups: ['seo'], tools: ['*'], annotations: 'private' }),
      /^GSC_POLICY_FILE rule 2 \("groups": \["seo"\]\): "annotations" is the string "private"; write "shared" \(the default: everyone's notes\), "own" \(each person sees only their own\) or "admin" \(shared, and may delete anyone's\)$/,
    ],
    [
      'annotations as a list',
      withRules({ groups: ['seo'], tools: ['*'], annotations: ['own'] }),
      /^GSC_POLICY_FILE rule 1 \("groups": \["seo"\]\): "annotations" is a list; write "shared"/,
    ],
    [
      'principals not a list',
      withRules({ principals: 'alice@corp.example', tools: ['*'] }),
      /^GSC_POLICY_FILE rule 1: "principals" must be a list of strings, such as \["alice@corp.example", "\*@corp.example"\]$/,
    ],
    [
      'empty principals',
      withRules(ok, ok, { principals: [], groups: ['seo'], tools: ['*'] }),
      /^GSC_POLICY_FILE rule 3 \("groups": \["seo"\]\): "principals" is empty; remove the key or list at least one entry$/,
    ],
    [
      'a principal that is a number',
      withRules({ principals: ['a@corp.example', 7], tools: ['*'] }),
      /^GSC_POLICY_FILE rule 1 \("principals": \["a@corp.example", …\]\): "principals" entry 2 is the number 7, not a string$/,
    ],
    [
      'a bare domain as principal',
      withRules({ principals: ['corp.example'], tools: ['*'] }),
      /^GSC_POLICY_FILE rule 1 \("principals": \["corp.example"\]\): "principals" entry "corp.example" is neither an e-mail address/,
    ],
    [
      'a * in the middle of an address',
      withRules({ principals: ['a*@corp.example'], tools: ['*'] }),
      /rule 1 \("principals": \["a\*@corp.example"\]\): "principals" entry "a\*@corp.example" is neither/,
    ],
    [
      'a subdomain wildcard',
      withRules({ principals: ['*@*.corp.example'], tools: ['*'] }),
      /rule 1 .*: "principals" entry "\*@\*.corp.example" is neither/,
    ],
    ['a lone *', withRules({ principals: ['*'], tools: ['*'] }), /rule 1 \("principals": \["\*"\]\): "principals" entry "\*" is neither/],
    ['two @', withRules({ principals: ['a@b@corp.example'], tools: ['*'] }), /rule 1 .*"principals" entry "a@b@corp.example" is neither/],
    [
      'an empty principal',
      withRules({ principals: [' '], tools: ['*'] }),
      /rule 1 \("principals": \[" "\]\): "principals" entry 1 is empty$/,
    ],
    [
      'groups with a wildcard',
      withRules(ok, { groups: ['seo-*'], tools: ['*'] }),
      /^GSC_POLICY_FILE rule 2 \("groups": \["seo-\*"\]\): "groups" entry "seo-\*" contains \*, but groups match exactly/,
    ],
    [
      'groups not a list',
      withRules({ groups: 'seo', tools: ['*'] }),
      /^GSC_POLICY_FILE rule 1: "groups" must be a list of strings, such as \["seo"\]$/,
    ],
    [
      'neither principals nor groups',
      withRules(ok, { tools: ['*'], sites: ['sc-domain:corp.example'] }),
      /^GSC_POLICY_FILE rule 2: the rule names no one; add "principals" \(addresses or \*@domain\) or "groups"$/,
    ],
    [
      'no tools',
      withRules({ groups: ['seo'], sites: ['sc-domain:corp.example'] }),
      /^GSC_POLICY_FILE rule 1 \("groups": \["seo"\]\): "tools" is missing/,
    ],
    ['empty tools', withRules({ groups: ['seo'], tools: [] }), /^GSC_POLICY_FILE rule 1 \("groups": \["seo"\]\): "tools" is empty/],
    [
      'tools as a comma string',
      withRules({ groups: ['seo'], tools: 'list_sites,get_site' }),
      /rule 1 \("groups": \["seo"\]\): "tools" must be a list of strings/,
    ],
    [
      'a tool pattern with a leading *',
      withRules({ groups: ['seo'], tools: ['*_sites'] }),
      /^GSC_POLICY_FILE rule 1 \("groups": \["seo"\]\): "tools" entry "\*_sites" is not a valid pattern; write an exact tool name \(list_sites\), a prefix with one trailing \* \(list_\*\), or essential$/,
    ],
    [
      'a tool pattern with an inner *',
      withRules(ok, { groups: ['seo'], tools: ['essential'], deny_tools: ['list_*_x'] }),
      /^GSC_POLICY_FILE rule 2 \("groups": \["seo"\]\): "deny_tools" entry "list_\*_x" is not a valid pattern/,
    ],
    [
      'two tools in one entry',
      withRules({ groups: ['seo'], tools: ['list_sites, get_site'] }),
      /rule 1 \("groups": \["seo"\]\): "tools" entry "list_sites, get_site" contains a comma; write one pattern per entry$/,
    ],
    [
      'a tool entry with a line break',
      withRules({ groups: ['seo'], tools: ['list_sites\nget_site'] }),
      /rule 1 \("groups": \["seo"\]\): "tools" entry "list_sites\\nget_site" contains control or invisible characters$/,
    ],
    [
      'a bare hostname as site',
      withRules({ groups: ['seo'], tools: ['*'], sites: ['corp.example'] }),
      /^GSC_POLICY_FILE rule 1 \("groups": \["seo"\]\): "sites" entry: "corp.example" is a bare hostname; .*"sc-domain:corp.example".*"https:\/\/corp.example\/"/,
    ],
    [
      'a site with a query',
      withRules({ groups: ['seo'], tools: ['*'], sites: ['https://corp.example/?a=1'] }),
      /rule 1 \("groups": \["seo"\]\): "sites" entry: .* has a query or fragment/,
    ],
    [
      'a site with userinfo',
      withRules({ groups: ['seo'], tools: ['*'], sites: ['https://user@corp.example/'] }),
      /rule 1 .*"sites" entry: .* carries a user name or password/,
    ],
    [
      'a site that is an object',
      withRules({ groups: ['seo'], tools: ['*'], sites: [{ url: 'x' }] }),
      /rule 1 \("groups": \["seo"\]\): "sites" entry 1 is an object, not a string$/,
    ],
    [
      'empty sites',
      withRules({ groups: ['seo'], tools: ['*'], sites: [] }),
      /rule 1 \("groups": \["seo"\]\): "sites" is empty; remove the key/,
    ],
    [
      'a principal with the Kelvin sign (a look-alike of kate@corp.example)',
      withRules({ groups: ['seo'], tools: ['*'] }, { principals: ['alice@corp.example', '\u212Aate@corp.example'], tools: ['*'] }),
      /^GSC_POLICY_FILE rule 2 \("principals": \["alice@corp.example", …\]\): "principals" entry "\\u\{212A\}ate@corp.example" contains characters that Unicode normalisation \(NFC or NFKC\) would change, .*as the identity provider sends it$/,
    ],
    [
      'a principal with a full-width letter, named escaped in the rule label too',
      withRules({ principals: ['\uFF2Bate@corp.example'], tools: ['*'] }),
      /^GSC_POLICY_FILE rule 1 \("principals": \["\\u\{FF2B\}ate@corp.example"\]\): "principals" entry "\\u\{FF2B\}ate@corp.example" contains characters that Unicode normalisation/,
    ],
  ];

  it('has a dozen malformed cases at least', () => {
    expect(malformed.length).toBeGreaterThanOrEqual(12);
  });

  it.each(malformed)('refuses %s, in one line naming the rule', (_what, json, message) => {
    expect(refusal(json)).toMatch(message);
  });

  it('keeps a hostile rule label inert and short', () => {
    const message = refusal(withRules({ principals: [`evil\u202e${'x'.repeat(200)}@corp.example`], tools: ['*'], bogus: 1 }));
    expect(message).toMatch(/^GSC_POLICY_FILE rule 1 \("principals": \["evil\\u202ex+… \(\d+ more characters\)\]\): unknown key "bogus"/);
  });
});

describe('parsePrincipalPattern', () => {
  it.each([
    ['alice@corp.example', { kind: 'address', address: 'alice@corp.example' }],
    ['Alice.Smith+seo@Corp.Example', { kind: 'address', address: 'alice.smith+seo@corp.example' }],
    ['*@corp.example', { kind: 'domain', domain: 'corp.example' }],
    ['*@EU.Corp.Example', { kind: 'domain', domain: 'eu.corp.example' }],
    // The one canonical spelling of every principal (common/principal-name.ts): as written, then ASCII lower-case only.
    ['\u0130na@corp.example', { kind: 'address', address: '\u0130na@corp.example' }],
    ['\u041Aate@corp.example', { kind: 'address', address: '\u041Aate@corp.example' }],
  ])('%s is %j', (text, expected) => {
    expect(parsePrincipalPattern(text)).toMatchObject(expected);
  });

  it.each([
    'alice',
    '@corp.example',
    'alice@',
    'alice@localhost',
    'alice@corp..example',
    '*@*',
    'a b@corp.example',
    '*.@corp.example',
    'alice@-corp.example',
    'ali\u200bce@corp.example',
    'alice\u202e@corp.example',
    // Look-alikes: Unicode normalisation would change them, so no caller is ever spelled so.
    '\u212Aate@corp.example',
    '*@\u212Aorp.example',
    '\uFB01nance@corp.example',
  ])('%s is no pattern', (text) => {
    expect(parsePrincipalPattern(text)).toBeUndefined();
  });
});

const policyOf = (...rules: unknown[]) => parsePolicy({ rules }, 'GSC_POLICY_FILE');
const alice = { principals: ['alice@corp.example'] };
const seo = { groups: ['seo'] };

function sitesRefusal(run: () => void): string {
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

describe('checkPolicySites', () => {
  it('accepts rule sites inside the server-wide list, and anything without one', () => {
    const policy = policyOf({ ...seo, tools: ['*'], sites: ['https://blog.corp.example/', 'sc-domain:eu.corp.example'] });
    expect(() => checkPolicySites(policy, ['sc-domain:corp.example'])).not.toThrow();
    expect(() => checkPolicySites(policy, undefined)).not.toThrow();
  });

  it('refuses a rule site the server-wide list does not cover, naming the rule, the entry and the list', () => {
    const policy = policyOf({ ...alice, tools: ['*'] }, { ...seo, tools: ['*'], sites: ['sc-domain:corp.example'] });
    expect(sitesRefusal(() => checkPolicySites(policy, ['https://blog.corp.example/']))).toBe(
      'GSC_POLICY_FILE rule 2 ("groups": ["seo"]): "sites" entry sc-domain:corp.example is outside GSC_ALLOWED_SITES (https://blog.corp.example/); a rule only narrows the server-wide list — remove the entry or widen GSC_ALLOWED_SITES',
    );
    expect(
      sitesRefusal(() =>
        checkPolicySites(policyOf({ ...seo, tools: ['*'], sites: ['https://corp.example/shopping/'] }), ['https://corp.example/shop/']),
      ),
    ).toMatch(/entry https:\/\/corp.example\/shopping\/ is outside/);
  });
});
