import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectStdio } from './support/clients.js';
import { type ConnectedGoogle, startConnectedGoogle } from './support/connected-kit.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { listToolsInProcess } from './support/server.js';

// The binary serves tools/list from JSON Schemas converted when it was built
// (scripts/bundle.mjs, src/tools/tool-catalog.ts); the in-process server converts
// the zod schemas at run time. Both must say exactly the same, in every
// variant of the schemas: GSC_SITE_URL making site_url optional and naming the
// default, connected accounts adding google_account and their own output
// schemas (issue 29), and both together. test/advertised-schemas.e2e.spec.ts
// checks that what is listed is what the server applies.

let google: TestGoogle;
let connected: ConnectedGoogle;
beforeAll(async () => {
  [google, connected] = await Promise.all([startGoogle(), startConnectedGoogle()]);
});
afterAll(async () => {
  await Promise.all([google.emulator.close(), connected.close()]);
});

async function fromBinary(env: Record<string, string>) {
  const client = await connectStdio(env, { revision: '2026-07-28' });
  try {
    return await client.listTools();
  } finally {
    await client.close();
  }
}

describe('tool schemas built into the binary', () => {
  it.each([
    ['no default property', () => google.env],
    ['GSC_SITE_URL a domain property', () => ({ ...google.env, GSC_SITE_URL: 'sc-domain:example.com' })],
    [
      'GSC_SITE_URL a URL-prefix property with characters a replacement could misread',
      () => ({ ...google.env, GSC_SITE_URL: 'https://www.example.com/$&$1%22/' }),
    ],
    ['read-only mode', () => ({ ...google.env, GSC_READ_ONLY: 'true' })],
    ['connected accounts', () => connected.env],
    ['connected accounts with GSC_SITE_URL', () => ({ ...connected.env, GSC_SITE_URL: 'https://www.example.com/' })],
    ['connected accounts, read-only, essential', () => ({ ...connected.env, GSC_READ_ONLY: 'true', GSC_ALLOW_TOOLS: 'essential' })],
  ])('are what the zod schemas convert to: %s', async (_, envOf: () => Record<string, string>) => {
    const env = envOf();
    const [built, converted] = await Promise.all([fromBinary(env), listToolsInProcess(env)]);
    expect(built.length).toBeGreaterThan(0);
    expect(built).toEqual(converted);
    const getSite = built.find((t) => t.name === 'get_site');
    if (env.GSC_SITE_URL) {
      expect(getSite.inputSchema.properties.site_url.description).toContain(`Defaults to ${env.GSC_SITE_URL}.`);
      expect(getSite.inputSchema.required ?? []).not.toContain('site_url');
    }
    expect(Object.keys(getSite.inputSchema.properties).includes('google_account')).toBe(env.GSC_GOOGLE_OAUTH_CLIENT_ID !== undefined);
  });
});
