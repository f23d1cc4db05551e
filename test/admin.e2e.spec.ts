import { describe, expect, it } from '@jest/globals';
import { connectHttp } from './support/clients.js';
import { startGoogle } from './support/google.js';
import { startInProcess } from './support/server.js';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

describe('operations endpoints', () => {
  it('report health, readiness, tools, configuration and metrics, with secrets redacted', async () => {
    const google = await startGoogle();
    const server = await startInProcess({
      ...google.env,
      GSC_DENY_TOOLS: 'request_indexing,get_indexing_status',
      GSC_APPROVAL_SECRET: 'approval-secret-0123456789-0123456789',
      GSC_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    const get = (path: string, token = ADMIN_TOKEN) =>
      fetch(`${server.origin}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    try {
      expect((await get('/admin/health', '')).status).toBe(401);
      expect((await get('/admin/health', 'wrong-token-wrong-token')).status).toBe(401);
      expect(await (await get('/admin/health')).json()).toMatchObject({ status: 'ok' });

      const ready = await get('/admin/ready');
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', credential: 'service_account', state: expect.stringMatching(/^SQLite in \//) });

      const tools = (await (await get('/admin/tools')).json()) as { registered: { name: string; guarded: boolean }[]; excluded: unknown[] };
      expect(tools.registered.filter((t) => t.guarded).map((t) => t.name)).toEqual([
        'delete_site',
        'delete_sitemap',
        'unverify_site',
        'update_site_owners',
      ]);
      expect(tools.excluded).toEqual([
        { name: 'get_indexing_status', reason: 'denied by GSC_DENY_TOOLS entry "get_indexing_status"' },
        { name: 'request_indexing', reason: 'denied by GSC_DENY_TOOLS entry "request_indexing"' },
      ]);

      const configText = await (await get('/admin/config')).text();
      const config = JSON.parse(configText);
      expect(config.credential).toMatchObject({ kind: 'service_account', principal: google.clientEmail });
      expect(config.approval_secret).toBe('set');
      expect(config.http.admin_token).toBe('set');
      expect(config.scopes).not.toContain('https://www.googleapis.com/auth/indexing');
      expect(configText).not.toMatch(/PRIVATE KEY|approval-secret-0123|admin-token-for-tests/);

      const client = await connectHttp(server.url, { revision: '2026-07-28' });
      await client.call('list_sites');
      await client.call('get_site', { site_url: 'https://not-mine.example/' });
      await client.call('delete_site', { site_url: 'https://blog.example.net/' });
      await client.close();
      const metrics = await (await get('/metrics')).text();
      expect(metrics).toContain('gsc_mcp_tool_calls_total{tool="list_sites",outcome="ok"} 1');
      expect(metrics).toContain('gsc_mcp_tool_calls_total{tool="get_site",outcome="error"} 1');
      expect(metrics).toContain('gsc_mcp_google_errors_total{status="403"} 1');
      expect(metrics).toContain('gsc_mcp_approvals_total{event="token_issued"} 1');
      expect(metrics).toMatch(/gsc_mcp_tool_call_seconds_bucket\{le="[\d.]+",tool="list_sites"\}/);

      const openapi = (await (await get('/admin/openapi.json')).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(openapi.paths)).toEqual(
        expect.arrayContaining(['/admin/health', '/admin/ready', '/admin/tools', '/admin/config', '/admin/audit', '/metrics']),
      );
    } finally {
      await server.close();
      await google.emulator.close();
    }
  });

  it('/admin/ready answers 503 when the credential cannot mint a token', async () => {
    const google = await startGoogle();
    const server = await startInProcess({ ...google.env, GSC_IMPERSONATE: 'nobody@example.com' });
    try {
      const res = await fetch(`${server.origin}/admin/ready`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'error', reason: expect.stringMatching(/unauthorized_client/) });
    } finally {
      await server.close();
      await google.emulator.close();
    }
  });
});
