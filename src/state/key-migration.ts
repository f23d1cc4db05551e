import { legacyStateKey as legacy, stateKey, stateName } from './keys.js';
import type { StateStore } from './state-store.js';

/**
 * Copies, once per store, the records a person made and would miss from their
 * names before the key table (keys.ts) to the versioned ones: grants (record,
 * last use, the two indexes), annotations (each property's stream, the index
 * of properties) and the audit trail. Everything else either has a short life
 * and is left to expire, or is read under its old name when missing (see the
 * table's `upgrade`).
 *
 * One process copies (an atomic claim of the lock); the others wait for its
 * "done" mark before they serve, so nothing is written under a new name
 * before the old records are there. Every step is idempotent (a record is
 * stored only when absent, a stream copied only while its new name is empty,
 * an index entry appended only when missing), so a copier that dies half way
 * is finished by the next one. The old records are left in place: a rollback
 * finds them as they were.
 */
export const MIGRATION_DONE = stateKey('migration', 'keys', 'done');
const MIGRATION_LOCK = stateKey('migration', 'keys', 'lock');
/** Longer than any copy (10 000 audit entries, 200 notes per property) takes. */
const LOCK_TTL_MS = 5 * 60_000;
const WAIT_STEP_MS = 200;

export interface MigrationOutcome {
  /** What happened: this process copied, another had (or has now), or it was done already. */
  readonly by: 'this process' | 'another process' | 'earlier';
  readonly grants: number;
  readonly annotations: number;
  readonly auditEntries: number;
}

export async function migrateLegacyKeys(store: StateStore, options: { waitMs?: number } = {}): Promise<MigrationOutcome> {
  const none = { grants: 0, annotations: 0, auditEntries: 0 };
  if ((await store.get(MIGRATION_DONE)) !== undefined) {
    return { by: 'earlier', ...none };
  }
  if (!(await store.claim(MIGRATION_LOCK, LOCK_TTL_MS))) {
    const deadline = Date.now() + (options.waitMs ?? LOCK_TTL_MS);
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
      if ((await store.get(MIGRATION_DONE)) !== undefined) {
        return { by: 'another process', ...none };
      }
    }
    // The copier died holding the lock: its life has passed, so take over (every step is idempotent).
    if (!(await store.claim(MIGRATION_LOCK, LOCK_TTL_MS))) {
      return { by: 'another process', ...none };
    }
  }
  try {
    const outcome = {
      by: 'this process' as const,
      grants: await copyGrants(store),
      annotations: await copyAnnotations(store),
      auditEntries: 0,
    };
    const copied = { ...outcome, auditEntries: await copyStream(store, legacy('audit'), stateName('audit'), 10_000) };
    await store.put(MIGRATION_DONE, new Date().toISOString());
    return copied;
  } finally {
    await store.delete(MIGRATION_LOCK).catch(() => undefined);
  }
}

async function copyGrants(store: StateStore): Promise<number> {
  const principals = new Map<string, boolean>();
  for (const { value } of await store.read(legacy('grantPrincipals'))) {
    principals.set(value.slice(1), value.startsWith('+'));
  }
  let copied = 0;
  for (const [principal, listed] of principals) {
    if (!listed) {
      continue;
    }
    const who = encodeURIComponent(principal);
    const subs = new Set((await store.read(legacy('grantIndex', who))).map((e) => e.value));
    const index = stateKey('grantIndex', who);
    const known = new Set((await store.read(index)).map((e) => e.value));
    for (const sub of subs) {
      const slot = `${who}:${encodeURIComponent(sub)}`;
      const record = await store.get(legacy('grant', slot));
      if (record === undefined) {
        continue;
      }
      await store.putIfAbsent(stateKey('grant', slot), record);
      const used = await store.get(legacy('grantUsed', slot));
      if (used !== undefined) {
        await store.putIfAbsent(stateKey('grantUsed', slot), used);
      }
      if (!known.has(sub)) {
        await store.append(index, sub, { maxLength: 64 });
      }
      copied += 1;
    }
    const now = new Map((await store.read(stateName('grantPrincipals'))).map((e) => [e.value.slice(1), e.value.startsWith('+')]));
    if (now.get(principal) !== true) {
      await store.append(stateName('grantPrincipals'), `+${principal}`);
    }
  }
  return copied;
}

async function copyAnnotations(store: StateStore): Promise<number> {
  const sites = new Set((await store.read(legacy('annotationProperties'))).map((e) => e.value));
  let copied = 0;
  for (const site of sites) {
    copied += await copyStream(
      store,
      legacy('annotations', encodeURIComponent(site)),
      stateKey('annotations', encodeURIComponent(site)),
      200,
    );
    const known = new Set((await store.read(stateName('annotationProperties'))).map((e) => e.value));
    if (!known.has(site)) {
      await store.append(stateName('annotationProperties'), site);
    }
  }
  return copied;
}

/** The entries of `from`, in order, into `to` while `to` is empty (new ids; the values as they were). */
async function copyStream(store: StateStore, from: string, to: string, maxLength: number): Promise<number> {
  if ((await store.read(to, { limit: 1 })).length > 0) {
    return 0;
  }
  const values = (await store.read(from)).map((e) => e.value);
  if (values.length > 0) {
    await store.appendMany(to, values, { maxLength });
  }
  return values.length;
}
