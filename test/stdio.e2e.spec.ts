import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectStdio, text } from './support/clients.js';
import { isolatedEnv, MAIN } from './support/env.js';
import { startGoogle, type TestGoogle } from './support/google.js';

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google.emulator.close());
beforeEach(() => google.emulator.reset());

describe.each(['2025-11-25', '2026-07-28'] as const)('the built binary over stdio, client speaking %s', (revision) => {
  it('lists every tool with a title, all four annotations and an object output schema', async () => {
    const client = await connectStdio(google.env, { revision });
    try {
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_sites', 'get_site', 'add_site']));
      for (const tool of tools) {
        expect(tool.title).toEqual(expect.any(String));
        expect(tool.description).toEqual(expect.any(String));
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
          expect(typeof tool.annotations[hint]).toBe('boolean');
        }
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema.type).toBe('object');
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(byName.list_sites.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(byName.add_site.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
      expect(byName.delete_site.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    } finally {
      await client.close();
    }
  });

  it('list_sites, get_site and add_site reach Google with the right requests and answer with structured content', async () => {
    const client = await connectStdio(google.env, { revision });
    try {
      const listed = await client.call('list_sites');
      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent?.sites).toEqual(
        expect.arrayContaining([
          { site_url: SEED_PROPERTIES.owned, permission_level: 'siteOwner' },
          { site_url: SEED_PROPERTIES.domain, permission_level: 'siteOwner' },
        ]),
      );
      expect(text(listed)).toContain(SEED_PROPERTIES.owned);

      const got = await client.call('get_site', { site_url: 'SC-DOMAIN:Example.com' });
      expect(got.structuredContent).toEqual({ site_url: 'sc-domain:example.com', permission_level: 'siteOwner' });

      const added = await client.call('add_site', { site_url: 'https://new.example.com' });
      expect(added.isError).toBeFalsy();
      expect(added.structuredContent).toMatchObject({ site_url: 'https://new.example.com/', added: true });

      const calls = google.emulator.apiRequests().map((r) => `${r.method} ${r.rawPath}`);
      expect(calls).toEqual([
        'GET /webmasters/v3/sites',
        'GET /webmasters/v3/sites/sc-domain%3Aexample.com',
        'PUT /webmasters/v3/sites/https%3A%2F%2Fnew.example.com%2F',
        'GET /webmasters/v3/sites/https%3A%2F%2Fnew.example.com%2F',
      ]);
      const grant = google.emulator.tokenGrants.at(-1)!;
      expect(grant).toMatchObject({ ok: true, grantType: 'jwt-bearer', principal: google.clientEmail });
    } finally {
      await client.close();
    }
  });

  it('answers an unknown tool with a JSON-RPC error, not a tool result', async () => {
    const client = await connectStdio(google.env, { revision });
    try {
      await expect(client.raw.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });
});

describe('stdio hygiene', () => {
  it('writes nothing but JSON-RPC to stdout, logs go to stderr', async () => {
    const child = spawn(process.execPath, [MAIN], { env: isolatedEnv(google.env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_sites', arguments: {} } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_site', arguments: { site_url: 'example.com' } } });
    await waitFor(() => /"id":3\b/.test(stdout) && /"id":4\b/.test(stdout));
    child.stdin.end();
    await new Promise((resolve) => child.on('exit', resolve));

    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    }
    expect(stderr).toMatch(/serving stdio; credential: service_account gsc-test@/);
    expect(stderr).not.toContain('PRIVATE KEY');
    const bad = lines.map((line) => JSON.parse(line)).find((m) => m.id === 4);
    expect(bad.result.isError).toBe(true);
    expect(bad.result.content[0].text).toMatch(/bare hostname/);
  });

  it('without any credential still starts, lists tools, and answers calls with setup instructions', async () => {
    const client = await connectStdio({}, { revision: '2026-07-28' });
    try {
      expect((await client.listTools()).length).toBeGreaterThan(0);
      const result = await client.call('list_sites');
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/no Google credential.*GSC_SERVICE_ACCOUNT_KEY/s);
    } finally {
      await client.close();
    }
  });
});

// The same rule as over HTTP (test/http-surface.e2e.spec.ts, 'approval state on the wire'): it is
// applied where both transports meet, the MCP server every transport is served by.
describe('approval state on the stdio wire (2026-07-28)', () => {
  it('a requestState that is not a string is no answer: a fresh question, never a JSON-RPC error', async () => {
    const child = spawn(process.execPath, [MAIN], { env: isolatedEnv(google.env) });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'wire-test', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    const accept = { approval: { action: 'accept', content: { confirm: true } } };
    const states: unknown[] = [{ forged: true }, 42, ['a'], null, 'not-a-seal'];
    try {
      states.forEach((requestState, i) => {
        const params = {
          name: 'delete_site',
          arguments: { site_url: SEED_PROPERTIES.blog },
          requestState,
          inputResponses: accept,
          _meta: meta,
        };
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params })}\n`);
      });
      await waitFor(() => stdout.split('\n').filter(Boolean).length >= states.length);
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.on('exit', resolve));
    }
    const answers = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(answers.map((a) => a.id).sort()).toEqual(states.map((_, i) => i + 1));
    for (const answer of answers) {
      expect(answer.error).toBeUndefined();
      expect(answer.result.resultType).toBe('input_required');
      expect(answer.result.requestState).toEqual(expect.any(String));
    }
    expect(google.emulator.apiRequests().filter((r) => r.route === 'sites.delete')).toHaveLength(0);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 15000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) {
      throw new Error('timed out');
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
