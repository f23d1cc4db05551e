import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';
import { modernToolCall } from './support/modern-wire.js';

// The HTTP surface as a browser, a proxy or a careless client meets it:
// Host/Origin on every route (DNS rebinding), body limits before parsing,
// and JSON-RPC error bodies for every refusal on the MCP path.

interface Raw {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request by hand: fetch() cannot set Host, or send a body that lies about its length. */
function raw(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'surface', version: '0' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let google: TestGoogle;
let open: HttpBinary;
let withAdminToken: HttpBinary;
const ADMIN = 'admin-token-for-surface-tests-0123456789';

beforeAll(async () => {
  google = await startGoogle();
  [open, withAdminToken] = await Promise.all([spawnHttpBinary(google.env), spawnHttpBinary({ ...google.env, GSC_ADMIN_TOKEN: ADMIN })]);
});
afterAll(async () => {
  await Promise.all([open?.stop(), withAdminToken?.stop()]);
  await google?.emulator.close();
});
beforeEach(() => google.emulator.reset());

const rpcError = (r: Raw) => JSON.parse(r.body) as { jsonrpc: string; error: { code: number; message: string }; id: null };

describe('Host and Origin on every route of a loopback server without tokens', () => {
  const routes = ['/mcp', '/admin/health', '/admin/config', '/admin/audit', '/admin/tools', '/metrics'];
  it.each(
    routes.flatMap(
      (path) =>
        [
          [path, { Host: 'attacker.example' }, 403],
          [path, { Host: 'attacker.example:80' }, 403],
          [path, { Host: 'localhost.attacker.example' }, 403],
          [path, { Host: `127.0.0.1`, Origin: 'http://attacker.example' }, 403],
          [path, { Host: `localhost`, Origin: 'null' }, 403],
        ] as const,
    ),
  )('%s with %j → %i', async (path, headers, status) => {
    const res = await raw(open.origin, path, {
      method: path === '/mcp' ? 'POST' : 'GET',
      headers: { ...MCP_HEADERS, ...headers },
      body: path === '/mcp' ? INIT : undefined,
    });
    expect(res.status).toBe(status);
    expect(res.body).not.toMatch(/gsc-test@|blog\.example\.net|gsc_mcp_tool_calls_total/);
    if (path === '/mcp') {
      expect(rpcError(res)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
    }
  });

  it.each([
    ['/admin/health', { Host: '127.0.0.1' }],
    ['/admin/health', { Host: 'localhost', Origin: 'http://localhost:5173' }],
    ['/metrics', { Host: '[::1]' }],
  ])('%s with %j is served', async (path, headers) => {
    expect((await raw(open.origin, path, { headers })).status).toBe(200);
  });

  it('with GSC_ADMIN_TOKEN the admin routes still refuse a rebinding Host before asking for the token', async () => {
    const res = await raw(withAdminToken.origin, '/admin/config', {
      headers: { Host: 'attacker.example', Authorization: `Bearer ${ADMIN}` },
    });
    expect(res.status).toBe(403);
  });
});

describe('bodies: limits before parsing, JSON-RPC errors on the MCP path', () => {
  // Issue 29 break 8: the 413 used to be written and the socket destroyed with the body unread, so clients read ECONNRESET.
  const oversized = Buffer.alloc(5 * 1024 * 1024, 0x20);
  const expect413 = (res: Raw) => {
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(rpcError(res)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Request too large: the limit is 4 MiB' }, id: null });
  };

  it('a 5 MiB body announced by Content-Length: the client reads the JSON-RPC 413, not a reset', async () => {
    for (let i = 0; i < 3; i++) {
      expect413(
        await raw(open.origin, '/mcp', {
          method: 'POST',
          headers: { ...MCP_HEADERS, 'content-length': String(oversized.length) },
          body: oversized,
        }),
      );
    }
  });

  it('a 5 MiB chunked body, cut off while it streams: the client reads the JSON-RPC 413, not a reset', async () => {
    for (let i = 0; i < 3; i++) {
      expect413(
        await raw(open.origin, '/mcp', { method: 'POST', headers: { ...MCP_HEADERS, 'transfer-encoding': 'chunked' }, body: oversized }),
      );
    }
  });

  it('fetch (undici, what the MCP clients use) reads the 413 for a streamed body too, and the server still answers afterwards', async () => {
    const chunks = async function* () {
      for (let sent = 0; sent < oversized.length; sent += 256 * 1024) {
        yield oversized.subarray(sent, sent + 256 * 1024);
      }
    };
    const res = await fetch(`${open.origin}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: ReadableStream.from(chunks()),
      duplex: 'half',
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
    expect((await raw(open.origin, '/mcp', { method: 'POST', headers: MCP_HEADERS, body: INIT })).status).toBe(200);
  });

  it('a declared length far past what is drained is still answered first, then the connection is closed', async () => {
    // 1 GiB announced, 12 MiB sent: the server drains at most 8 MiB past the limit, then closes.
    const res = await new Promise<Raw | NodeJS.ErrnoException>((resolve) => {
      const req = request(
        `${open.origin}/mcp`,
        { method: 'POST', headers: { ...MCP_HEADERS, 'content-length': String(1024 ** 3) } },
        (r) => {
          let body = '';
          r.setEncoding('utf8');
          r.on('data', (chunk: string) => (body += chunk));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body }));
          r.on('error', resolve);
        },
      );
      req.on('error', () => undefined); // the close while still sending; the answer came first
      req.write(Buffer.alloc(12 * 1024 * 1024, 0x20));
    });
    expect(res).toMatchObject({ status: 413 });
    expect413(res as Raw);
  });

  it('a body of 3 MiB is accepted (the limit is 4 MiB, not Express’s 100 kB)', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x'.repeat(3 * 1024 * 1024), version: '0' } },
    });
    const res = await raw(open.origin, '/mcp', { method: 'POST', headers: MCP_HEADERS, body: big });
    expect(res.status).toBe(200);
  });

  it.each([
    ['invalid JSON', { ...MCP_HEADERS }, '{"jsonrpc": "2.0", "id": 1, "method": ', 400, -32700],
    ['a truncated body', { ...MCP_HEADERS }, INIT.slice(0, 40), 400, -32700],
    ['the wrong content type', { ...MCP_HEADERS, 'content-type': 'text/plain' }, INIT, 415, -32600],
    ['a JSON-RPC batch', { ...MCP_HEADERS }, `[${INIT}]`, 400, -32600],
  ])('%s → %i with a JSON-RPC error %i', async (_name, headers, body, status, code) => {
    const res = await raw(open.origin, '/mcp', { method: 'POST', headers, body });
    expect(res.status).toBe(status);
    expect(rpcError(res)).toMatchObject({ jsonrpc: '2.0', error: { code }, id: null });
  });

  it('a JSON-RPC batch inside a 2025 session is refused too', async () => {
    const init = await raw(open.origin, '/mcp', { method: 'POST', headers: MCP_HEADERS, body: INIT });
    const session = init.headers['mcp-session-id'] as string;
    expect(session).toBeTruthy();
    const batch = JSON.stringify([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    const res = await raw(open.origin, '/mcp', {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: batch,
    });
    expect(res.status).toBe(400);
    expect(rpcError(res).error.code).toBe(-32600);
  });

  it('a body of more than 64 KiB anywhere but /mcp is refused before it is parsed, and the client reads the 413', async () => {
    const res = await raw(open.origin, '/admin/health', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x: 'y'.repeat(70_000) }),
    });
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toEqual({ statusCode: 413, message: 'Request too large: the limit is 64 KiB' });
  });
});

describe('approval state on the wire', () => {
  it('a requestState that is not a string is no answer: a fresh question, never a JSON-RPC error', async () => {
    for (const requestState of [{ forged: true }, 42, ['a'], null]) {
      const res = await modernToolCall(
        open.url,
        'delete_site',
        { site_url: SEED_PROPERTIES.blog },
        { requestState, inputResponses: { approval: { action: 'accept', content: { confirm: true } } } },
      );
      expect(res.status).toBe(200);
      expect(res.body.error).toBeUndefined();
      expect(res.body.result.resultType).toBe('input_required');
    }
    expect(google.emulator.apiRequests().filter((r) => r.route === 'sites.delete')).toHaveLength(0);
  });
});
