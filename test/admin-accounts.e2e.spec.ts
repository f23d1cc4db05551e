// Ops over connected accounts (PRODUCT.md §8d, §8): GET /admin/accounts lists
// the principals with Google grants from the grant store's index, never a
// token; DELETE /admin/accounts/{principal}/{account} revokes at Google (the
// emulator's /revoke) then deletes, audited, and the person's next call asks
// them to connect again. A Nest host app names each caller (x-user); the
// operations routes need the admin token. Once on SQLite, once on Redis.
// Google's revocation endpoint is reached through a small gate that can
// answer 503 like an outage, to show that nothing is deleted then.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { SearchConsoleMcpModule } from '../src/search-console-mcp.module.js';
import { connectHttp, text } from './support/clients.js';
import { type ConnectedGoogle, linkClientHttp, OAUTH_CLIENT, saveGrant, startConnectedGoogle } from './support/connected-kit.js';
import { isolatedEnv } from './support/env.js';
import { startGoogle } from './support/google.js';
import type { MintedGrant } from './support/google-grant.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { startInProcess } from './support/server.js';

const ANN = 'ann@corp.example';
const BEN = 'ben@corp.example';
const ADMIN_TOKEN = 'admin-token-for-the-accounts-spec-0123456789';
const GRANT_KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;

interface AccountsBody {
  principals: {
    principal: string;
    accounts: {
      google_email: string;
      google_sub: string;
      status: string;
      scopes: string[];
      connected_at: string;
      last_used: string | null;
    }[];
  }[];
  count: { principals: number; accounts: number };
}

/** Google's revocation endpoint as the server reaches it: the emulator's, or a 503 while `failing`. */
async function revocationGate(target: string): Promise<{ url: string; failing: boolean; server: Server }> {
  const gate = { url: '', failing: false, server: createServer() };
  gate.server.on('request', (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (gate.failing) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"backend_error"}');
        return;
      }
      void fetch(target, {
        method: 'POST',
        headers: { 'content-type': String(req.headers['content-type']) },
        body: Buffer.concat(chunks),
      }).then(async (answer) => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()));
    });
  });
  await new Promise<void>((resolve) => gate.server.listen(0, '127.0.0.1', resolve));
  gate.url = `http://127.0.0.1:${(gate.server.address() as { port: number }).port}/revoke`;
  return gate;
}

describe.each(['SQLite', 'Redis'])('connected accounts for ops, state on %s', (kind) => {
  let google: ConnectedGoogle;
  let redis: RedisServer | undefined;
  let gate: Awaited<ReturnType<typeof revocationGate>>;
  let app: NestExpressApplication;
  let origin: string;
  let grants: GrantStore;
  let alice: MintedGrant;
  let bob: MintedGrant;
  let carol: MintedGrant;

  beforeAll(async () => {
    google = await startConnectedGoogle();
    gate = await revocationGate(google.env.GSC_OAUTH_REVOKE_URL);
    redis = kind === 'Redis' ? await startRedisServer() : undefined;
    const env = isolatedEnv({ ...google.env, GSC_OAUTH_REVOKE_URL: gate.url });
    const settings = Object.fromEntries(Object.keys(google.env).map((name) => [name, env[name]]));
    const moduleRef = await Test.createTestingModule({
      imports: [
        SearchConsoleMcpModule.forRoot({
          settings: {
            ...settings,
            GSC_STATE_DIR: env.GSC_STATE_DIR,
            GSC_ADMIN_TOKEN: ADMIN_TOKEN,
            ...(redis ? { GSC_REDIS_URL: redis.url, GSC_GRANT_ENCRYPTION_KEYS: GRANT_KEYS } : {}),
          },
          admin: { path: 'admin' },
          principal: (req: IncomingMessage) => (typeof req.headers['x-user'] === 'string' ? req.headers['x-user'] : undefined),
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
    await app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
    grants = app.get(GrantStore, { strict: false });
    [alice, bob, carol] = [
      await google.mint('alice@example.com'),
      await google.mint('bob@example.net'),
      await google.mint('carol@example.org'),
    ];
    await saveGrant(grants, ANN, alice);
    await saveGrant(grants, BEN, bob);
    await saveGrant(grants, BEN, carol);
  });
  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => gate?.server.close(resolve));
    await redis?.stop();
    await google?.close();
  });

  const admin = (path: string, init: RequestInit = {}, token: string | null = ADMIN_TOKEN) =>
    fetch(`${origin}/admin${path}`, { ...init, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const accounts = async () => {
    const res = await admin('/accounts');
    expect(res.status).toBe(200);
    const raw = await res.text();
    return { raw, body: JSON.parse(raw) as AccountsBody };
  };
  /** Whether Google still honours the refresh token (the emulator's token endpoint). */
  const refreshAnswer = async (grant: MintedGrant) => {
    const res = await fetch(google.emulator.tokenUrl, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: grant.refreshToken, ...clientForm() }),
    });
    return res.ok ? 'ok' : ((await res.json()) as { error: string }).error;
  };
  const clientForm = () => ({ client_id: OAUTH_CLIENT.clientId, client_secret: OAUTH_CLIENT.clientSecret });

  it('refuses the accounts routes without the admin token, or with another one', async () => {
    expect((await admin('/accounts', {}, null)).status).toBe(401);
    expect((await admin('/accounts', {}, 'not-the-token')).status).toBe(401);
    expect((await admin(`/accounts/${ANN}/alice@example.com`, { method: 'DELETE' }, null)).status).toBe(401);
    expect(await refreshAnswer(alice)).toBe('ok');
  });

  it("lists each principal's Google accounts with scopes, connected at and last use, and no token anywhere", async () => {
    // Ann calls a tool: her grant is used (last use), the ledger and the trail name alice.
    const client = await linkClientHttp(`${origin}/mcp`, { revision: '2026-07-28', headers: { 'x-user': ANN } });
    try {
      const inspected = await client.call('inspect_url', { site_url: SEED_PROPERTIES.owned, url: `${SEED_PROPERTIES.owned}docs/` });
      expect(inspected.isError).toBeFalsy();
      const published = await client.call('request_indexing', { url: `${SEED_PROPERTIES.owned}docs/`, type: 'URL_UPDATED' });
      expect(published.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const { raw, body } = await accounts();
    for (const secret of [alice, bob, carol].flatMap((g) => [g.refreshToken, g.accessToken])) {
      expect(raw).not.toContain(secret);
    }
    expect(raw).not.toMatch(/refresh_?token|access_?token/i);
    expect(body.count).toEqual({ principals: 2, accounts: 3 });
    const byPrincipal = Object.fromEntries(body.principals.map((p) => [p.principal, p.accounts]));
    expect(byPrincipal[ANN]).toEqual([
      {
        google_email: 'alice@example.com',
        google_sub: alice.sub,
        status: 'connected',
        scopes: alice.scopes,
        connected_at: expect.any(String),
        last_used: expect.any(String),
      },
    ]);
    expect(byPrincipal[BEN].map((a) => [a.google_email, a.google_sub, a.status, a.last_used]).sort()).toEqual([
      ['bob@example.net', bob.sub, 'connected', null],
      ['carol@example.org', carol.sub, 'connected', null],
    ]);

    const quota = (await (await admin('/quota')).json()) as { inspection: { property: string; google_accounts?: unknown }[] };
    expect(quota.inspection.find((q) => q.property === SEED_PROPERTIES.owned)?.google_accounts).toEqual([
      { account: 'alice@example.com', used: 1 },
    ]);
    // Indexing counts against the OAuth client's project (the server's, one for everyone), per account beside it.
    const projects = (await (await admin('/quota')).json()) as { indexing_publish: { project?: string; google_accounts?: unknown }[] };
    expect(projects.indexing_publish).toEqual([
      expect.objectContaining({
        project: expect.stringMatching(/project number 123456789012/),
        google_accounts: [{ account: 'alice@example.com', used: 1 }],
      }),
    ]);
    // A person reading gsc://quota (Ben, who may read the same property) is not shown other people's Google accounts.
    const ben = await connectHttp(`${origin}/mcp`, { revision: '2026-07-28' }, { 'x-user': BEN });
    try {
      const read = (await ben.raw.readResource({ uri: 'gsc://quota' })) as { contents: { text: string }[] };
      const seen = JSON.parse(read.contents[0].text) as { inspection: { property: string }[] };
      expect(seen.inspection.find((q) => q.property === SEED_PROPERTIES.owned)).toMatchObject({ day: { used: 1 } });
      expect(read.contents[0].text).not.toContain('alice@example.com');
    } finally {
      await ben.close();
    }
    const audit = (await (await admin(`/audit?principal=${ANN}&outcome=google_call`)).json()) as { entries: { google_account?: string }[] };
    expect(audit.entries.length).toBeGreaterThan(0);
    expect(new Set(audit.entries.map((e) => e.google_account))).toEqual(new Set(['alice@example.com']));
  });

  it('answers 404 with a sentence for an unknown principal or account, changing nothing', async () => {
    for (const path of [`/accounts/${ANN}/bob@example.net`, `/accounts/nobody@corp.example/alice@example.com`]) {
      const res = await admin(path, { method: 'DELETE' });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { reason: string }).reason).toMatch(/has no connected Google account .*nothing was changed/);
    }
    expect((await accounts()).body.count).toEqual({ principals: 2, accounts: 3 });
  });

  it('answers 400 for a look-alike principal (a full-width A: NFKC makes it ann), never folding it onto ann', async () => {
    const res = await admin(`/accounts/${encodeURIComponent('\uFF21nn@corp.example')}/alice@example.com`, { method: 'DELETE' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { reason: string }).reason).toBe(
      'The principal "\\u{FF21}nn@corp.example" contains characters that Unicode normalisation (NFC or NFKC) would change, such as the Kelvin sign or a full-width letter; a look-alike spelling is refused, never taken for another principal; such a principal is refused at sign-in, so no caller is named so. Nothing was looked up or changed.',
    );
    expect((await accounts()).body.count).toEqual({ principals: 2, accounts: 3 });
  });

  it('keeps the grant when Google cannot revoke it (503), and says so', async () => {
    gate.failing = true;
    try {
      const res = await admin(`/accounts/${BEN}/${carol.sub}`, { method: 'DELETE' });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { reason: string }).reason).toMatch(
        /answered HTTP 503, so carol@example\.org was not disconnected and nothing was deleted/,
      );
    } finally {
      gate.failing = false;
    }
    expect(await refreshAnswer(carol)).toBe('ok');
    expect((await accounts()).body.count).toEqual({ principals: 2, accounts: 3 });
  });

  it('disconnects by e-mail: revoked at Google, deleted, audited; the next call asks to connect', async () => {
    const res = await admin(`/accounts/${encodeURIComponent('Ann@Corp.example')}/ALICE@example.com`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'ok',
      principal: ANN,
      google_email: 'alice@example.com',
      google_sub: alice.sub,
      revoked_at_google: true,
    });
    expect(await refreshAnswer(alice)).toBe('invalid_grant');
    const { body } = await accounts();
    expect(body.principals.map((p) => p.principal)).toEqual([BEN]);

    const audit = (await (await admin('/audit?outcome=account_disconnected')).json()) as { entries: Record<string, unknown>[] };
    expect(audit.entries[0]).toMatchObject({ principal: 'admin', target_principal: ANN, google_account: 'alice@example.com' });
    expect(audit.entries[0]).not.toHaveProperty('reason');

    const client = await linkClientHttp(`${origin}/mcp`, { revision: '2025-11-25', headers: { 'x-user': ANN } });
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/\/connect\/google\?request=/);
      expect(text(result)).toMatch(/nothing was sent to Google/);
    } finally {
      await client.close();
    }
  });

  it('disconnects by sub a grant Google had already ended (invalid_token): deleted all the same', async () => {
    await google.revoke(bob);
    const res = await admin(`/accounts/${BEN}/${bob.sub}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ google_email: 'bob@example.net', revoked_at_google: true });
    const { body } = await accounts();
    expect(body.principals).toEqual([{ principal: BEN, accounts: [expect.objectContaining({ google_email: 'carol@example.org' })] }]);
  });
});

describe('the default mode (one shared credential)', () => {
  it('answers the accounts routes with 409 and a sentence', async () => {
    const google = await startGoogle();
    const server = await startInProcess(google.env);
    try {
      for (const [path, method] of [
        ['/admin/accounts', 'GET'],
        [`/admin/accounts/${ANN}/alice@example.com`, 'DELETE'],
      ]) {
        const res = await fetch(`${server.origin}${path}`, { method });
        expect(res.status).toBe(409);
        expect(((await res.json()) as { reason: string }).reason).toMatch(/^Connected accounts are off on this server/);
      }
    } finally {
      await server.close();
      await google.emulator.close();
    }
  });
});
