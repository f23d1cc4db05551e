// Issue 21 items 1 and 8, issue 29 break 1: one way to compare who someone is,
// everywhere. Over real HTTP with OAuth tokens from a test issuer and the
// official clients: "Kate" spelt with the Kelvin sign (U+212A), which NFC makes
// a plain K, is not kate — she is refused with 401 and one sentence, and the
// refusal is on the audit trail (escaped, so the operator never reads "Kate");
// kate herself keeps her rule, sessions and exports. A Cyrillic look-alike,
// which no normalisation changes, is someone else everywhere (never kate's
// rule); a principal with invisible or direction-changing characters is
// refused too, from a token and from a host application alike.
// Item 8: a GSC_HTTP_TOKEN server's principal is bound to its token, so two
// servers sharing a state store and approval secret refuse each other's
// approvals.

import { type IncomingMessage } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { AuditTrail } from '../src/call/approval/audit-trail.service.js';
import { SearchConsoleMcpModule } from '../src/search-console-mcp.module.js';
import { connectHttp, type TestClient } from './support/clients.js';
import { isolatedEnv } from './support/env.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { accept, modernToolCall } from './support/modern-wire.js';
import { INITIALIZE, rawRequest } from './support/raw-http.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { TestIssuer } from './support/test-issuer.js';

const AUDIENCE = 'https://mcp.test.example/mcp';
const WWW = SEED_PROPERTIES.owned;
const KELVIN_KATE = '\u212Aate@corp.example'; // "Kate" with the Kelvin sign
const CYRILLIC_KATE = '\u041Aate@corp.example'; // "Кate": Cyrillic Ka, a different letter
const POLICY = {
  rules: [
    { principals: ['kate@corp.example'], tools: ['*'], sites: [WWW] },
    { principals: ['*@corp.example'], tools: ['list_sites'] },
  ],
};

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google?.emulator.close());

describe('OAuth principals: as written, ASCII lower-case, look-alikes refused', () => {
  let issuer: TestIssuer;
  let server: InProcessServer;
  beforeAll(async () => {
    issuer = await TestIssuer.start({ audience: AUDIENCE });
    server = await startInProcess({
      ...google.env,
      GSC_AUTH_ISSUER: issuer.issuer,
      GSC_AUTH_AUDIENCE: AUDIENCE,
      GSC_POLICY_FILE: policyFile(),
    });
  });
  afterAll(async () => {
    await server?.close();
    await issuer?.close();
  });

  const headers = async (email: string) => ({ authorization: `Bearer ${await issuer.mint({ email, sub: `sub-${email}` })}` });
  const connect = async (email: string, revision: '2026-07-28' | '2025-11-25' = '2026-07-28') =>
    connectHttp(server.url, { revision }, await headers(email));
  const toolNames = async (c: TestClient) => (await c.listTools()).map((t) => t.name).sort();
  const refusals = async () => {
    const res = await fetch(`${server.origin}/admin/audit?outcome=principal_refused&limit=500`);
    return ((await res.json()) as { entries: Record<string, unknown>[] }).entries;
  };

  it.each([
    ['the Kelvin sign (NFC makes it K)', KELVIN_KATE, '\\u{212A}ate@corp.example'],
    ['the Angstrom sign (NFC makes it \u00c5)', '\u212Bsa@corp.example', '\\u{212B}sa@corp.example'],
    ['the Ohm sign (NFC makes it \u03a9)', '\u2126mega@corp.example', '\\u{2126}mega@corp.example'],
    ['a full-width K (NFKC makes it K)', '\uFF2Bate@corp.example', '\\u{FF2B}ate@corp.example'],
  ])('refuses a principal with %s: 401 and one sentence, on both revisions, and audited', async (_what, email, escaped) => {
    const before = (await refusals()).length;
    for (const body of [INITIALIZE, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }]) {
      const res = await rawRequest(server.url, { body, headers: await headers(email) });
      expect(res.status).toBe(401);
      expect(res.json.error.message).toBe(
        'The access token is refused: the access token principal claim contains characters that Unicode normalisation (NFC or NFKC) would change, such as the Kelvin sign or a full-width letter; a look-alike spelling is refused, never taken for another principal',
      );
      expect(String(res.headers['www-authenticate'])).toMatch(
        /^Bearer error="invalid_token", error_description="the access token principal claim contains characters that Unicode normalisation .*", resource_metadata="/,
      );
    }
    const entries = await refusals();
    expect(entries.length).toBe(before + 2);
    expect(entries[0]).toMatchObject({
      event: 'principal_refused',
      tool: 'POST /mcp',
      principal: null,
      reason: 'principal_not_normalized',
      refused_principal: escaped,
    });
  });

  it('the operations routes refuse a look-alike principal with 400 instead of answering for kate', async () => {
    for (const path of [
      `/admin/tools?principal=${encodeURIComponent(KELVIN_KATE)}`,
      `/admin/audit?principal=${encodeURIComponent(KELVIN_KATE)}`,
    ]) {
      const res = await fetch(`${server.origin}${path}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { reason: string }).reason).toMatch(
        /^The principal "\\u\{212A\}ate@corp.example" contains characters that Unicode normalisation/,
      );
    }
    const tools = async (principal: string) =>
      (await (await fetch(`${server.origin}/admin/tools?principal=${encodeURIComponent(principal)}`)).json()) as {
        principal: string;
        tools: { name: string }[];
      };
    const kate = await tools('KATE@corp.example');
    expect(kate.principal).toBe('kate@corp.example');
    expect(kate.tools.map((t) => t.name)).toContain('delete_site'); // kate's own rule: every tool
    expect((await tools(CYRILLIC_KATE)).tools.map((t) => t.name)).toEqual(['list_sites']);
  });

  it('the official clients cannot connect as the Kelvin-sign Kate, on either revision', async () => {
    await expect(connect(KELVIN_KATE)).rejects.toThrow(/401|look-alike|Unauthorized/i);
    await expect(connect(KELVIN_KATE, '2025-11-25')).rejects.toThrow(/401|look-alike|Unauthorized/i);
  });

  it('kate keeps her rule, her exports and her session; the Kelvin-sign Kate reaches none of them', async () => {
    const kate = await connect('KATE@corp.example', '2025-11-25');
    try {
      expect((await toolNames(kate)).length).toBe(24);
      const made = await kate.call('query_search_analytics', { site_url: WWW, dimensions: ['query'], all_rows: true });
      expect(made.structuredContent!.export.principal).toBe('kate@corp.example');
      const sessionId = kate.raw.transport.sessionId as string;
      const call = (email: string) =>
        headers(email).then((h) =>
          rawRequest(server.url, {
            body: { jsonrpc: '2.0', id: 9, method: 'tools/list' },
            headers: { ...h, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
          }),
        );
      expect((await call('kate@corp.example')).status).toBe(200);
      expect((await call(KELVIN_KATE)).status).toBe(401);
      expect((await call(CYRILLIC_KATE)).status).toBe(404);
    } finally {
      await kate.close();
    }
  });

  it('a look-alike that Unicode does not make K is someone else everywhere: not kate’s rule, not kate’s export', async () => {
    const kate = await connect('kate@corp.example');
    const cyrillic = await connect(CYRILLIC_KATE);
    try {
      expect(await toolNames(cyrillic)).toEqual(['list_sites']); // the domain rule, as for any other corp.example address
      const made = await kate.call('query_search_analytics', { site_url: WWW, dimensions: ['query'], all_rows: true });
      await expect(cyrillic.raw.readResource({ uri: made.structuredContent!.export.csv })).rejects.toThrow(/not found/i);
      await expect(cyrillic.call('inspect_url', { site_url: WWW, url: WWW })).rejects.toThrow(/Tool inspect_url not found/);
    } finally {
      await kate.close();
      await cyrillic.close();
    }
  });

  it.each([
    ['a right-to-left override', 'kate@corp.example\u202E'],
    ['a zero-width joiner', 'ka\u200Dte@corp.example'],
    ['a line separator', 'kate@corp\u2028.example'],
    ['a no-break space', 'kate\u00A0@corp.example'],
  ])('refuses a principal with %s: 401 and one sentence, audited', async (_what, email) => {
    const res = await rawRequest(server.url, { body: INITIALIZE, headers: await headers(email) });
    expect(res.status).toBe(401);
    expect(res.json.error.message).toBe(
      'The access token is refused: the access token principal claim is not plain text (1 to 320 characters without control, invisible or direction-changing characters)',
    );
    expect(String(res.headers['www-authenticate'])).toMatch(
      /^Bearer error="invalid_token", error_description="the access token principal claim is not plain text .*", resource_metadata="/,
    );
    expect((await refusals())[0]).toMatchObject({
      reason: 'principal_not_plain',
      refused_principal: expect.stringMatching(/^[\x20-\x7e]+$/),
    });
  });
});

// Issue 21 item 5: email_verified must say true.
describe('email_verified', () => {
  let issuer: TestIssuer;
  let server: InProcessServer;
  beforeAll(async () => {
    issuer = await TestIssuer.start({ audience: AUDIENCE });
    server = await startInProcess({ ...google.env, GSC_AUTH_ISSUER: issuer.issuer, GSC_AUTH_AUDIENCE: AUDIENCE });
  });
  afterAll(async () => {
    await server?.close();
    await issuer?.close();
  });

  it.each([['FALSE'], [0], ['0'], ['TRUE'], [1], ['yes'], [null], [false], ['false'], [{}]])(
    'refuses email_verified: %j',
    async (value) => {
      const token = await issuer.mint({ email: 'kate@corp.example', email_verified: value });
      const res = await rawRequest(server.url, { body: INITIALIZE, headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      expect(res.json.error.message).toBe('The access token is refused: the access token email address is not verified');
    },
  );

  it.each([[true], ['true'], [undefined]])('accepts email_verified: %j', async (value) => {
    const token = await issuer.mint({ email: 'kate@corp.example', ...(value === undefined ? {} : { email_verified: value }) });
    const client = await connectHttp(server.url, { revision: '2026-07-28' }, { authorization: `Bearer ${token}` });
    try {
      expect((await client.listTools()).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

// A host app reads its user from its own session; here a percent-encoded header stands in for it (headers are Latin-1).
const userOf = (req: IncomingMessage) => {
  const raw = req.headers['x-user'];
  return typeof raw === 'string' ? decodeURIComponent(raw) : undefined;
};

describe("a host application's principal", () => {
  let app: NestExpressApplication;
  let url: string;
  beforeAll(async () => {
    const env = isolatedEnv(google.env);
    const settings = {
      GSC_API_ROOT_URL: env.GSC_API_ROOT_URL,
      GSC_OAUTH_TOKEN_URL: env.GSC_OAUTH_TOKEN_URL,
      GSC_SERVICE_ACCOUNT_KEY: env.GSC_SERVICE_ACCOUNT_KEY,
      GSC_STATE_DIR: env.GSC_STATE_DIR,
    };
    const moduleRef = await Test.createTestingModule({
      imports: [SearchConsoleMcpModule.forRoot({ settings, policy: POLICY, principal: (req: IncomingMessage) => userOf(req) })],
    }).compile();
    app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is compared as written: KATE@corp.example is kate, with kate’s rule', async () => {
    const kate = await connectHttp(url, { revision: '2026-07-28' }, { 'x-user': 'KATE@corp.example' });
    try {
      expect((await kate.listTools()).length).toBe(24);
    } finally {
      await kate.close();
    }
  });

  it.each([
    [
      'a look-alike (the Kelvin sign)',
      KELVIN_KATE,
      'contains characters that Unicode normalisation (NFC or NFKC) would change',
      'principal_not_normalized',
    ],
    ['not plain text', 'kate@corp.example\u200B', 'is not plain text', 'principal_not_plain'],
  ])('is refused with 401 and one sentence when it is %s, and audited', async (_what, user, why, reason) => {
    const res = await rawRequest(url, { body: INITIALIZE, headers: { 'x-user': encodeURIComponent(user) } });
    expect(res.status).toBe(401);
    expect(res.json.error.message).toMatch(
      new RegExp(`^The caller is refused: the principal the host application named ${why.replace(/[()]/g, '\\$&')}`),
    );
    const audit = await app.get(AuditTrail).query({ outcome: 'principal_refused' });
    expect(audit.entries[0]).toMatchObject({ event: 'principal_refused', reason, principal: null });
  });
});

describe('GSC_HTTP_TOKEN: the principal is bound to the token', () => {
  const TOKEN_A = 'bearer-token-of-server-a-0123456789';
  const TOKEN_B = 'bearer-token-of-server-b-0123456789';
  const SECRET = 'one-approval-secret-for-both-servers-0123456789';
  let a: InProcessServer;
  let b: InProcessServer;
  let twin: InProcessServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsc-token-principal-'));
    const shared = { ...google.env, GSC_STATE_DIR: dir, GSC_APPROVAL_SECRET: SECRET };
    a = await startInProcess({ ...shared, GSC_HTTP_TOKEN: TOKEN_A });
    b = await startInProcess({ ...shared, GSC_HTTP_TOKEN: TOKEN_B });
    twin = await startInProcess({ ...shared, GSC_HTTP_TOKEN: TOKEN_A });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await twin?.close();
  });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const deletes = () => google.emulator.apiRequests().filter((r) => r.route === 'sites.delete');

  it('an approval asked on server A is no answer on server B (same store and secret, another token): B asks afresh, nothing is deleted', async () => {
    google.emulator.reset();
    const asked = await modernToolCall(a.url, 'delete_site', { site_url: SEED_PROPERTIES.blog }, { headers: bearer(TOKEN_A) });
    const state = asked.body.result.requestState as string;
    expect(state).toEqual(expect.any(String));
    const onB = await modernToolCall(
      b.url,
      'delete_site',
      { site_url: SEED_PROPERTIES.blog },
      { headers: bearer(TOKEN_B), requestState: state, inputResponses: accept },
    );
    expect(onB.body.error).toBeUndefined();
    expect(onB.body.result.resultType).toBe('input_required');
    expect(deletes()).toHaveLength(0);
    // The same token on another server of the store is the same principal: the approval holds there.
    const onTwin = await modernToolCall(
      twin.url,
      'delete_site',
      { site_url: SEED_PROPERTIES.blog },
      { headers: bearer(TOKEN_A), requestState: state, inputResponses: accept },
    );
    expect(onTwin.body.result.isError).toBeFalsy();
    expect(deletes()).toHaveLength(1);
  });

  it('a confirm token issued on A is refused on B, and still good on A', async () => {
    google.emulator.reset();
    const site = SEED_PROPERTIES.blog;
    const issued = await modernToolCall(a.url, 'delete_site', { site_url: site }, { headers: bearer(TOKEN_A), elicitation: false });
    expect(issued.body.result.structuredContent).toMatchObject({ executed: false, outcome: 'token_issued' });
    const token = issued.body.result.structuredContent.confirm_token as string;
    const onB = await modernToolCall(
      b.url,
      'delete_site',
      { site_url: site, confirm_token: token },
      { headers: bearer(TOKEN_B), elicitation: false },
    );
    expect(onB.body.result.structuredContent).toMatchObject({ executed: false });
    expect(deletes()).toHaveLength(0);
    const onA = await modernToolCall(
      a.url,
      'delete_site',
      { site_url: site, confirm_token: token },
      { headers: bearer(TOKEN_A), elicitation: false },
    );
    expect(onA.body.result.structuredContent).toMatchObject({ executed: true });
    expect(deletes()).toHaveLength(1);
  });

  it('names each server’s principal by a hash of its token, never the token', async () => {
    const principals: string[] = [];
    for (const [server, token] of [
      [a, TOKEN_A],
      [b, TOKEN_B],
      [twin, TOKEN_A],
    ] as const) {
      const res = await fetch(`${server.origin}/admin/audit`);
      const body = (await res.json()) as { entries: { principal: string }[] };
      const raw = JSON.stringify(body);
      expect(raw).not.toContain(token);
      principals.push(...body.entries.map((e) => e.principal));
    }
    const distinct = [...new Set(principals)];
    expect(distinct.length).toBe(2);
    for (const p of distinct) {
      expect(p).toMatch(/^token:[0-9a-f]{16}$/);
    }
  });
});

function policyFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsc-principal-policy-'));
  const file = join(dir, 'policy.json');
  writeFileSync(file, JSON.stringify(POLICY));
  return file;
}
