import { describe, expect, it } from '@jest/globals';
import { declaredTools } from '../../test/support/declared-tools.js';
import { selectTools } from './tool-selection.js';
import { parseToolPatterns } from '../config/tool-patterns.js';
import { isPageAllowed, isPropertyAllowed } from '../property/site-allowlist.js';
import { parsePolicy } from '../config/policy-file.js';
import { type Caller, LOCAL_PRINCIPAL } from '../identity/caller.js';
import { intersectSites, resolvePolicy } from './policy-resolution.js';

const declared = declaredTools();
const everything = selectTools(declared, { readOnly: false, denyTools: [] }).registered;
const readOnly = selectTools(declared, { readOnly: true, denyTools: [] }).registered;
const essential = declared
  .filter((t) => t.essential)
  .map((t) => t.name)
  .sort();

// PRODUCT §8b.
const policy = parsePolicy(
  {
    rules: [
      { principals: ['alice@corp.example'], tools: ['*'], sites: ['sc-domain:corp.example'] },
      { groups: ['seo'], tools: ['essential', 'submit_sitemap'], deny_tools: ['delete_*'], sites: ['https://blog.corp.example/'] },
      { principals: ['*@corp.example'], tools: ['essential'], sites: ['sc-domain:corp.example'] },
    ],
  },
  'GSC_POLICY_FILE',
);
const server = { registered: everything, allowedSites: ['sc-domain:corp.example'] };

/** A caller as the transports build one: nobody named is the local principal, no groups is an empty list. */
const caller = (c: { principal?: string; groups?: string[] }): Caller => ({
  principal: c.principal ?? LOCAL_PRINCIPAL,
  groups: c.groups ?? [],
});

describe('resolvePolicy', () => {
  it('without a policy, every caller has the server-wide tools and sites', () => {
    const access = resolvePolicy(undefined, caller({ principal: 'anyone@else.example' }), server);
    expect(access).toEqual({
      rule: undefined,
      decidedBy: 'server',
      tools: new Set(everything.map((t) => t.name)),
      sites: ['sc-domain:corp.example'],
      annotations: 'shared',
    });
  });

  it('alice: rule 1, every registered tool, the domain', () => {
    const access = resolvePolicy(policy, caller({ principal: 'alice@corp.example', groups: ['seo'] }), server);
    expect(access.rule).toBe(1);
    expect(access.decidedBy).toBe('rule');
    expect([...access.tools]).toEqual(everything.map((t) => t.name).sort());
    expect(access.sites).toEqual(['sc-domain:corp.example']);
  });

  it('matches an address case-insensitively', () => {
    expect(resolvePolicy(policy, caller({ principal: 'Alice@CORP.example' }), server).rule).toBe(1);
  });

  it('first match wins: a seo member other than alice gets rule 2, not rule 3', () => {
    const access = resolvePolicy(policy, caller({ principal: 'bob@corp.example', groups: ['eng', 'seo'] }), server);
    expect(access.rule).toBe(2);
    expect([...access.tools]).toEqual([...essential, 'submit_sitemap'].sort());
    expect(access.sites).toEqual(['https://blog.corp.example/']);
    // Where the operator widens them: the guard quotes this, it does not look the rule up again.
    expect(access.sitesRule).toEqual({ number: 2, source: 'GSC_POLICY_FILE' });
  });

  it('a rule without "sites" narrows no properties, so it names no place to widen them', () => {
    const open = parsePolicy({ rules: [{ principals: ['alice@corp.example'], tools: ['*'] }] }, 'GSC_POLICY_FILE');
    const access = resolvePolicy(open, { principal: 'alice@corp.example', groups: [] }, server);
    expect(access).toMatchObject({ rule: 1, sites: ['sc-domain:corp.example'] });
    expect(access.sitesRule).toBeUndefined();
  });

  it('deny_tools is subtracted from tools', () => {
    const p = parsePolicy({ rules: [{ groups: ['seo'], tools: ['*'], deny_tools: ['delete_*', 'unverify_site'] }] }, 'policy');
    const tools = resolvePolicy(p, caller({ groups: ['seo'] }), server).tools;
    expect(tools.has('delete_site')).toBe(false);
    expect(tools.has('delete_sitemap')).toBe(false);
    expect(tools.has('unverify_site')).toBe(false);
    expect(tools.has('submit_sitemap')).toBe(true);
  });

  it('*@domain matches the domain exactly: not a subdomain, not a look-alike, not two @', () => {
    expect(resolvePolicy(policy, caller({ principal: 'carol@corp.example' }), server).rule).toBe(3);
    for (const principal of [
      'carol@eu.corp.example',
      'carol@corp.example.evil',
      'carol@evilcorp.example',
      'x@evil.example@corp.example',
      'corp.example',
    ]) {
      expect(resolvePolicy(policy, caller({ principal }), server)).toMatchObject({ rule: undefined, decidedBy: 'no_match' });
    }
  });

  it('groups match exactly (case-sensitive), and a caller with no principal can still match by group', () => {
    expect(resolvePolicy(policy, caller({ groups: ['SEO'] }), server).decidedBy).toBe('no_match');
    expect(resolvePolicy(policy, caller({ groups: ['seo'] }), server).rule).toBe(2);
  });

  it('no matching rule means no tools and no sites', () => {
    const access = resolvePolicy(policy, caller({ principal: 'mallory@other.example', groups: ['eng'] }), server);
    expect(access).toEqual({ rule: undefined, decidedBy: 'no_match', tools: new Set(), sites: [], annotations: 'shared' });
    expect(isPropertyAllowed('sc-domain:corp.example', access.sites!)).toBe(false);
  });

  it('only narrows: read-only and server-wide deny still bound a rule that says *', () => {
    const ro = resolvePolicy(policy, caller({ principal: 'alice@corp.example' }), { registered: readOnly });
    expect([...ro.tools]).toEqual(readOnly.map((t) => t.name).sort());
    expect(ro.tools.has('delete_site')).toBe(false);
    const denied = selectTools(declared, { readOnly: false, denyTools: parseToolPatterns('GSC_DENY_TOOLS', 'submit_*')! }).registered;
    expect(resolvePolicy(policy, caller({ groups: ['seo'] }), { registered: denied }).tools.has('submit_sitemap')).toBe(false);
  });

  it("carries the rule's annotations mode, shared when the rule does not say", () => {
    const p = parsePolicy(
      {
        rules: [
          { principals: ['carol@agency.example'], tools: ['*'], annotations: 'own' },
          { groups: ['leads'], tools: ['*'], annotations: 'admin' },
          { groups: ['seo'], tools: ['essential'] },
        ],
      },
      'policy',
    );
    expect(resolvePolicy(p, caller({ principal: 'carol@agency.example', groups: ['leads'] }), server).annotations).toBe('own');
    expect(resolvePolicy(p, caller({ groups: ['leads'] }), server).annotations).toBe('admin');
    expect(resolvePolicy(p, caller({ groups: ['seo'] }), server).annotations).toBe('shared');
  });

  it('a rule without sites has the server-wide sites; a server without a list has the rule sites', () => {
    const p = parsePolicy({ rules: [{ groups: ['seo'], tools: ['essential'] }] }, 'policy');
    expect(resolvePolicy(p, caller({ groups: ['seo'] }), server).sites).toEqual(['sc-domain:corp.example']);
    expect(resolvePolicy(p, caller({ groups: ['seo'] }), { registered: everything }).sites).toBeUndefined();
    expect(resolvePolicy(policy, caller({ groups: ['seo'] }), { registered: everything }).sites).toEqual(['https://blog.corp.example/']);
  });

  it("a rule's sites are checked with the allowlist semantics: page URLs and properties inside them", () => {
    const { sites } = resolvePolicy(policy, caller({ groups: ['seo'] }), server);
    expect(isPropertyAllowed('https://blog.corp.example/2026/', sites!)).toBe(true);
    expect(isPropertyAllowed('https://www.corp.example/', sites!)).toBe(false);
    expect(isPageAllowed(new URL('https://blog.corp.example/post'), sites!)).toBe(true);
    expect(isPageAllowed(new URL('https://shop.corp.example/'), sites!)).toBe(false);
  });
});

describe('intersectSites', () => {
  it.each<[string[], string[], string[]]>([
    [['https://blog.corp.example/'], ['sc-domain:corp.example'], ['https://blog.corp.example/']],
    [['sc-domain:corp.example'], ['https://blog.corp.example/'], ['https://blog.corp.example/']],
    [['sc-domain:corp.example'], ['sc-domain:corp.example', 'sc-domain:other.example'], ['sc-domain:corp.example']],
    [['https://corp.example/shop/'], ['https://corp.example/'], ['https://corp.example/shop/']],
    [['https://corp.example/shopping/'], ['https://corp.example/shop/'], []],
    [['sc-domain:corp.example', 'https://blog.corp.example/'], ['sc-domain:corp.example'], ['sc-domain:corp.example']],
    [['http://corp.example/'], ['https://corp.example/'], []],
  ])('%j ∩ %j = %j', (rule, serverSites, expected) => {
    expect(intersectSites(rule, serverSites)).toEqual(expected);
  });
});
