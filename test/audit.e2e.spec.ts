import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectStdio } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { issueToken, redeemToken } from './support/guarded-wire.js';
import { spawnHttpBinary } from './support/http-binary.js';
import { modernToolCall } from './support/modern-wire.js';
import { type InProcessServer, startInProcess } from './support/server.js';

// The audit trail lives in the state store (issue 10, item 2): every process on
// the store writes to one stream; /admin/audit reads it with validated filters.

const HTTP_TOKEN = 'bearer-token-of-replica-b-0123456789';
const SITE = SEED_PROPERTIES.blog;

let google: TestGoogle;
let a: InProcessServer;
let b: InProcessServer;
const exportFile = join(mkdtempSync(join(tmpdir(), 'gsc-audit-export-')), 'audit.jsonl');
const secrets: string[] = [];

beforeAll(async () => {
  google = await startGoogle();
  const dir = mkdtempSync(join(tmpdir(), 'gsc-audit-state-'));
  a = await startInProcess({ ...google.env, GSC_STATE_DIR: dir, GSC_AUDIT_LOG: exportFile });
  b = await startInProcess({ ...google.env, GSC_STATE_DIR: dir, GSC_HTTP_TOKEN: HTTP_TOKEN });

  // On A (principal "local"): a token issued and redeemed, and a made-up token for delete_sitemap.
  const token = await issueToken(a.url, SITE);
  secrets.push(token);
  await redeemToken(a.url, SITE, token);
  await modernToolCall(
    a.url,
    'delete_sitemap',
    { site_url: SEED_PROPERTIES.owned, sitemap_url: 'https://www.example.com/sitemap.xml', confirm_token: 'made-up' },
    { elicitation: false },
  );
  // On B (principal of its bearer token): a question asked.
  const asked = await modernToolCall(
    b.url,
    'delete_site',
    { site_url: SEED_PROPERTIES.owned },
    { headers: { authorization: `Bearer ${HTTP_TOKEN}` } },
  );
  secrets.push(asked.body.result.requestState);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await google?.emulator.close();
});

const audit = async (server: InProcessServer, query = '') => {
  const res = await fetch(`${server.origin}/admin/audit${query}`);
  return { status: res.status, text: await res.clone().text(), body: (await res.json()) as any };
};
const events = (entries: any[]) => entries.map((e) => `${e.event} ${e.tool}`);

describe('/admin/audit', () => {
  it('shows every replica’s decisions, newest first, with ids, fingerprints and reason codes only', async () => {
    for (const server of [a, b]) {
      const { status, body, text } = await audit(server);
      expect(status).toBe(200);
      expect(events(body.entries)).toEqual([
        'asked delete_site',
        'token_refused delete_sitemap',
        'executed delete_site',
        'token_redeemed delete_site',
        'token_issued delete_site',
      ]);
      expect(body.next_before).toBeUndefined();
      expect(body.entries[0]).toEqual({
        id: expect.stringMatching(/^\d+-\d+$/),
        time: expect.any(String),
        event: 'asked',
        tool: 'delete_site',
        target_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
        path: 'dialog',
        era: '2026-07-28',
        // The bearer token's principal: bound to the token by a hash of it, never the token itself.
        principal: expect.stringMatching(/^token:[0-9a-f]{16}$/),
      });
      expect(body.entries[1]).toMatchObject({ principal: 'local', reason: 'malformed', path: 'token' });
      for (const secret of [...secrets, HTTP_TOKEN, 'made-up']) {
        expect(text).not.toContain(secret);
      }
    }
  });

  it('filters by tool, outcome and principal, alone and together', async () => {
    const principalOfB = (await audit(a)).body.entries[0].principal as string;
    const cases: [string, string[]][] = [
      ['?tool=delete_sitemap', ['token_refused delete_sitemap']],
      ['?outcome=token_redeemed', ['token_redeemed delete_site']],
      ['?principal=local&tool=delete_site', ['executed delete_site', 'token_redeemed delete_site', 'token_issued delete_site']],
      [`?principal=${encodeURIComponent(principalOfB)}`, ['asked delete_site']],
      ['?outcome=asked&principal=local', []],
      ['?tool=unverify_site', []],
    ];
    for (const [query, expected] of cases) {
      expect([query, events((await audit(b, query)).body.entries)]).toEqual([query, expected]);
    }
  });

  it('pages back through history with limit and before', async () => {
    const all = (await audit(a, '?limit=5')).body.entries;
    const first = (await audit(a, '?limit=2')).body;
    expect(first.entries).toEqual(all.slice(0, 2));
    expect(first.next_before).toBe(all[1].id);
    const second = (await audit(a, `?limit=2&before=${first.next_before}`)).body;
    expect(second.entries).toEqual(all.slice(2, 4));
    const last = (await audit(a, `?limit=2&before=${second.next_before}`)).body;
    expect(last.entries).toEqual(all.slice(4));
    expect(last.next_before).toBeUndefined();
    const filtered = (await audit(a, `?tool=delete_site&limit=1&before=${all[0].id}`)).body;
    expect(events(filtered.entries)).toEqual(['executed delete_site']);
    expect(filtered.next_before).toBe(all[2].id);
  });

  it.each([
    ['?limit=0', /limit must be a whole number from 1 to 500/],
    ['?limit=501', /limit must be a whole number from 1 to 500/],
    ['?limit=ten', /limit must be a whole number from 1 to 500/],
    ['?limit=2.5', /limit must be a whole number from 1 to 500/],
    ['?limit=1&limit=2', /limit must be a whole number from 1 to 500/],
    ['?before=yesterday', /before must be the id of an audit entry/],
    ['?tool=Delete%20Site', /tool must be a tool name/],
    ['?outcome=deleted', /outcome must be one of asked, approved, .*store_unavailable/],
    [`?principal=${'p'.repeat(321)}`, /principal must be at most 320 characters/],
    ['?since=2026-01-01', /property since should not exist/],
  ])('refuses %s with a 400 that names the parameter', async (query, message) => {
    const { status, body } = await audit(a, query);
    expect(status).toBe(400);
    expect(body.message.join(' ')).toMatch(message);
  });

  it('keeps GSC_AUDIT_LOG as an export of what this process decided', () => {
    const lines = readFileSync(exportFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((e) => `${e.event} ${e.tool}`)).toEqual([
      'token_issued delete_site',
      'token_redeemed delete_site',
      'executed delete_site',
      'token_refused delete_sitemap',
    ]);
  });
});

describe('class-validator is loaded by the HTTP server only', () => {
  const PRELOAD = resolve(import.meta.dirname, 'support/loaded-modules.mjs');
  const watch = () => {
    const report = join(mkdtempSync(join(tmpdir(), 'gsc-loaded-')), 'modules.txt');
    return {
      report,
      env: {
        NODE_OPTIONS: `--import ${PRELOAD}`,
        LOADED_MODULES_REPORT: report,
        LOADED_MODULES_PATTERN: '/node_modules/class-(validator|transformer)/',
      },
    };
  };
  const read = async (report: string) => {
    for (let i = 0; i < 100 && !existsSync(report); i++) {
      await sleep(50);
    }
    return readFileSync(report, 'utf8').split('\n').filter(Boolean);
  };

  it('a stdio server answers tools/list without loading it', async () => {
    const { report, env } = watch();
    const client = await connectStdio({ ...google.env, ...env }, { revision: '2026-07-28' });
    expect((await client.listTools()).length).toBeGreaterThan(0);
    await client.close();
    expect(await read(report)).toEqual([]);
  });

  it('an HTTP server loads it (the same preload sees it there)', async () => {
    const { report, env } = watch();
    const server = await spawnHttpBinary({ ...google.env, ...env });
    expect((await fetch(`${server.origin}/admin/audit?limit=1`)).status).toBe(200);
    await server.stop();
    expect((await read(report)).some((path) => path.includes('/class-validator/'))).toBe(true);
  });
});
