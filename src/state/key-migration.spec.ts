import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATION_DONE, migrateLegacyKeys } from './key-migration.js';
import { legacyStateKey as legacy, stateKey, stateName } from './keys.js';
import { SqliteStateStore } from './sqlite-state-store.js';

const dirs: string[] = [];
const stores: SqliteStateStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function store(dir = mkdtempSync(join(tmpdir(), 'gsc-keys-'))): SqliteStateStore {
  dirs.push(dir);
  const made = new SqliteStateStore(dir);
  stores.push(made);
  return made;
}

const ALICE = encodeURIComponent('alice@corp.example');
const SITE = encodeURIComponent('https://www.example.com/');

/** What a build from before the key table left in a store. */
async function seedLegacy(s: SqliteStateStore): Promise<void> {
  await s.append(legacy('grantPrincipals'), '+alice@corp.example');
  await s.append(legacy('grantPrincipals'), '+gone@corp.example');
  await s.append(legacy('grantPrincipals'), '-gone@corp.example');
  await s.append(legacy('grantIndex', ALICE), '111');
  await s.append(legacy('grantIndex', ALICE), '222');
  await s.put(legacy('grant', ALICE, '111'), 'sealed-111');
  await s.put(legacy('grant', ALICE, '222'), 'sealed-222');
  await s.put(legacy('grantUsed', ALICE, '111'), '2026-01-02T03:04:05.000Z');
  await s.put(legacy('grant', encodeURIComponent('gone@corp.example'), '333'), 'sealed-333');
  await s.append(legacy('annotationProperties'), 'https://www.example.com/');
  await s.appendMany(legacy('annotations', SITE), ['{"note":1}', '{"note":2}']);
  await s.appendMany(legacy('audit'), ['{"a":1}', '{"a":2}', '{"a":3}']);
}

describe('migrateLegacyKeys', () => {
  it('copies grants, notes and the audit trail to the versioned names once, leaving the old records as they were', async () => {
    const s = store();
    await seedLegacy(s);
    expect(await migrateLegacyKeys(s)).toEqual({ by: 'this process', grants: 2, annotations: 2, auditEntries: 3 });

    expect(await s.get(stateKey('grant', ALICE, '111'))).toBe('sealed-111');
    expect(await s.get(stateKey('grant', ALICE, '222'))).toBe('sealed-222');
    expect(await s.get(stateKey('grantUsed', ALICE, '111'))).toBe('2026-01-02T03:04:05.000Z');
    expect((await s.read(stateKey('grantIndex', ALICE))).map((e) => e.value)).toEqual(['111', '222']);
    // A principal whose last grant was removed stays removed.
    expect((await s.read(stateName('grantPrincipals'))).map((e) => e.value)).toEqual(['+alice@corp.example']);
    expect(await s.get(stateKey('grant', encodeURIComponent('gone@corp.example'), '333'))).toBeUndefined();
    expect((await s.read(stateKey('annotations', SITE))).map((e) => e.value)).toEqual(['{"note":1}', '{"note":2}']);
    expect((await s.read(stateName('annotationProperties'))).map((e) => e.value)).toEqual(['https://www.example.com/']);
    expect((await s.read(stateName('audit'))).map((e) => e.value)).toEqual(['{"a":1}', '{"a":2}', '{"a":3}']);
    expect(await s.get(legacy('grant', ALICE, '111'))).toBe('sealed-111');
    expect(await s.get(MIGRATION_DONE)).toBeDefined();

    // Once per store: a later start copies nothing, even when old records changed meanwhile (a rollback's writes).
    await s.append(legacy('audit'), '{"a":4}');
    expect(await migrateLegacyKeys(s)).toMatchObject({ by: 'earlier', auditEntries: 0 });
    expect(await s.read(stateName('audit'))).toHaveLength(3);
  });

  it('finishes what a copier that died half way began, without doubling anything', async () => {
    const s = store();
    await seedLegacy(s);
    // The dead copier got as far as one grant and the audit trail.
    await s.put(stateKey('grant', ALICE, '111'), 'sealed-111');
    await s.append(stateKey('grantIndex', ALICE), '111');
    await s.appendMany(stateName('audit'), ['{"a":1}', '{"a":2}', '{"a":3}']);

    await migrateLegacyKeys(s);
    expect((await s.read(stateKey('grantIndex', ALICE))).map((e) => e.value)).toEqual(['111', '222']);
    expect(await s.read(stateName('audit'))).toHaveLength(3);
    expect((await s.read(stateName('grantPrincipals'))).map((e) => e.value)).toEqual(['+alice@corp.example']);
  });

  it('lets exactly one of several processes on one store copy; the others wait for it to finish', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsc-keys-'));
    const first = store(dir);
    await seedLegacy(first);
    const outcomes = await Promise.all([first, store(dir), store(dir)].map((s) => migrateLegacyKeys(s)));
    expect(outcomes.map((o) => o.by).sort()).toEqual(['another process', 'another process', 'this process']);
    expect((await first.read(stateName('audit'))).map((e) => e.value)).toEqual(['{"a":1}', '{"a":2}', '{"a":3}']);
    expect((await first.read(stateKey('annotations', SITE))).length).toBe(2);
  });

  it('marks an empty store done with nothing to copy', async () => {
    const s = store();
    expect(await migrateLegacyKeys(s)).toEqual({ by: 'this process', grants: 0, annotations: 0, auditEntries: 0 });
    expect(await migrateLegacyKeys(s)).toMatchObject({ by: 'earlier' });
  });
});
