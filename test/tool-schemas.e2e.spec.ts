import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectStdio } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { listToolsInProcess } from './support/server.js';

// The binary serves tools/list from JSON Schemas converted when it was built
// (scripts/bundle.mjs, src/mcp/tool-catalog.ts); the in-process server converts
// the zod schemas at run time. Both must say exactly the same, also when
// GSC_SITE_URL makes site_url optional and names the default.

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google.emulator.close());

async function fromBinary(env: Record<string, string>) {
  const client = await connectStdio({ ...google.env, ...env }, { revision: '2026-07-28' });
  try {
    return await client.listTools();
  } finally {
    await client.close();
  }
}

const fromSchemas = (env: Record<string, string>) => listToolsInProcess({ ...google.env, ...env });

describe('tool schemas built into the binary', () => {
  it.each([
    ['no default property', {}],
    ['GSC_SITE_URL a domain property', { GSC_SITE_URL: 'sc-domain:example.com' }],
    [
      'GSC_SITE_URL a URL-prefix property with characters a replacement could misread',
      { GSC_SITE_URL: 'https://www.example.com/$&$1%22/' },
    ],
    ['read-only mode', { GSC_READ_ONLY: 'true' }],
  ])('are what the zod schemas convert to: %s', async (_, env: Record<string, string>) => {
    const [built, converted] = await Promise.all([fromBinary(env), fromSchemas(env)]);
    expect(built.length).toBeGreaterThan(0);
    expect(built).toEqual(converted);
    if (env.GSC_SITE_URL) {
      const getSite = built.find((t) => t.name === 'get_site');
      expect(getSite.inputSchema.properties.site_url.description).toContain(`Defaults to ${env.GSC_SITE_URL}.`);
      expect(getSite.inputSchema.required ?? []).not.toContain('site_url');
    }
  });
});
