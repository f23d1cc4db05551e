import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectedGrant } from '../../test/support/grant-fixtures.js';
import { legacyStateKey, stateKey } from '../state/keys.js';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { AccountMemory, hostKey, propertyKey } from './account-memory.js';

const dir = mkdtempSync(join(tmpdir(), 'gsc-account-memory-'));
const store = new SqliteStateStore(dir);
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('AccountMemory', () => {
  it('recalls the first remembered account among the keys, per principal', async () => {
    const memory = new AccountMemory(store);
    const work = connectedGrant({ principal: 'ann@corp.example', googleSub: '1', googleEmail: 'ann@example.com' });
    await memory.remember(work, [hostKey('www.example.com')]);
    expect(await memory.recall('ann@corp.example', [propertyKey('sc-domain:example.com'), hostKey('www.example.com')])).toEqual({
      sub: '1',
      email: 'ann@example.com',
    });
    expect(await memory.recall('bob@corp.example', [hostKey('www.example.com')])).toBeUndefined();
  });

  it('reads a memory kept under its name from before the key table once, and keeps it under the new name', async () => {
    const memory = new AccountMemory(store);
    const key = propertyKey('sc-domain:old.example');
    const kept = JSON.stringify({ sub: '9', email: 'ann.old@example.com' });
    await store.put(legacyStateKey('accountChoice', encodeURIComponent('ann@corp.example'), key), kept);
    expect(await memory.recall('ann@corp.example', [key])).toEqual({ sub: '9', email: 'ann.old@example.com' });
    expect(await store.get(stateKey('accountChoice', encodeURIComponent('ann@corp.example'), key))).toBe(kept);
  });
});
