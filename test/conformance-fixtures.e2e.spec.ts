import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectHttp, text, type TestClient } from './support/clients.js';
import { modernToolCall } from './support/modern-wire.js';
import { type InProcessServer, startInProcess } from './support/server.js';

// GSC_CONFORMANCE_FIXTURES (npm run conformance runs the official suite over them): switched on, the
// fixtures are tools like ours and the extra capabilities are declared; switched off, nothing of them
// is listed or declared. No Google request is made: the emulator's URLs only have to be on loopback.
const EMULATOR_URLS = { GSC_API_ROOT_URL: 'http://127.0.0.1:9', GSC_OAUTH_TOKEN_URL: 'http://127.0.0.1:9/token' };
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;

describe.each([
  ['on', { ...EMULATOR_URLS, GSC_CONFORMANCE_FIXTURES: 'true' }],
  ['off', EMULATOR_URLS],
])('conformance fixtures %s', (state, env) => {
  const on = state === 'on';
  let server: InProcessServer;
  const clients = new Map<string, TestClient>();

  beforeAll(async () => {
    server = await startInProcess(env);
    for (const revision of REVISIONS) {
      clients.set(revision, await connectHttp(server.url, { revision }));
    }
  });
  afterAll(async () => {
    for (const client of clients.values()) {
      await client.close();
    }
    await server?.close();
  });

  it.each(REVISIONS)('declares prompts, completions and logging only with them (%s)', (revision) => {
    const capabilities = clients.get(revision)!.raw.getServerCapabilities();
    expect(capabilities.tools).toBeDefined();
    for (const capability of ['prompts', 'completions', 'logging']) {
      expect(capabilities[capability] !== undefined).toBe(on);
    }
    // Resource subscriptions were removed in 2026-07-28: only a 2025-11-25 session gets them.
    expect(capabilities.resources?.subscribe === true).toBe(on && revision === '2025-11-25');
  });

  it.each(REVISIONS)('lists the fixtures as read tools only with them (%s)', async (revision) => {
    const tools = await clients.get(revision)!.listTools();
    const fixtures = tools.filter((t) => t.name.startsWith('test_') || t.name === 'json_schema_2020_12_tool');
    expect(fixtures.length > 0).toBe(on);
    for (const tool of fixtures) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(tools.some((t) => t.name === 'list_sites')).toBe(true);
  });

  it.each(REVISIONS)('serves prompts only with them (%s)', async (revision) => {
    // Without the capability the v1 client gets -32601 and the v2 client does not even ask: no prompts either way.
    const listing = clients.get(revision)!.raw.listPrompts() as Promise<{ prompts: { name: string }[] }>;
    const names = await listing.then(
      (r) => r.prompts.map((p) => p.name),
      (): string[] => [],
    );
    expect(names.includes('test_prompt_with_arguments')).toBe(on);
  });

  if (on) {
    it('answers a fixture that fails through our dispatcher: an isError sentence, not a JSON-RPC error', async () => {
      const result = await clients.get('2026-07-28')!.call('test_error_handling');
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/intentionally returns an error.*Nothing was changed/);
    });

    it('refuses a tampered requestState with a JSON-RPC error (-32602), where the approval flow would ask again', async () => {
      const first = await modernToolCall(server.url, 'test_input_required_result_tampered_state', {});
      expect(first.body.result.resultType).toBe('input_required');
      const state = first.body.result.requestState as string;
      const confirm = { confirm: { action: 'accept', content: { ok: true } } };
      const good = await modernToolCall(
        server.url,
        'test_input_required_result_tampered_state',
        {},
        { inputResponses: confirm, requestState: state },
      );
      expect(good.body.result.content[0].text).toBe('integrity-ok: state verified');
      const forged = await modernToolCall(
        server.url,
        'test_input_required_result_tampered_state',
        {},
        {
          inputResponses: confirm,
          requestState: `${state}-TAMPERED`,
        },
      );
      expect(forged.body.error).toMatchObject({ code: -32602 });
      expect(forged.body.result).toBeUndefined();
    });
  }
});
