import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectHttp } from './support/clients.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';

const DEMO = resolve(import.meta.dirname, '../dist/demo.js');
let demo: HttpBinary;

beforeAll(async () => {
  demo = await spawnHttpBinary({}, [DEMO]);
  for (let i = 0; i < 200 && !demo.stderr().includes('Press Ctrl+C'); i++) await new Promise((r) => setTimeout(r, 25));
});
afterAll(() => demo.stop());

describe('npm run demo', () => {
  it('prints how to connect', () => {
    expect(demo.stderr()).toContain(`MCP endpoint (Streamable HTTP, 2025-11-25 and 2026-07-28):  ${demo.url}`);
    expect(demo.stderr()).toMatch(/claude mcp add --transport http gsc-demo http:\/\/127\.0\.0\.1:\d+\/mcp/);
  });

  it.each(['2025-11-25', '2026-07-28'] as const)('lets a %s client list the seeded properties', async (revision) => {
    const client = await connectHttp(demo.url, { revision });
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent?.sites).toContainEqual({ site_url: 'https://www.example.com/', permission_level: 'siteOwner' });
    } finally {
      await client.close();
    }
  });
});
