import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, type TestClient, text, type ToolResult } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { accept, modernToolCall } from './support/modern-wire.js';
import { INITIALIZE, rawRequest } from './support/raw-http.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { TestIssuer } from './support/test-issuer.js';

// Two people (and a group, a domain, and a stranger) on one OAuth-protected
// server with GSC_POLICY_FILE (PRODUCT §8b): what each sees in tools/list, what
// a call outside it is answered with, whose approvals and sessions are whose,
// and where each one's properties end — with the emulator's request log as
// the witness that nothing went to Google.

const AUDIENCE = 'https://mcp.test.example/mcp';
const APPROVAL_SECRET = 'approval-secret-for-the-policy-tests-0123456789';
const BLOG = SEED_PROPERTIES.blog; // https://blog.example.net/
const WWW = SEED_PROPERTIES.owned; // https://www.example.com/

const BOB_TOOLS = [
  'delete_site',
  'get_indexing_status',
  'get_site',
  'get_verified_site',
  'inspect_url',
  'list_sitemaps',
  'list_sites',
  'list_verified_sites',
  'query_search_analytics',
  'unverify_site',
];
const POLICY = {
  rules: [
    { principals: ['alice@corp.example'], tools: ['*'] },
    {
      principals: ['Bob@Corp.Example'],
      tools: ['essential', 'list_verified_sites', 'get_verified_site', 'unverify_site', 'get_indexing_status', 'delete_site'],
      sites: [BLOG],
    },
    { groups: ['seo'], tools: ['list_*', 'get_*'], deny_tools: ['get_indexing_status'], sites: ['sc-domain:example.com'] },
    { principals: ['*@corp.example'], tools: ['essential'] },
  ],
};

const folder = mkdtempSync(join(tmpdir(), 'gsc-policy-'));
const policyFile = join(folder, 'policy.json');
const auditLog = join(folder, 'audit.jsonl');
writeFileSync(policyFile, JSON.stringify(POLICY));

let google: TestGoogle;
let issuer: TestIssuer;
let server: InProcessServer;

beforeAll(async () => {
  google = await startGoogle();
  issuer = await TestIssuer.start({ audience: AUDIENCE });
  server = await startInProcess({
    ...google.env,
    GSC_AUTH_ISSUER: issuer.issuer,
    GSC_AUTH_AUDIENCE: AUDIENCE,
    GSC_POLICY_FILE: policyFile,
    GSC_SITE_URL: WWW,
    GSC_APPROVAL_SECRET: APPROVAL_SECRET,
    GSC_AUDIT_LOG: auditLog,
  });
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
  await google?.emulator.close();
});
beforeEach(() => google.emulator.reset());

type Person = { email: string; groups?: string[] };
const alice: Person = { email: 'alice@corp.example' };
const bob: Person = { email: 'bob@corp.example' };
const carol: Person = { email: 'carol@agency.example', groups: ['seo'] };
const dave: Person = { email: 'dave@corp.example' };
const mallory: Person = { email: 'mallory@other.example', groups: ['marketing'] };

const tokenFor = (person: Person) =>
  issuer.mint({ email: person.email, sub: `sub-${person.email}`, ...(person.groups ? { groups: person.groups } : {}) });
const headersFor = async (person: Person) => ({ authorization: `Bearer ${await tokenFor(person)}` });
const sent = () => google.emulator.apiRequests().map((r) => r.route);

async function as<T>(person: Person, revision: '2026-07-28' | '2025-11-25', use: (client: TestClient) => Promise<T>): Promise<T> {
  const client = await connectHttp(server.url, { revision }, await headersFor(person));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

const names = (tools: { name: string }[]) => tools.map((t) => t.name).sort();
const REVISIONS = ['2026-07-28', '2025-11-25'] as const;

describe('each principal’s tools/list is what its rule says', () => {
  it.each(REVISIONS)('%s', async (revision) => {
    const all = await as(alice, revision, async (c) => names(await c.listTools()));
    expect(all).toHaveLength(24);
    // Principals match case-insensitively: the rule says Bob@Corp.Example.
    expect(await as(bob, revision, async (c) => names(await c.listTools()))).toEqual(BOB_TOOLS);
    // A group rule, with a deny list subtracted.
    const seo = await as(carol, revision, async (c) => names(await c.listTools()));
    expect(seo).toEqual(all.filter((n) => /^(list|get)_/.test(n) && n !== 'get_indexing_status'));
    // The *@corp.example rule: the essential five.
    expect(await as(dave, revision, async (c) => names(await c.listTools()))).toEqual([
      'get_site',
      'inspect_url',
      'list_sitemaps',
      'list_sites',
      'query_search_analytics',
    ]);
    // No rule matches: no tools.
    expect(await as(mallory, revision, async (c) => c.listTools())).toEqual([]);
  });
});

describe('a call outside the caller’s tools is answered exactly as an unknown tool', () => {
  /** The JSON-RPC answer to tools/call, with the tool's name taken out so two answers can be compared. */
  async function modernAnswer(person: Person, name: string) {
    const { status, body } = await modernToolCall(server.url, name, {}, { headers: await headersFor(person) });
    return {
      status,
      body: JSON.parse(
        JSON.stringify(body)
          .replaceAll(name, '<name>')
          .replace(/"id":\d+/, '"id":0'),
      ),
    };
  }

  async function legacyAnswer(person: Person, name: string) {
    const headers = await headersFor(person);
    const init = await rawRequest(server.url, { body: INITIALIZE, headers });
    const session = { ...headers, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' };
    await rawRequest(server.url, { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers: session });
    const res = await rawRequest(server.url, {
      body: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name, arguments: {} } },
      headers: session,
    });
    await rawRequest(server.url, { method: 'DELETE', headers: session });
    return { status: res.status, body: JSON.parse(JSON.stringify(res.json).replaceAll(name, '<name>')) };
  }

  it.each([
    ['a principal no rule matches, calling list_sites', mallory, 'list_sites'],
    ['bob, calling add_site (not in his rule)', bob, 'add_site'],
    ['carol, calling get_indexing_status (denied by her rule)', carol, 'get_indexing_status'],
  ])('%s', async (_, person, tool) => {
    for (const answer of [modernAnswer, legacyAnswer]) {
      const refused = await answer(person, tool);
      const unknown = await answer(person, 'made_up_tool');
      expect(refused).toEqual(unknown);
      expect(refused.body.error.code).toBe(-32602);
    }
    expect(sent()).toEqual([]);
  });
});

describe('bob’s properties end where his rule’s sites do: refused, and nothing sent to Google', () => {
  const refusedFor = (result: ToolResult, property: string) => {
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(property);
    expect(text(result)).toMatch(/Nothing was sent to Google/);
    // What to do next points at his rule: widening GSC_ALLOWED_SITES would not help him.
    expect(text(result)).toMatch(/ask the operator to add it to the "sites" of rule 2 in GSC_POLICY_FILE/);
    expect(text(result)).not.toMatch(/GSC_ALLOWED_SITES/);
  };

  it.each(REVISIONS)('property tools (%s): get_site, inspect_url, delete_site, and the server default GSC_SITE_URL', async (revision) => {
    await as(bob, revision, async (c) => {
      const first = await c.call('get_site', { site_url: WWW });
      refusedFor(first, WWW);
      expect(text(first)).toMatch(
        /^https:\/\/www\.example\.com\/ is outside the properties allowed to bob@corp\.example \(https:\/\/blog\.example\.net\/\)\./,
      );
      refusedFor(await c.call('get_site', { site_url: 'sc-domain:example.com' }), 'sc-domain:example.com');
      // GSC_SITE_URL is the server's default; it is not bob's.
      refusedFor(await c.call('get_site', {}), WWW);
      refusedFor(await c.call('inspect_url', { site_url: WWW, url: `${WWW}about` }), WWW);
      // URL tricks do not get through his list either.
      refusedFor(await c.call('get_site', { site_url: 'https://blog.example.net.evil.example/' }), 'blog.example.net.evil.example');
      const guarded = await c.call('delete_site', { site_url: WWW });
      refusedFor(guarded, WWW);
      expect(c.dialogs).toEqual([]);
      expect(guarded.structuredContent?.confirm_token).toBeUndefined();
    });
    expect(sent()).toEqual([]);
  });

  it.each(REVISIONS)('page-URL tools (%s): get_indexing_status, and inspect_url with a page outside his property', async (revision) => {
    await as(bob, revision, async (c) => {
      refusedFor(
        await c.call('get_indexing_status', { url: 'https://www.example.com/jobs/engineer' }),
        'https://www.example.com/jobs/engineer',
      );
      refusedFor(
        await c.call('get_indexing_status', { url: 'https://blog.example.net.evil.example/post' }),
        'blog.example.net.evil.example',
      );
      const outside = await c.call('inspect_url', { site_url: BLOG, url: 'https://www.example.com/about' });
      expect(outside.isError).toBe(true);
      expect(text(outside)).toMatch(/is not part of the property https:\/\/blog\.example\.net\//);
    });
    expect(sent()).toEqual([]);
  });

  it.each(REVISIONS)(
    'verification-id tools (%s): only the lookup that maps the id to its property is sent, nothing is changed',
    async (revision) => {
      // configuration.txt: the id is opaque; "the resource is fetched first and its own site block mapped back to a property".
      await as(bob, revision, async (c) => {
        const get = await c.call('get_verified_site', { id: 'https%3A%2F%2Fwww.example.com%2F' });
        expect(get.isError).toBe(true);
        expect(text(get)).toMatch(/belongs to https:\/\/www\.example\.com\/, which is outside the properties allowed to bob@corp\.example/);
        expect(text(get)).toMatch(/rule 2 in GSC_POLICY_FILE/);
        expect(text(get)).toMatch(/Only the lookup of that resource was sent to Google; nothing was changed/);
        const unverify = await c.call('unverify_site', { id: 'dns%3A%2F%2Fexample.com' });
        expect(unverify.isError).toBe(true);
        expect(text(unverify)).toMatch(/belongs to sc-domain:example\.com, which is outside/);
        expect(c.dialogs).toEqual([]);
      });
      expect(sent()).toEqual(['webResource.get', 'webResource.get']);
      expect(google.emulator.state.resources.has('dns://example.com')).toBe(true);
    },
  );

  it('inside his sites the same tools work (the refusals above are his rule, not the tools)', async () => {
    await as(bob, '2026-07-28', async (c) => {
      expect((await c.call('get_site', { site_url: BLOG })).isError).toBeFalsy();
      expect((await c.call('get_indexing_status', { url: 'https://blog.example.net/post' })).isError).toBeFalsy();
      expect((await c.call('get_verified_site', { id: 'https%3A%2F%2Fblog.example.net%2F' })).isError).toBeFalsy();
    });
    expect(sent()).toEqual(['sites.get', 'urlNotifications.getMetadata', 'webResource.get']);
  });

  it('alice, on the same server, reaches what bob may not', async () => {
    await as(alice, '2026-07-28', async (c) => {
      expect((await c.call('get_site', { site_url: WWW })).isError).toBeFalsy();
      expect((await c.call('get_indexing_status', { url: 'https://www.example.com/jobs/engineer' })).isError).toBeFalsy();
    });
  });

  it.each(REVISIONS)('listings (%s) report what bob’s sites withheld', async (revision) => {
    const everything = await as(alice, revision, async (c) => ({
      sites: await c.call('list_sites'),
      resources: await c.call('list_verified_sites'),
    }));
    expect(everything.sites.structuredContent?.withheld).toBeUndefined();
    const allSites = everything.sites.structuredContent!.sites as { site_url: string }[];
    const allResources = everything.resources.structuredContent!.resources as { site_url: string }[];
    await as(bob, revision, async (c) => {
      const sites = await c.call('list_sites');
      expect((sites.structuredContent!.sites as { site_url: string }[]).map((s) => s.site_url)).toEqual([BLOG]);
      expect(sites.structuredContent!.withheld).toBe(allSites.length - 1);
      expect(text(sites)).toMatch(new RegExp(`${allSites.length - 1} more withheld`));
      const resources = await c.call('list_verified_sites');
      expect((resources.structuredContent!.resources as { site_url: string }[]).map((r) => r.site_url)).toEqual([BLOG]);
      expect(resources.structuredContent!.withheld).toBe(allResources.length - 1);
    });
    // carol's group rule: sc-domain:example.com covers its subdomains, not blog.example.net.
    await as(carol, revision, async (c) => {
      const sites = (await c.call('list_sites')).structuredContent!;
      const expected = allSites
        .map((s) => s.site_url)
        .filter((u) => /^(sc-domain:example\.com|https?:\/\/([a-z.]+\.)?example\.com\/)/.test(u));
      expect((sites.sites as { site_url: string }[]).map((s) => s.site_url).sort()).toEqual(expected.sort());
      expect(sites.withheld).toBe(allSites.length - expected.length);
    });
  });
});

describe('approvals belong to the person who was asked', () => {
  const audit = () =>
    readFileSync(auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; principal: string; path: string; reason?: string });
  const deletes = () => sent().filter((r) => r === 'sites.delete');

  it('2026-07-28: alice’s approval state, accepted by bob, is no answer: bob is asked afresh and nothing is deleted; alice’s own accept deletes', async () => {
    const asked = await modernToolCall(server.url, 'delete_site', { site_url: BLOG }, { headers: await headersFor(alice) });
    expect(asked.body.result.resultType).toBe('input_required');
    const state = asked.body.result.requestState as string;
    const before = audit().length;

    const stolen = await modernToolCall(
      server.url,
      'delete_site',
      { site_url: BLOG },
      { headers: await headersFor(bob), requestState: state, inputResponses: accept },
    );
    expect(stolen.body.result.resultType).toBe('input_required');
    expect(stolen.body.result.structuredContent?.executed).not.toBe(true);
    expect(deletes()).toHaveLength(0);
    expect(
      audit()
        .slice(before)
        .map((e) => `${e.principal}:${e.event}`),
    ).toEqual(['bob@corp.example:seal_rejected', 'bob@corp.example:asked']);

    const own = await modernToolCall(
      server.url,
      'delete_site',
      { site_url: BLOG },
      { headers: await headersFor(alice), requestState: state, inputResponses: accept },
    );
    expect(own.body.result.structuredContent).toMatchObject({ executed: true, outcome: 'executed' });
    expect(deletes()).toHaveLength(1);
    expect(
      audit()
        .slice(-2)
        .map((e) => `${e.principal}:${e.event}`),
    ).toEqual(['alice@corp.example:approved', 'alice@corp.example:executed']);
  });

  it('token path: alice’s confirm_token is refused for bob, and still good for alice', async () => {
    const issued = await modernToolCall(
      server.url,
      'delete_site',
      { site_url: BLOG },
      { headers: await headersFor(alice), elicitation: false },
    );
    const token = issued.body.result.structuredContent.confirm_token as string;
    expect(token).toEqual(expect.any(String));

    const stolen = await modernToolCall(
      server.url,
      'delete_site',
      { site_url: BLOG, confirm_token: token },
      { headers: await headersFor(bob), elicitation: false },
    );
    expect(stolen.body.result.isError).toBe(true);
    expect(stolen.body.result.structuredContent).toMatchObject({ executed: false, outcome: 'token_rejected' });
    expect(text(stolen.body.result)).toMatch(/issued for a different tool, target or arguments/);
    expect(deletes()).toHaveLength(0);

    const own = await modernToolCall(
      server.url,
      'delete_site',
      { site_url: BLOG, confirm_token: token },
      { headers: await headersFor(alice), elicitation: false },
    );
    expect(own.body.result.structuredContent).toMatchObject({ executed: true });
    expect(deletes()).toHaveLength(1);
  });

  it('2025-11-25 token path: a token alice got in her session is refused in bob’s', async () => {
    const token = await as(
      alice,
      '2025-11-25',
      async (c) => (await c.call('delete_site', { site_url: BLOG })).structuredContent!.confirm_token as string,
    );
    expect(token).toEqual(expect.any(String));
    const stolen = await as(bob, '2025-11-25', (c) => c.call('delete_site', { site_url: BLOG, confirm_token: token }));
    expect(stolen.structuredContent).toMatchObject({ executed: false, outcome: 'token_rejected' });
    expect(deletes()).toHaveLength(0);
  });
});

describe('a 2025-11-25 session belongs to the principal that opened it', () => {
  it('bob’s session id is 404 for alice, exactly as an unknown id; bob’s session is untouched', async () => {
    const bobClient = await connectHttp(server.url, { revision: '2025-11-25' }, await headersFor(bob));
    try {
      const session = bobClient.raw.transport.sessionId as string;
      expect(session).toEqual(expect.any(String));
      const aliceHeaders = { ...(await headersFor(alice)), 'mcp-protocol-version': '2025-11-25' };
      const list = { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} };
      const hijack = await rawRequest(server.url, { body: list, headers: { ...aliceHeaders, 'mcp-session-id': session } });
      const unknown = await rawRequest(server.url, {
        body: list,
        headers: { ...aliceHeaders, 'mcp-session-id': '3f2d9c1e-0000-4000-8000-000000000000' },
      });
      expect(hijack.status).toBe(404);
      expect({ status: hijack.status, body: hijack.json }).toEqual({ status: unknown.status, body: unknown.json });
      expect(
        (await rawRequest(server.url, { headers: { ...aliceHeaders, accept: 'text/event-stream', 'mcp-session-id': session } })).status,
      ).toBe(404);
      expect((await rawRequest(server.url, { method: 'DELETE', headers: { ...aliceHeaders, 'mcp-session-id': session } })).status).toBe(
        404,
      );
      // The same person with a fresh token is the same principal: the session is theirs.
      const own = await rawRequest(server.url, {
        body: list,
        headers: { ...(await headersFor(bob)), 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session },
      });
      expect(own.status).toBe(200);
      expect(names(own.json.result.tools)).toEqual(BOB_TOOLS);
      expect(names(await bobClient.listTools())).toEqual(BOB_TOOLS);
    } finally {
      await bobClient.close();
    }
  });
});

describe('a 2025-11-25 session does not outlive the access it was opened with', () => {
  it('carol leaves the seo group: her next token no longer opens the session her group rule granted (404), and a new session has no tools', async () => {
    const carolClient = await connectHttp(server.url, { revision: '2025-11-25' }, await headersFor(carol));
    try {
      const session = carolClient.raw.transport.sessionId as string;
      expect((await carolClient.listTools()).length).toBeGreaterThan(0);
      const withoutGroup = { ...(await headersFor({ email: carol.email })), 'mcp-protocol-version': '2025-11-25' };
      const call = { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'list_sites', arguments: {} } };
      const stale = await rawRequest(server.url, { body: call, headers: { ...withoutGroup, 'mcp-session-id': session } });
      expect(stale.status).toBe(404);
      expect(sent()).toEqual([]);
      const fresh = await as({ email: carol.email }, '2025-11-25', (c) => c.listTools());
      expect(fresh).toEqual([]);
    } finally {
      await carolClient.close();
    }
  });
});

describe('the admin API shows the policy as the callers meet it', () => {
  const admin = async (path: string) => {
    const res = await rawRequest(`${server.origin}/admin/${path}`);
    expect(res.status).toBe(200);
    return res.json;
  };

  it.each([
    ['bob', bob],
    ['carol (through her group)', carol],
    ['dave (through *@corp.example)', dave],
    ['mallory (no rule)', mallory],
  ])('/admin/tools?principal= for %s matches that person’s tools/list', async (_, person) => {
    const query = `principal=${encodeURIComponent(person.email)}${person.groups ? `&groups=${person.groups.join(',')}` : ''}`;
    const shown = await admin(`tools?${query}`);
    const listed = await as(person, '2026-07-28', async (c) => names(await c.listTools()));
    // The admin view also names the views' app-only tools, allowed exactly with the tool whose view calls them.
    expect(names(shown.tools.filter((t: any) => !t.app_only_for))).toEqual(listed);
    expect(shown.tools.filter((t: any) => t.app_only_for).map((t: any) => t.app_only_for)).toEqual(
      listed.filter((n: string) => n === 'query_search_analytics'),
    );
    expect(shown.principal).toBe(person.email);
    expect(shown.decided_by).toBe(person === mallory ? 'no_match' : 'rule');
  });

  it('/admin/tools names the rule and the sites that decide for bob', async () => {
    expect(await admin('tools?principal=bob@corp.example')).toMatchObject({ decided_by: 'rule', rule: 2, sites: [BLOG] });
  });

  it('/admin/config shows the auth mode and the policy, and no secret', async () => {
    const config = await admin('config');
    expect(config.auth).toEqual({
      mode: 'oauth',
      issuer: issuer.issuer,
      audience: AUDIENCE,
      jwks_url: 'discovered',
      principal_claim: 'email, else sub',
      groups_claim: 'groups',
    });
    expect(config.policy.source).toBe('GSC_POLICY_FILE');
    expect(config.policy.rules).toHaveLength(4);
    expect(config.policy.rules[1]).toEqual({
      rule: 2,
      principals: ['Bob@Corp.Example'],
      groups: [],
      tools: POLICY.rules[1].tools,
      deny_tools: [],
      sites: [BLOG],
      annotations: 'shared',
    });
    expect(config.policy.rules[2]).toMatchObject({ groups: ['seo'], deny_tools: ['get_indexing_status'] });
    const raw = JSON.stringify(config);
    const key = JSON.parse(google.env.GSC_SERVICE_ACCOUNT_KEY) as { private_key: string; private_key_id?: string };
    expect(raw).not.toContain(APPROVAL_SECRET);
    expect(raw).not.toContain(key.private_key.split('\n')[2]);
    expect(raw).not.toMatch(/PRIVATE KEY/);
  });

  it('/metrics carries no principal label (low cardinality)', async () => {
    await as(bob, '2026-07-28', (c) => c.call('list_sites'));
    const res = await rawRequest(`${server.origin}/metrics`);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/list_sites/);
    expect(res.text).not.toMatch(/bob@corp\.example|alice@corp\.example|principal=/);
  });
});
