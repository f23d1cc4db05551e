import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectedConfig, storedGrant } from '../../test/support/grant-fixtures.js';
import { type RevokeEndpoint, startRevokeEndpoint } from '../../test/support/revoke-endpoint.js';
import { GrantAuth } from '../accounts/grant-auth.service.js';
import { GrantRevocation } from '../accounts/grant-revocation.js';
import { GrantStore } from '../accounts/grant-store.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { ConnectionsService } from './connections.service.js';

// The person's own connected accounts, as list_google_accounts and disconnect_google_account use them.

const PERSON = 'ann@corp.example';
let google: RevokeEndpoint;
let store: SqliteStateStore;
let grants: GrantStore;
let connections: ConnectionsService;
const dir = mkdtempSync(join(tmpdir(), 'gsc-connections-'));

beforeAll(async () => {
  google = await startRevokeEndpoint();
  const config = connectedConfig({ dir, keys: `k1:${Buffer.alloc(32, 3).toString('base64')}`, env: { GSC_OAUTH_REVOKE_URL: google.url } });
  store = new SqliteStateStore(dir);
  grants = new GrantStore(store, config);
  const auth = new GrantAuth(config, grants, store);
  connections = new ConnectionsService(auth, new GrantRevocation(auth, grants));
  await grants.save(
    storedGrant({ principal: PERSON, googleSub: '1', googleEmail: 'ann@example.com', connectedAt: '2026-12-01T00:00:00.000Z' }),
  );
  await grants.save(storedGrant({ principal: PERSON, googleSub: '2', googleEmail: 'Ann.Home@Example.net', refreshToken: '1//0home' }));
  await grants.save(storedGrant({ principal: PERSON, googleSub: '3', googleEmail: 'ann.old@example.org', refreshToken: '1//0old' }));
  await grants.revokeIfHolds(PERSON, '3', '1//0old');
  await grants.save(storedGrant({ principal: 'bob@corp.example', googleSub: '4', googleEmail: 'bob@example.com' }));
});
afterAll(async () => {
  await store.close();
  await google.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ConnectionsService', () => {
  it("lists the person's usable accounts only, never another person's or one Google ended, and never a token", async () => {
    const listed = await connections.list(PERSON);
    expect(listed.map((g) => g.googleEmail).sort()).toEqual(['Ann.Home@Example.net', 'ann@example.com']);
    expect(JSON.stringify(listed)).not.toContain('1//0');
  });

  it('finds an account by its e-mail in any case, only among the person’s own', async () => {
    expect((await connections.find(PERSON, '  ann.home@example.NET '))?.googleSub).toBe('2');
    expect(await connections.find(PERSON, 'bob@example.com')).toBeUndefined();
    expect(await connections.find(PERSON, 'ann.old@example.org')).toBeUndefined();
  });

  it('keeps the grant when Google cannot revoke it, and says nothing was deleted', async () => {
    google.answer(500, { error: 'internal' });
    const home = (await connections.find(PERSON, 'ann.home@example.net'))!;
    await expect(connections.disconnect(home)).rejects.toThrow(UserFacingError);
    await expect(connections.disconnect(home)).rejects.toThrow(/was not disconnected and nothing was deleted/);
    expect(await connections.find(PERSON, 'ann.home@example.net')).toBeDefined();
  });

  it("disconnects: the refresh token revoked at Google first, then the grant gone from the person's list", async () => {
    google.answer(200);
    const home = (await connections.find(PERSON, 'ann.home@example.net'))!;
    expect(await connections.disconnect(home)).toEqual({ grant: expect.objectContaining({ googleSub: '2' }), revokedAtGoogle: true });
    expect(google.revoked.at(-1)).toBe('1//0home');
    expect((await connections.list(PERSON)).map((g) => g.googleSub)).toEqual(['1']);
  });
});
