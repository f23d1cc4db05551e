import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSecretFileOnce } from '../common/secret-file.js';
import { createStateStore } from './create-state-store.js';
import { legacyStateKey, stateName } from './keys.js';
import { SqliteStateStore } from './sqlite-state-store.js';
import type { StateConfig } from '../config/server-settings.js';
import { type StateStore, StateUnavailableError } from './state-store.js';

/** The file in GSC_STATE_DIR that keeps the generated secret (mode 0600). */
export const APPROVAL_SECRET_FILE = 'approval-secret';
/** The state key that keeps it on Redis (no expiry). */
export const APPROVAL_SECRET_KEY = stateName('approvalSecret');
/** Same floor as GSC_APPROVAL_SECRET. */
const MIN_BYTES = 32;

export interface ApprovalSecret {
  /** 64 hex characters when generated here (what `openssl rand -hex 32` prints). */
  readonly secret: string;
  /** True when this call stored it; false when it was already kept (by an earlier run or a sibling process). With `prefer`, a kept value equal to it may also count as stored. */
  readonly created: boolean;
  /** Where it is kept, for the start-up line: a file path or "key secret:approval in Redis at …" (never the value). */
  readonly location: string;
}

/**
 * The approval secret to use when GSC_APPROVAL_SECRET is unset: one per store,
 * not per process, so restarts, replicas and one-process-per-request gateways
 * verify each other's approvals. Whoever comes first creates it; everyone after
 * (including a process racing at the same moment) reads the same one.
 *
 * The embedded store keeps it in a file beside the database, created with
 * O_EXCL; Redis keeps it in a key set only when absent.
 */
export async function loadOrCreateApprovalSecret(target: StateStore | StateConfig, options: LoadOptions = {}): Promise<ApprovalSecret> {
  if (options.prefer !== undefined) {
    check(options.prefer, 'the preferred secret');
  }
  if (target instanceof SqliteStateStore) {
    return fromFile(target.dir, target.description, options.prefer);
  }
  if ('kind' in target) {
    if (target.kind === 'sqlite') {
      return fromFile(target.dir, `SQLite in ${target.dir}`, options.prefer);
    }
    const store = createStateStore(target);
    try {
      return await fromStore(store, options.prefer);
    } finally {
      await store.close();
    }
  }
  return fromStore(target, options.prefer);
}

export interface LoadOptions {
  /**
   * The value to keep when none is kept yet, instead of a new random one: a
   * running process that already uses a secret re-seeds a store that lost it
   * (a Redis restarted empty, a deleted file), so that processes started
   * afterwards agree with it rather than with a secret of their own.
   */
  readonly prefer?: string;
}

async function fromStore(store: StateStore, prefer?: string): Promise<ApprovalSecret> {
  // A secret kept under its name from before the key table (keys.ts) is the one kept: approvals in flight stay valid.
  const legacy = await store.get(legacyStateKey('approvalSecret'));
  const fresh = legacy ?? prefer ?? generate();
  const secret = await store.putIfAbsent(APPROVAL_SECRET_KEY, fresh);
  check(secret, `key ${APPROVAL_SECRET_KEY} of ${store.description}`);
  return { secret, created: legacy === undefined && secret === fresh, location: `key ${APPROVAL_SECRET_KEY} in ${store.description}` };
}

async function fromFile(dir: string, description: string, prefer?: string): Promise<ApprovalSecret> {
  const file = join(dir, APPROVAL_SECRET_FILE);
  const fresh = prefer ?? generate();
  let created: boolean;
  try {
    created = createSecretFileOnce(dir, file, fresh);
  } catch (error) {
    throw new StateUnavailableError(description, reasonOf(error), 'cannot be used');
  }
  if (created) {
    return { secret: fresh, created: true, location: file };
  }
  // Someone else created it; a process that won a moment ago may still be writing its one line.
  for (let attempt = 0; ; attempt++) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new StateUnavailableError(description, reasonOf(error), 'cannot be used');
    }
    if (Buffer.byteLength(text, 'utf8') >= MIN_BYTES || attempt >= 20) {
      check(text, file);
      return { secret: text, created: false, location: file };
    }
    await sleep(50);
  }
}

function generate(): string {
  return randomBytes(32).toString('hex');
}

function check(secret: string, where: string): void {
  if (Buffer.byteLength(secret, 'utf8') < MIN_BYTES) {
    throw new Error(
      `the approval secret kept in ${where} is shorter than ${MIN_BYTES} bytes; delete it (a new one is then created) or set GSC_APPROVAL_SECRET`,
    );
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
