import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REQUIRED_NODE } from '../src/common/node-version.js';
import { findOldNode } from './support/old-node.js';

// Every entry point on a Node older than the engines range: one line naming
// the running and the required version, exit 1, before anything else loads
// (no ERR_UNKNOWN_BUILTIN_MODULE stack). Run with the machine's own old Node
// (Debian's is 20); the repository's pinned Node is 24. No old Node is a
// failure (findOldNode throws), not a skip.

const DIST = resolve(import.meta.dirname, '../dist');
const old = findOldNode();
const sentence = (text: string) => {
  expect(text).toContain(`this is Node.js ${old.version}`);
  expect(text).toContain(`Node.js ${REQUIRED_NODE.replace(/\.0$/, '')} or newer`);
};

describe(`on the machine's old Node (${old.version})`, () => {
  const run = (args: string[], input?: string) =>
    spawnSync(old.path, args, {
      encoding: 'utf8',
      cwd: mkdtempSync(join(tmpdir(), 'gsc-old-node-')),
      env: { PATH: process.env.PATH ?? '', HOME: mkdtempSync(join(tmpdir(), 'gsc-home-')) },
      timeout: 20000,
      ...(input === undefined ? {} : { input }),
    });

  it.each([
    ['the bin (dist/main.js)', ['main.js']],
    ['the bin with --http', ['main.js', '--http']],
    ['npm run demo (dist/demo.js)', ['demo.js']],
    ['the container healthcheck', ['healthcheck.js']],
  ])('%s prints one line naming both versions and exits 1', (_, [file, ...args]) => {
    const result = run([join(DIST, file), ...args]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    sentence(lines[0]);
  });

  it('the library import (google-search-console-mcp/nest) throws one clear Error', () => {
    const entry = join(DIST, 'search-console-mcp.module.js');
    const script = `import(${JSON.stringify(entry)}).then(() => console.log('loaded'), (e) => console.log(JSON.stringify({ name: e.name, message: e.message, code: e.code ?? null })))`;
    const result = run(['--input-type=module', '-e', script]);
    expect(result.status).toBe(0);
    const error = JSON.parse(result.stdout.trim()) as { name: string; message: string; code: string | null };
    expect(error).toEqual({ name: 'Error', message: expect.stringContaining(`this is Node.js ${old.version}`), code: null });
    expect(error.message).not.toMatch(/ERR_|sqlite'/);
  });

  it('over stdio, the first request gets the line as its JSON-RPC error (notifications and noise before it are skipped); stdout carries only that', () => {
    const input = [
      'not json',
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}',
      '{"jsonrpc":"2.0","id":"a-1","method":"initialize","params":{}}',
      '',
    ];
    const result = run([join(DIST, 'main.js')], input.join('\n'));
    expect(result.status).toBe(1);
    sentence(result.stderr.trim());
    const lines = result.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const answer = JSON.parse(lines[0]) as { jsonrpc: string; id: unknown; error: { code: number; message: string; data: unknown } };
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 'a-1',
      error: { code: -32603, message: result.stderr.trim(), data: { running: old.version, required: REQUIRED_NODE } },
    });
  });

  it('over stdio, a client that never writes a request is let go: the line, exit 1, nothing on stdout', () => {
    const result = run([join(DIST, 'main.js')], '{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    sentence(result.stderr.trim());
  });
});

// What a person sees in their client: the SDKs' connect error carries the server's message. Before, every client
// showed only "Connection closed", as none shows a server's stderr.
describe('a real MCP client spawning the bin on the old Node shows the line', () => {
  const params = () => ({
    command: old.path,
    args: [join(DIST, 'main.js')],
    env: { PATH: process.env.PATH ?? '', HOME: mkdtempSync(join(tmpdir(), 'gsc-home-')) },
    stderr: 'pipe' as const,
  });
  const info = { name: 'old-node-test-client', version: '1.0.0' };

  async function connectError(client: { connect(transport: never): Promise<void>; close(): Promise<void> }, transport: unknown) {
    try {
      await client.connect(transport as never);
    } catch (error) {
      return error as Error;
    } finally {
      await client.close().catch(() => undefined);
    }
    throw new Error('the client connected to a server on an old Node');
  }

  it('v1 (@modelcontextprotocol/sdk, 2025-11-25 initialize)', async () => {
    const error = await connectError(new V1Client(info), new V1StdioTransport(params()));
    sentence(error.message);
    expect(error.message).toMatch(/^MCP error -32603: google-search-console-mcp needs Node\.js/);
  });

  it.each([
    ['its default (legacy initialize)', undefined],
    ['auto (a server/discover probe on a throw-away sibling, then initialize)', { mode: 'auto' as const }],
    ['pinned to 2026-07-28 (server/discover only)', { mode: { pin: '2026-07-28' as const } }],
  ])('v2 (@modelcontextprotocol/client), %s', async (_, versionNegotiation) => {
    const client = new V2Client(info, versionNegotiation ? { versionNegotiation } : {});
    const error = await connectError(client, new V2StdioTransport(params()));
    sentence(error.message);
    expect(error.message).not.toMatch(/Connection closed|Version negotiation failed/);
  });
});
