import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Clock } from '../../common/clock.js';
import type { Config } from '../../config/config.js';
import { SqliteStateStore } from '../../state/sqlite-state-store.js';
import { StateUnavailableError } from '../../state/state-store.js';
import { AUDIT_STREAM, type AuditEntry, AuditTrail } from './audit-trail.service.js';

const entry = (event: AuditEntry['event'], tool = 'delete_site', principal = 'local'): Omit<AuditEntry, 'time'> => ({
  event,
  tool,
  target_fingerprint: 'f'.repeat(64),
  path: 'token',
  era: '2026-07-28',
  principal,
});

let root: string;
beforeAll(() => {
  Logger.overrideLogger(false);
  root = mkdtempSync(join(tmpdir(), 'gsc-audit-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('AuditTrail', () => {
  it('keeps entries recorded while the store is down and writes them, in order, once it is back', async () => {
    const blocker = join(root, 'blocker');
    writeFileSync(blocker, 'not a folder');
    const store = new SqliteStateStore(join(blocker, 'state'));
    const exportFile = join(root, 'export.jsonl');
    const trail = new AuditTrail({ auditLog: exportFile } as Config, new Clock(), store);

    await trail.record(entry('token_issued'));
    await trail.record(entry('store_unavailable'));
    await expect(trail.query()).rejects.toBeInstanceOf(StateUnavailableError);
    // The export does not wait for the store.
    expect(readFileSync(exportFile, 'utf8').trim().split('\n')).toHaveLength(2);

    rmSync(blocker);
    mkdirSync(blocker);
    await trail.record(entry('token_redeemed'));
    const { entries } = await trail.query();
    expect(entries.map((e) => e.event)).toEqual(['token_redeemed', 'store_unavailable', 'token_issued']);
    expect((await store.read(AUDIT_STREAM)).length).toBe(3);
    await store.close();
  });

  it('two trails on one store read one history', async () => {
    const dir = join(root, 'shared');
    const [one, two] = [new SqliteStateStore(dir), new SqliteStateStore(dir)];
    const a = new AuditTrail({} as Config, new Clock(), one);
    const b = new AuditTrail({} as Config, new Clock(), two);
    await a.record(entry('asked', 'delete_site', 'alice'));
    await b.record(entry('declined', 'delete_sitemap', 'bob'));
    for (const trail of [a, b]) {
      expect((await trail.query()).entries.map((e) => `${e.principal} ${e.event}`)).toEqual(['bob declined', 'alice asked']);
      expect((await trail.query({ principal: 'alice' })).entries.map((e) => e.tool)).toEqual(['delete_site']);
    }
    await Promise.all([one.close(), two.close()]);
  });

  it('writes an entry once when a write that timed out was carried out after all (Redis stopped, then resumed), and still writes those it was not', async () => {
    const dir = join(root, 'timeouts');
    const real = new SqliteStateStore(dir);
    // The store as a client sees Redis stopped mid-command: the first append is carried out but answered with a
    // timeout; the second is refused outright (not carried out); the rest work.
    let appends = 0;
    const store = Object.create(real, {
      appendMany: {
        value: async (stream: string, values: readonly string[], options: object) => {
          appends++;
          if (appends === 1) {
            await real.appendMany(stream, values, options);
            throw new StateUnavailableError(real.description, 'Command timed out', 'cannot be used');
          }
          if (appends === 2) {
            throw new StateUnavailableError(real.description, 'Connection is closed', 'cannot be used');
          }
          return real.appendMany(stream, values, options);
        },
      },
    }) as SqliteStateStore;
    const trail = new AuditTrail({} as Config, new Clock(), store);
    await trail.record(entry('asked')); // carried out, answered "timed out"
    await trail.record(entry('approved')); // refused, with the unsure one before it
    await trail.record(entry('executed')); // the store answers again
    expect((await real.read(AUDIT_STREAM)).map((e) => (JSON.parse(e.value) as AuditEntry).event)).toEqual([
      'asked',
      'approved',
      'executed',
    ]);
    await real.close();
  });
});
