// Issue 29 break 2: the schema a client receives in tools/list is the schema
// the server applies, in every mode and profile, for the bundled binary (whose
// schemas were converted when it was built) and unbundled code alike. Real
// calls are validated against what tools/list returned with a standard
// JSON-Schema validator (ajv, draft 2020-12), and then sent: the server must
// accept exactly the calls the validator accepts. In connected mode that means
// `google_account` is advertised, since the server takes it; an unknown
// argument (at the top or inside an object) is refused by both, never dropped.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, connectStdio, type TestClient, text } from './support/clients.js';
import { type ConnectedGoogle, grantStoreFor, saveGrant, startConnectedGoogle } from './support/connected-kit.js';
import { isolatedEnv } from './support/env.js';
import type { MintedGrant } from './support/google-grant.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { spawnHttpBinary } from './support/http-binary.js';
import { startInProcess } from './support/server.js';
import { TestIssuer } from './support/test-issuer.js';

const OWNED = SEED_PROPERTIES.owned; // https://www.example.com/
const ALICE = 'alice@example.com';
const AUDIENCE = 'https://mcp.test.example/mcp';
const KATE = 'kate@corp.example';

interface Profile {
  readonly name: string;
  readonly connected: boolean;
  readonly site: boolean;
  /** The environment, given the two emulators and (for a policy) the issuer. */
  env(): Record<string, string>;
  /** OAuth resource-server mode: the caller is kate, under a policy. */
  readonly oauth?: true;
}

interface Call {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** What the advertised schema should say of it (checked too, so that each case tests what it says). */
  readonly valid: boolean;
}

/** The calls tried in a profile: each must be valid for the listed schema exactly when the server accepts it. */
function callsFor(profile: Profile): Call[] {
  const window = { start_date: '2026-10-01', end_date: '2026-10-07' };
  return [
    { tool: 'get_site', args: { site_url: OWNED }, valid: true },
    { tool: 'get_site', args: { site_url: OWNED, bogus: true }, valid: false },
    { tool: 'get_site', args: { site_url: OWNED, google_account: ALICE }, valid: profile.connected },
    { tool: 'get_site', args: {}, valid: profile.site },
    { tool: 'list_sitemaps', args: { site_url: OWNED, google_account: ALICE }, valid: profile.connected },
    { tool: 'list_sites', args: {}, valid: true },
    { tool: 'list_sites', args: { google_account: ALICE }, valid: false }, // takes no property: no account to choose
    { tool: 'query_search_analytics', args: { site_url: OWNED, compare: window }, valid: true },
    { tool: 'query_search_analytics', args: { site_url: OWNED, compare: { ...window, ending: 'x' } }, valid: false },
    { tool: 'query_search_analytics', args: { site_url: OWNED, dimensions: ['query'], google_account: ALICE }, valid: profile.connected },
  ];
}

let google: TestGoogle;
let connected: ConnectedGoogle;
let issuer: TestIssuer;
let grant: MintedGrant;
let policyFile: string;
beforeAll(async () => {
  [google, connected, issuer] = await Promise.all([startGoogle(), startConnectedGoogle(), TestIssuer.start({ audience: AUDIENCE })]);
  grant = await connected.mint(ALICE);
  policyFile = join(mkdtempSync(join(tmpdir(), 'gsc-policy-')), 'policy.json');
  writeFileSync(
    policyFile,
    JSON.stringify({ rules: [{ principals: [KATE], tools: ['essential', 'list_sitemaps', 'query_search_analytics'], sites: [OWNED] }] }),
  );
});
afterAll(async () => {
  await Promise.all([google?.emulator.close(), connected?.close(), issuer?.close()]);
});

const PROFILES: Profile[] = [
  { name: 'the default mode', connected: false, site: false, env: () => google.env },
  { name: 'GSC_SITE_URL', connected: false, site: true, env: () => ({ ...google.env, GSC_SITE_URL: OWNED }) },
  { name: 'read-only', connected: false, site: false, env: () => ({ ...google.env, GSC_READ_ONLY: 'true' }) },
  { name: 'essential', connected: false, site: false, env: () => ({ ...google.env, GSC_ALLOW_TOOLS: 'essential' }) },
  { name: 'connected accounts', connected: true, site: false, env: () => connected.env },
  { name: 'connected accounts and GSC_SITE_URL', connected: true, site: true, env: () => ({ ...connected.env, GSC_SITE_URL: OWNED }) },
  {
    name: 'connected accounts, read-only',
    connected: true,
    site: false,
    env: () => ({ ...connected.env, GSC_READ_ONLY: 'true' }),
  },
  {
    name: 'a per-principal policy (OAuth)',
    connected: false,
    site: false,
    oauth: true,
    env: () => ({ ...google.env, GSC_AUTH_ISSUER: issuer.issuer, GSC_AUTH_AUDIENCE: AUDIENCE, GSC_POLICY_FILE: policyFile }),
  },
];

type Serve = (profile: Profile) => Promise<{ client: TestClient; close: () => Promise<void> }>;

/** The bundled binary (schemas converted at build time): stdio, or HTTP for OAuth. */
const binary: Serve = async (profile) => {
  const env = isolatedEnv(profile.env());
  if (profile.connected) {
    const store = grantStoreFor(env);
    await saveGrant(store, 'local', grant);
  }
  if (profile.oauth) {
    const server = await spawnHttpBinary(env);
    const client = await connectHttp(server.url, { revision: '2026-07-28' }, await bearer());
    return { client, close: async () => (await client.close(), await server.stop()) };
  }
  const client = await connectStdio(env, { revision: '2026-07-28' });
  return { client, close: () => client.close() };
};

/** Unbundled code in this process (schemas converted at run time), over HTTP. */
const unbundled: Serve = async (profile) => {
  const server = await startInProcess(profile.env());
  if (profile.connected) {
    await saveGrant(server.app.get(GrantStore, { strict: false }), 'local', grant);
  }
  const client = await connectHttp(server.url, { revision: '2026-07-28' }, profile.oauth ? await bearer() : {});
  return { client, close: async () => (await client.close(), await server.close()) };
};

const bearer = async () => ({ authorization: `Bearer ${await issuer.mint({ email: KATE, sub: 'sub-kate' })}` });

const ajv = new Ajv2020({ strict: false, allErrors: true });
const refusedAsInput = (result: { isError?: boolean }, said: string) => result.isError === true && /^Input validation error/.test(said);

describe.each([
  ['the bundled binary', binary],
  ['unbundled code', unbundled],
] as const)('%s', (_where, serve) => {
  it.each(PROFILES.map((p) => [p.name, p] as const))(
    'in %s, the server accepts exactly the calls its listed schemas accept',
    async (_name, profile) => {
      const { client, close } = await serve(profile);
      try {
        const listed = new Map((await client.listTools()).map((t: { name: string; inputSchema: object }) => [t.name, t]));
        const tried: string[] = [];
        for (const call of callsFor(profile)) {
          const tool = listed.get(call.tool) as { inputSchema: object } | undefined;
          if (!tool) {
            continue; // not in this profile's listing (read-only, essential, the policy)
          }
          const validByList = ajv.validate(tool.inputSchema, call.args);
          const result = await client.call(call.tool, call.args);
          const said = text(result);
          const acceptedByServer = !refusedAsInput(result, said);
          const label = `${call.tool} ${JSON.stringify(call.args)}`;
          expect([label, validByList]).toEqual([label, call.valid]);
          expect([label, acceptedByServer, said.slice(0, 200)]).toEqual([label, validByList, expect.any(String)]);
          if (!call.valid) {
            expect(said).toMatch(/unknown argument|Required|expected/i);
          }
          tried.push(label);
        }
        expect(tried.length).toBeGreaterThanOrEqual(profile.oauth ? 6 : 5);
        if (profile.connected) {
          // What the server applies in this mode is listed: google_account on the tools that take a property.
          expect(Object.keys((listed.get('get_site') as { inputSchema: { properties: object } }).inputSchema.properties)).toContain(
            'google_account',
          );
        }
      } finally {
        await close();
      }
    },
    30_000,
  );
});
