import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectedConfig, storedGrant } from '../../test/support/grant-fixtures.js';
import { type RevokeEndpoint, startRevokeEndpoint } from '../../test/support/revoke-endpoint.js';
import { GrantAuth } from '../accounts/grant-auth.service.js';
import { GrantRevocation } from '../accounts/grant-revocation.js';
import { GrantStore } from '../accounts/grant-store.js';
import { Clock } from '../common/clock.js';
import { type Config, loadConfig } from '../config/config.js';
import { AuditTrail } from '../call/approval/audit-trail.service.js';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import type { StateStore } from '../state/state-store.js';
import { AccountsController, type AccountView } from './accounts.controller.js';

// GET and DELETE <admin>/accounts as ops call them, over a real grant store and audit trail; Google's
// revocation endpoint is a local HTTP server answering as told.

const KEYS = `k1:${Buffer.alloc(32, 9).toString('base64')}`;
let google: RevokeEndpoint;
const dirs: string[] = [];
const stores: StateStore[] = [];

beforeAll(async () => {
  google = await startRevokeEndpoint();
});
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  await google.close();
});

/** A response stand-in: the controller sets only statusCode on it (passthrough). */
const response = () => ({ statusCode: 200 }) as ServerResponse;

function subject(config?: Config) {
  const dir = mkdtempSync(join(tmpdir(), 'gsc-admin-accounts-'));
  dirs.push(dir);
  const cfg = config ?? connectedConfig({ dir, keys: KEYS, env: { GSC_OAUTH_REVOKE_URL: google.url, GSC_GOOGLE_TIMEOUT_MS: '1000' } });
  const store = new SqliteStateStore(dir);
  stores.push(store);
  const grants = new GrantStore(store, cfg);
  const audit = new AuditTrail(cfg, new Clock(), store);
  const controller = new AccountsController(grants, new GrantRevocation(new GrantAuth(cfg, grants, store), grants), audit, cfg);
  return { controller, grants, audit, store };
}

describe('AccountsController', () => {
  it('lists each principal with their accounts, status and last use, never a token', async () => {
    const { controller, grants } = subject();
    await grants.save(storedGrant({ principal: 'ann@corp.example', googleSub: '1', googleEmail: 'ann@example.com' }));
    await grants.save(storedGrant({ principal: 'ann@corp.example', googleSub: '2', googleEmail: 'ann.personal@example.com' }));
    await grants.save(storedGrant({ principal: 'bob@corp.example', googleSub: '3', googleEmail: 'bob@example.com' }));
    await grants.revokeIfHolds('bob@corp.example', '3', storedGrant().refreshToken, new Date('2026-12-02T00:00:00Z'));
    await grants.touch('ann@corp.example', '1');

    const res = response();
    const listed = (await controller.list(res)) as { principals: { principal: string; accounts: AccountView[] }[]; count: unknown };
    expect(res.statusCode).toBe(200);
    expect(listed.count).toEqual({ principals: 2, accounts: 3 });
    const ann = listed.principals.find((p) => p.principal === 'ann@corp.example')!;
    expect(ann.accounts.map((a) => [a.google_sub, a.status])).toEqual(
      expect.arrayContaining([
        ['1', 'connected'],
        ['2', 'connected'],
      ]),
    );
    expect(ann.accounts.find((a) => a.google_sub === '1')!.last_used).toEqual(expect.any(String));
    expect(ann.accounts.find((a) => a.google_sub === '2')!.last_used).toBeNull();
    const bob = listed.principals.find((p) => p.principal === 'bob@corp.example')!;
    expect(bob.accounts).toEqual([expect.objectContaining({ google_sub: '3', status: 'revoked', revoked_at: '2026-12-02T00:00:00.000Z' })]);
    expect(JSON.stringify(listed)).not.toContain(storedGrant().refreshToken);
  });

  it('disconnects an account named by its e-mail: revoked at Google first, deleted, audited as admin', async () => {
    const { controller, grants, audit } = subject();
    const grant = storedGrant({ principal: 'cy@corp.example', googleSub: '7', googleEmail: 'Cy@Example.com', refreshToken: '1//0cy' });
    await grants.save(grant);
    google.answer(200);
    const res = response();
    const answer = await controller.disconnect('cy@corp.example', 'cy@example.com', res);
    expect(res.statusCode).toBe(200);
    expect(answer).toMatchObject({ status: 'ok', principal: 'cy@corp.example', google_sub: '7', revoked_at_google: true });
    expect(google.revoked).toContain('1//0cy');
    expect(await grants.list('cy@corp.example')).toEqual([]);
    const { entries } = await audit.query({ outcome: 'account_disconnected' });
    expect(entries[0]).toMatchObject({ principal: 'admin', target_principal: 'cy@corp.example', google_account: 'Cy@Example.com' });
  });

  it("deletes nothing when Google's revocation endpoint fails, and says so with a 502", async () => {
    const { controller, grants } = subject();
    await grants.save(storedGrant({ principal: 'di@corp.example', googleSub: '8' }));
    google.answer(503, { error: 'backend' });
    const res = response();
    const answer = await controller.disconnect('di@corp.example', '8', res);
    expect(res.statusCode).toBe(502);
    expect(answer).toEqual({ status: 'error', reason: expect.stringMatching(/answered HTTP 503.*nothing was deleted/) });
    expect((await grants.list('di@corp.example')).map((g) => g.googleSub)).toEqual(['8']);
    google.answer(200);
  });

  it('answers 404 for an account the principal does not have, and 400 for a look-alike principal', async () => {
    const { controller } = subject();
    const missing = response();
    expect(await controller.disconnect('eve@corp.example', 'nobody@example.com', missing)).toMatchObject({ status: 'error' });
    expect(missing.statusCode).toBe(404);
    const lookalike = response();
    expect(await controller.disconnect('eve@corp.\u212Aexample', '1', lookalike)).toMatchObject({ status: 'error' });
    expect(lookalike.statusCode).toBe(400);
  });

  it('answers 409 with a sentence when connected accounts are off', async () => {
    const config = loadConfig({
      CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
      GSC_STATE_DIR: mkdtempSync(join(tmpdir(), 'gsc-')),
    });
    const { controller } = subject(config);
    for (const call of [(res: ServerResponse) => controller.list(res), (res: ServerResponse) => controller.disconnect('a@b.c', '1', res)]) {
      const res = response();
      expect(await call(res)).toEqual({ status: 'error', reason: expect.stringMatching(/^Connected accounts are off on this server/) });
      expect(res.statusCode).toBe(409);
    }
  });

  it('answers 503 naming the store when it cannot be reached', async () => {
    const { controller, store } = subject();
    await store.close();
    const res = response();
    expect(await controller.list(res)).toEqual({ status: 'error', reason: expect.stringMatching(/^the state store \(SQLite in .*\)/) });
    expect(res.statusCode).toBe(503);
  });
});
