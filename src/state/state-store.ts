/**
 * The one place where state that must outlive a process lives (PRODUCT.md §8c):
 * used approval nonces and confirm tokens, the quota ledger, records of sent
 * notifications, analytics exports, 2025-session stream events and the audit
 * trail. Two implementations share this contract and one spec: SQLite in a
 * folder (several processes on one machine) and Redis (several replicas).
 *
 * Plain TypeScript on purpose: scripts, benches and child processes use it
 * without Nest; StateModule only adds a token and a shutdown hook.
 */

/** One entry of an append-only stream. */
export interface StreamEntry {
  /** `<milliseconds>-<sequence>`, as Redis streams spell them; order them with compareEntryIds. */
  readonly id: string;
  readonly value: string;
}

export interface AppendOptions {
  /** Keep at most this many newest entries (older ones are dropped on append). */
  readonly maxLength?: number;
  /** The whole stream expires this long after its latest append; without it the stream's expiry is left as it was. */
  readonly ttlMs?: number;
  /**
   * false: the append may skip the disk sync (SQLite's synchronous=NORMAL in WAL mode: it survives a crash of the
   * process, and only a power cut may lose the latest entries), for entries that help but guard nothing, such as
   * 2025-11-25 stream events kept for resumption. Default true. Redis syncs as it is configured either way.
   */
  readonly synced?: boolean;
}

export interface StateStore {
  /** e.g. "SQLite in /home/u/.local/state/google-search-console-mcp" or "Redis at redis://host:6379/0" — never a password. */
  readonly description: string;
  /**
   * Atomic single use: true for exactly one caller across every process sharing the store, until ttl passes.
   * A claim that throws StateUnavailableError may still have been recorded (a timed-out command can reach
   * Redis later): treat it as not won. The key is then burned, never won twice.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
  get(key: string): Promise<string | undefined>;
  /** Replaces the value; without ttlMs the record never expires (an earlier expiry is dropped, as Redis SET does). */
  put(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Stores value only when key is absent; returns the value now stored (the existing one when present). */
  putIfAbsent(key: string, value: string, ttlMs?: number): Promise<string>;
  /**
   * Atomic compare-and-set: replaces the record only while it holds exactly `expected` (and has not expired);
   * true when it did. Without ttlMs the new record never expires, as with put. Nothing is written otherwise,
   * also when the key is absent.
   */
  replaceIf(key: string, expected: string, value: string, ttlMs?: number): Promise<boolean>;
  /** Removes the record or the stream of that name (Redis keeps both in one key space; so does this contract). */
  delete(key: string): Promise<void>;
  /** Atomic add to an integer counter, created with ttl when absent (the window does not slide); returns the new value. */
  increment(key: string, by: number, ttlMs: number): Promise<number>;
  /** Appends one entry; returns its id, greater than every earlier id of the stream. */
  append(stream: string, value: string, options?: AppendOptions): Promise<string>;
  /** Appends entries in order in one atomic step (e.g. 50 000 export rows); returns their ids. */
  appendMany(stream: string, values: readonly string[], options?: AppendOptions): Promise<string[]>;
  /** Oldest first, entries strictly after `after`, at most `limit` (all when unset). */
  read(stream: string, options?: { after?: string; limit?: number }): Promise<StreamEntry[]>;
  /** Newest first, entries strictly before `before`, at most `limit` (all when unset); for paging back through history. */
  readLatest(stream: string, options?: { before?: string; limit?: number }): Promise<StreamEntry[]>;
  /**
   * Removes one entry of a stream (Redis XDEL); true when it was there. The other entries, their ids and the
   * stream's expiry stay as they were, and later ids keep growing past the removed one.
   */
  removeEntry(stream: string, id: string): Promise<boolean>;
  /** Throws StateUnavailableError when the store cannot be reached. */
  ping(): Promise<void>;
  /** Idempotent; later operations throw StateUnavailableError. */
  close(): Promise<void>;
}

/**
 * The store cannot be reached or used (Redis down, folder unwritable, disk
 * full, lock held too long). Every operation throws this, boundedly, instead of
 * hanging; callers that guard a change turn it into "nothing was changed".
 * The message is a sentence fragment that names the store without secrets.
 */
export class StateUnavailableError extends Error {
  override readonly name = 'StateUnavailableError';
  constructor(
    /** The store's description (no password). */
    readonly store: string,
    /** Why, e.g. "connect ECONNREFUSED 127.0.0.1:6379". */
    readonly reason: string,
    verb = 'cannot be reached',
  ) {
    super(`the state store (${store}) ${verb}: ${reason}`);
  }
}

const ENTRY_ID = /^(\d{1,15})-(\d{1,15})$/;

/** Whether text is a stream entry id (e.g. before trusting a client's Last-Event-ID). */
export function isEntryId(text: string): boolean {
  return ENTRY_ID.test(text);
}

/** Splits an entry id into its two numbers; throws a RangeError for anything else. */
export function parseEntryId(id: string): [ms: number, seq: number] {
  const match = ENTRY_ID.exec(id);
  if (!match) {
    throw new RangeError(`"${id.slice(0, 40)}" is not a stream entry id (expected <milliseconds>-<sequence>, e.g. 1767225600000-0)`);
  }
  return [Number(match[1]), Number(match[2])];
}

/** Negative, zero or positive as a is older than, the same as or newer than b (both ids of one stream). */
export function compareEntryIds(a: string, b: string): number {
  const [am, as] = parseEntryId(a);
  const [bm, bs] = parseEntryId(b);
  return am - bm || as - bs;
}

/** TTLs are whole milliseconds ≥ 1: a zero or negative one is a caller's bug, not "no expiry". */
export function checkTtl(ttlMs: number, what = 'ttlMs'): number {
  if (!Number.isFinite(ttlMs) || ttlMs < 1) {
    throw new RangeError(`${what} must be a positive number of milliseconds, got ${ttlMs}`);
  }
  return Math.ceil(ttlMs);
}

export function checkLimit(limit: number | undefined): number | undefined {
  if (limit === undefined) {
    return undefined;
  }
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`limit must be a whole number ≥ 0, got ${limit}`);
  }
  return limit;
}

export function checkMaxLength(maxLength: number | undefined): number | undefined {
  if (maxLength === undefined) {
    return undefined;
  }
  if (!Number.isSafeInteger(maxLength) || maxLength < 1) {
    throw new RangeError(`maxLength must be a whole number ≥ 1, got ${maxLength}`);
  }
  return maxLength;
}

export function checkIncrement(by: number): number {
  if (!Number.isSafeInteger(by)) {
    throw new RangeError(`increment must be a whole number, got ${by}`);
  }
  return by;
}

export function checkName(name: string, what = 'key'): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new RangeError(`a state ${what} must be a non-empty string`);
  }
  return name;
}
