import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { isolatedEnv, MAIN } from './support/env.js';

// GSC_POLICY_FILE is checked at start-up as strictly as the environment
// (PRODUCT §8b): every malformed rule stops the built server with exit code 1
// and one stderr line that names the file and the rule. Some checks run while
// the configuration is read (shape, patterns, principals, sites), the others
// once the tools are known (unknown tool names, write tools under read-only):
// both kinds must look the same to the operator, in both transports.

const folder = mkdtempSync(join(tmpdir(), 'gsc-policy-errors-'));
let files = 0;

function policyFile(content: unknown): string {
  const path = join(folder, `policy-${++files}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function start(env: Record<string, string>) {
  return spawnSync(process.execPath, [MAIN], { env: isolatedEnv(env), input: '', encoding: 'utf8', timeout: 20000 });
}

/** Exit 1, nothing on stdout, exactly one stderr line, never a stack. */
function oneLine(env: Record<string, string>): string {
  const result = start(env);
  expect(result.status).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^google-search-console-mcp: GSC_POLICY_FILE /);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return lines[0];
}

const alice = { principals: ['alice@corp.example'], tools: ['essential'] };

type Case = { name: string; policy: unknown; env?: Record<string, string>; says: RegExp[] };

const cases: Case[] = [
  { name: 'not JSON', policy: '{"rules": [', says: [/is not valid JSON/, /"rules"/] },
  { name: 'a list instead of an object', policy: [alice], says: [/must be a JSON object with a "rules" list/] },
  { name: 'an unknown top-level key', policy: { rules: [alice], version: 2 }, says: [/unknown key "version"; the only key is "rules"/] },
  { name: '"rules" is not a list', policy: { rules: alice }, says: [/"rules" must be a list of rules/] },
  { name: 'no rules at all', policy: { rules: [] }, says: [/"rules" is empty, which would give every caller no tools/] },
  { name: 'a rule that is not an object', policy: { rules: [alice, 'bob@corp.example'] }, says: [/rule 2: a rule must be an object/] },
  {
    name: 'an unknown key in a rule',
    policy: { rules: [{ ...alice, tool: ['get_site'] }] },
    says: [
      /rule 1 \("principals": \["alice@corp.example"\]\): unknown key "tool"; the keys are principals, groups, tools, deny_tools, sites/,
    ],
  },
  {
    name: 'a rule that names no one',
    policy: { rules: [alice, { tools: ['*'] }] },
    says: [/rule 2: the rule names no one; add "principals"/],
  },
  { name: 'a rule without tools', policy: { rules: [{ groups: ['seo'] }] }, says: [/rule 1 \("groups": \["seo"\]\): "tools" is missing/] },
  {
    name: 'principals given as a string',
    policy: { rules: [{ principals: 'alice@corp.example', tools: ['*'] }] },
    says: [/rule 1: "principals" must be a list of strings/],
  },
  { name: 'an empty principals list', policy: { rules: [{ principals: [], tools: ['*'] }] }, says: [/rule 1: "principals" is empty/] },
  {
    name: 'a principal that is not an address',
    policy: { rules: [alice, { principals: ['bob'], tools: ['*'] }] },
    says: [/rule 2 \("principals": \["bob"\]\): "principals" entry "bob" is neither an e-mail address/, /\*@corp\.example/],
  },
  {
    name: 'a principal wildcard other than *@domain',
    policy: { rules: [{ principals: ['alice@*.corp.example'], tools: ['*'] }] },
    says: [/"principals" entry "alice@\*\.corp\.example" is neither an e-mail address/],
  },
  {
    name: 'a group with a wildcard',
    policy: { rules: [{ groups: ['seo-*'], tools: ['*'] }] },
    says: [/"groups" entry "seo-\*" contains \*, but groups match exactly/],
  },
  {
    name: 'a tools entry that is a number',
    policy: { rules: [{ ...alice, tools: ['list_sites', 7] }] },
    says: [/rule 1 .*"tools" entry 2 is the number 7, not a string/],
  },
  {
    name: 'a malformed pattern (leading *)',
    policy: { rules: [{ ...alice, tools: ['*_sites'] }] },
    says: [/rule 1 .*"tools" entry "\*_sites" is not a valid pattern/, /list_\*/],
  },
  {
    name: 'a malformed pattern (inner *) in deny_tools',
    policy: { rules: [{ ...alice, deny_tools: ['list_*_x'] }] },
    says: [/rule 1 .*"deny_tools" entry "list_\*_x" is not a valid pattern/],
  },
  {
    name: 'two patterns in one entry',
    policy: { rules: [{ ...alice, tools: ['list_sites,get_site'] }] },
    says: [/"tools" entry "list_sites,get_site" contains a comma; write one pattern per entry/],
  },
  {
    name: 'an unknown tool',
    policy: { rules: [alice, { groups: ['seo'], tools: ['lst_sitemaps'] }] },
    says: [/rule 2 \("groups": \["seo"\]\): "tools" entry "lst_sitemaps" matches no tool; the tools are: .*list_sitemaps/],
  },
  {
    name: 'a deny entry that matches no tool',
    policy: { rules: [{ ...alice, deny_tools: ['remove_*'] }] },
    says: [/rule 1 .*"deny_tools" entry "remove_\*" matches no tool/],
  },
  {
    name: 'a write tool under GSC_READ_ONLY=true',
    policy: { rules: [{ ...alice, tools: ['essential', 'submit_sitemap'] }] },
    env: { GSC_READ_ONLY: 'true' },
    says: [/rule 1 .*"tools" names submit_sitemap, a write tool, but GSC_READ_ONLY=true never registers write tools/],
  },
  {
    name: 'a pattern of write tools only under GSC_READ_ONLY=true',
    policy: { rules: [alice, { groups: ['ops'], tools: ['delete_*'] }] },
    env: { GSC_READ_ONLY: 'true' },
    says: [
      /rule 2 \("groups": \["ops"\]\): "tools" names "delete_\*", which matches only write tools \(delete_annotation, delete_sitemap, delete_site\), but GSC_READ_ONLY=true/,
    ],
  },
  {
    name: 'a site that is not a property',
    policy: { rules: [{ ...alice, sites: ['example.com'] }] },
    says: [/rule 1 .*"sites" entry: .*bare hostname/],
  },
  {
    name: 'a site outside GSC_ALLOWED_SITES',
    policy: { rules: [alice, { principals: ['*@corp.example'], tools: ['*'], sites: ['https://blog.example.net/'] }] },
    env: { GSC_ALLOWED_SITES: 'sc-domain:example.com' },
    says: [
      /rule 2 \("principals": \["\*@corp.example"\]\): "sites" entry https:\/\/blog\.example\.net\/ is outside GSC_ALLOWED_SITES \(sc-domain:example\.com\)/,
    ],
  },
];

describe('a malformed policy file stops the server: exit 1, one line naming the rule', () => {
  it.each(cases)('$name', ({ policy, env = {}, says }) => {
    const line = oneLine({ ...env, GSC_POLICY_FILE: policyFile(policy) });
    for (const pattern of says) {
      expect(line).toMatch(pattern);
    }
  });
});

describe('in HTTP mode the same checks look the same', () => {
  // One check of each kind: read with the configuration, and made once the tools are known.
  const http = { GSC_TRANSPORT: 'http', GSC_HTTP_PORT: '0' };
  it('a shape error', () => {
    expect(oneLine({ ...http, GSC_POLICY_FILE: policyFile({ rules: [{ ...alice, tool: ['x'] }] }) })).toMatch(
      /rule 1 .*unknown key "tool"/,
    );
  });
  it('an unknown tool', () => {
    expect(oneLine({ ...http, GSC_POLICY_FILE: policyFile({ rules: [{ ...alice, tools: ['get_sitee'] }] }) })).toMatch(
      /rule 1 .*"tools" entry "get_sitee" matches no tool/,
    );
  });
});

describe('what the checks must not refuse', () => {
  it('the example policy of PRODUCT §8b starts', () => {
    const policy = {
      rules: [
        { principals: ['alice@corp.example'], tools: ['*'], sites: ['sc-domain:corp.example'] },
        { groups: ['seo'], tools: ['essential', 'submit_sitemap'], deny_tools: ['delete_*'], sites: ['https://blog.corp.example/'] },
        { principals: ['*@corp.example'], tools: ['essential'], sites: ['sc-domain:corp.example'] },
      ],
    };
    // --version exits before serving, so use the stdio server with an empty stdin: it starts, then ends with its input.
    const result = start({ GSC_POLICY_FILE: policyFile(policy) });
    expect(result.stderr).not.toMatch(/GSC_POLICY_FILE/);
    expect(result.status).toBe(0);
  });

  it('a deny entry naming a write tool under read-only is harmless, as it is for GSC_DENY_TOOLS', () => {
    const result = start({
      GSC_READ_ONLY: 'true',
      GSC_POLICY_FILE: policyFile({ rules: [{ ...alice, tools: ['*'], deny_tools: ['delete_*'] }] }),
    });
    expect(result.stderr).not.toMatch(/GSC_POLICY_FILE/);
    expect(result.status).toBe(0);
  });
});
