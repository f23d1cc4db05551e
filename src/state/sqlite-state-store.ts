import { settle } from '../common/settle.js';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync as Database } from 'node:sqlite';
import {
  type AppendOptions,
  checkIncrement,
  checkLimit,
  checkMaxLength,
  checkName,
  checkTtl,
  parseEntryId,
  type StateStore,
  StateUnavailableError,
  type StreamEntry,
} from './state-store.js';
import { GroupCommit } from './group-commit.js';
import {
  appendIn,
  type PendingAppend,
  prepareStatements,
  SCHEMA,
  SCHEMA_VERSION,
  type Statements,
  toEntries,
} from './sqlite-statements.js';

/** The database file inside the state folder. */
export const SQLITE_FILE = 'state.sqlite';

/** How long one operation waits for another process's write lock before giving up (and saying so). */
const BUSY_TIMEOUT_MS = 3000;
/** Expired rows are invisible at once; deleting them is batched, at most this often per process. */
const PURGE_EVERY_MS = 60_000;
/** Past every real id; stands for "no upper bound". */
const MAX_ID: [number, number] = [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
const MIN_ID: [number, number] = [-1, -1];

// Fetched when the module runs, not linked by an import statement: on a Node
// without node:sqlite the graph still links, so the library entry's version
// gate (src/common/node-version-gate.ts) can say so in one line first.
const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
type DatabaseSync = Database;

// Primary result codes that mean "the store cannot be used right now", as opposed to a bug in a query.
const SQLITE_BUSY = 5;
const UNAVAILABLE_CODES = new Set([SQLITE_BUSY, 6, 7, 8, 10, 11, 13, 14, 15, 26]); // LOCKED NOMEM READONLY IOERR CORRUPT FULL CANTOPEN PROTOCOL NOTADB

/**
 * The embedded store: one SQLite database in a folder, shared safely by every
 * process that opens the same folder (WAL mode; writers queue on SQLite's lock
 * for at most BUSY_TIMEOUT_MS). Claims are one INSERT … ON CONFLICT … WHERE
 * expired, so the database itself decides the single winner. Commits are
 * synced to disk (synchronous=FULL): a redeem is not forgotten by a power cut
 * (counters excepted: see transaction()).
 *
 * node:sqlite is synchronous; every statement here is short, and each method
 * runs without awaiting in the middle, so a transaction never interleaves with
 * another call of this process.
 *
 * Opening is lazy and retried: a folder that cannot be created or written makes
 * operations throw StateUnavailableError, and the next operation tries again.
 */
export class SqliteStateStore implements StateStore {
  readonly description: string;
  private readonly file: string;
  private db: DatabaseSync | undefined;
  private statements: Statements | undefined;
  private closed = false;
  private lastPurge = 0;
  /** Unsynced appends of one turn of the event loop share a transaction: they guard nothing, and each commit is a WAL write. */
  private readonly unsyncedAppends = new GroupCommit<PendingAppend, string[]>((appends) =>
    this.transaction((s, now) => appends.map((append) => appendIn(s, now, append)), false),
  );

  constructor(readonly dir: string) {
    this.description = `SQLite in ${dir}`;
    this.file = join(dir, SQLITE_FILE);
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    return settle(() => {
      checkName(key);
      const ttl = checkTtl(ttlMs);
      return this.run(true, (s, now) => s.claim.run(key, now + ttl, now).changes === 1);
    });
  }

  get(key: string): Promise<string | undefined> {
    return settle(() => {
      checkName(key);
      return this.run(false, (s, now) => (s.get.get(key, now) as { value: string } | undefined)?.value);
    });
  }

  put(key: string, value: string, ttlMs?: number): Promise<void> {
    return settle(() => {
      checkName(key);
      const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
      this.run(true, (s, now) => s.put.run(key, value, ttl === undefined ? null : now + ttl));
    });
  }

  putIfAbsent(key: string, value: string, ttlMs?: number): Promise<string> {
    return settle(() => {
      checkName(key);
      const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
      return this.transaction((s, now) => {
        const existing = s.get.get(key, now) as { value: string } | undefined;
        if (existing) {
          return existing.value;
        }
        s.put.run(key, value, ttl === undefined ? null : now + ttl);
        return value;
      });
    });
  }

  replaceIf(key: string, expected: string, value: string, ttlMs?: number): Promise<boolean> {
    return settle(() => {
      checkName(key);
      const ttl = ttlMs === undefined ? undefined : checkTtl(ttlMs);
      return this.run(true, (s, now) => s.replaceIf.run(value, ttl === undefined ? null : now + ttl, key, expected, now).changes === 1);
    });
  }

  delete(key: string): Promise<void> {
    return settle(() => {
      checkName(key);
      this.transaction((s) => {
        s.deleteRecord.run(key);
        s.deleteEntries.run(key);
        s.deleteStream.run(key);
      });
    });
  }

  increment(key: string, by: number, ttlMs: number): Promise<number> {
    return settle(() => {
      checkName(key);
      checkIncrement(by);
      const ttl = checkTtl(ttlMs);
      return this.transaction((s, now) => {
        const existing = s.get.get(key, now) as { value: string; expires_at: number | null } | undefined;
        let next = by;
        if (existing) {
          const current = /^-?\d+$/.test(existing.value) ? Number(existing.value) : NaN;
          if (!Number.isSafeInteger(current)) {
            throw new TypeError(`the state record "${key}" does not hold a whole number, so it cannot be incremented`);
          }
          next = current + by;
          if (!Number.isSafeInteger(next)) {
            throw new RangeError(`incrementing "${key}" by ${by} overflows`);
          }
        }
        s.put.run(key, String(next), existing?.expires_at ?? now + ttl);
        return next;
      }, false);
    });
  }

  async append(stream: string, value: string, options: AppendOptions = {}): Promise<string> {
    const [id] = await this.appendMany(stream, [value], options);
    return id;
  }

  appendMany(stream: string, values: readonly string[], options: AppendOptions = {}): Promise<string[]> {
    return settle(() => {
      checkName(stream, 'stream');
      const append: PendingAppend = {
        stream,
        values,
        maxLength: checkMaxLength(options.maxLength),
        ttl: options.ttlMs === undefined ? undefined : checkTtl(options.ttlMs),
      };
      if (values.length === 0) {
        return [];
      }
      if (options.synced === false) {
        return this.unsyncedAppends.add(append);
      }
      return this.transaction((s, now) => appendIn(s, now, append));
    });
  }

  read(stream: string, options: { after?: string; limit?: number } = {}): Promise<StreamEntry[]> {
    return this.readRange(stream, 'readAfter', options.after ?? MIN_ID, options.limit);
  }

  readLatest(stream: string, options: { before?: string; limit?: number } = {}): Promise<StreamEntry[]> {
    return this.readRange(stream, 'readBefore', options.before ?? MAX_ID, options.limit);
  }

  /** Entries after (or, newest first, before) `from`, an entry id or the stream's end. */
  private readRange(
    stream: string,
    statement: 'readAfter' | 'readBefore',
    from: string | [number, number],
    limit: number | undefined,
  ): Promise<StreamEntry[]> {
    return settle(() => {
      checkName(stream, 'stream');
      const [ms, seq] = typeof from === 'string' ? parseEntryId(from) : from;
      const max = checkLimit(limit);
      if (max === 0) {
        return [];
      }
      return this.run(false, (s, now) => toEntries(s[statement].all(stream, now, ms, seq, max ?? -1)));
    });
  }

  removeEntry(stream: string, id: string): Promise<boolean> {
    return settle(() => {
      checkName(stream, 'stream');
      const [ms, seq] = parseEntryId(id);
      return this.transaction((s, now) => {
        // An expired stream's leftovers are gone already, as far as readers can tell.
        if (!s.stream.get(stream, now) || s.removeEntry.run(stream, ms, seq).changes !== 1) {
          return false;
        }
        s.shorten.run(stream);
        return true;
      });
    });
  }

  ping(): Promise<void> {
    return settle(() => {
      // A read alone would pass on a folder that became read-only; the purge is a real (cheap) write.
      this.run(true, (s, now) => {
        s.purgeRecords.run(now);
      });
    });
  }

  close(): Promise<void> {
    return settle(() => {
      this.closed = true;
      this.reset();
    });
  }

  private run<T>(writes: boolean, fn: (s: Statements, now: number) => T): T {
    const s = this.open();
    const now = Date.now();
    try {
      if (writes) {
        this.purgeNowAndThen(s, now);
      }
      return fn(s, now);
    } catch (error) {
      throw this.translate(error);
    }
  }

  /**
   * One write transaction. `synced: false` is for counters, which are a
   * lower bound of Google's own count (QuotaLedger), and for appends that ask
   * for it (AppendOptions.synced: stream events kept for resumption): their commit skips the
   * fsync (synchronous=NORMAL; in WAL mode that still survives a crash of the
   * process, and only a power cut may lose the latest counts). node:sqlite is
   * synchronous, so a synced commit stalls every request of this process on
   * the disk (~9 ms each on our machines, two per URL inspection); claims,
   * approvals and audit entries keep it.
   */
  private transaction<T>(fn: (s: Statements, now: number) => T, synced = true): T {
    return this.run(true, (s, now) => {
      const db = this.db!;
      if (!synced) {
        db.exec('PRAGMA synchronous = NORMAL');
      }
      try {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = fn(s, now);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.isTransaction) {
            db.exec('ROLLBACK');
          }
          throw error;
        }
      } finally {
        if (!synced) {
          db.exec('PRAGMA synchronous = FULL');
        }
      }
    });
  }

  private purgeNowAndThen(s: Statements, now: number): void {
    if (now - this.lastPurge < PURGE_EVERY_MS) {
      return;
    }
    this.lastPurge = now;
    const db = this.db!;
    db.exec('BEGIN IMMEDIATE');
    try {
      s.purgeRecords.run(now);
      s.purgeEntries.run(now);
      s.purgeStreams.run(now);
      db.exec('COMMIT');
    } catch (error) {
      if (db.isTransaction) {
        db.exec('ROLLBACK');
      }
      throw error;
    }
  }

  private open(): Statements {
    if (this.closed) {
      throw new StateUnavailableError(this.description, 'the store was closed', 'cannot be used');
    }
    if (this.statements) {
      return this.statements;
    }
    let db: DatabaseSync | undefined;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      // Created 0600 before SQLite opens it (an empty file is an empty database); SQLite gives its -wal and -shm files the same mode.
      closeSync(openSync(this.file, 'a', 0o600));
      db = new DatabaseSync(this.file);
      // Set before anything else: the WAL switch and the schema may wait on a sibling process's lock.
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.prepare('PRAGMA journal_mode = WAL').get();
      db.exec('PRAGMA synchronous = FULL');
      const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
      if (version < SCHEMA_VERSION) {
        db.exec('BEGIN IMMEDIATE');
        try {
          db.exec(SCHEMA);
          db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
          db.exec('COMMIT');
        } catch (error) {
          if (db.isTransaction) {
            db.exec('ROLLBACK');
          }
          throw error;
        }
      } else if (version > SCHEMA_VERSION) {
        throw new Error(`${this.file} was written by a newer version of this server (schema ${version}; this one knows ${SCHEMA_VERSION})`);
      }
      this.statements = prepareStatements(db);
      this.db = db;
      return this.statements;
    } catch (error) {
      try {
        db?.close();
      } catch {
        // already unusable; the original error is the one worth reporting
      }
      throw new StateUnavailableError(this.description, reasonOf(error), 'cannot be used');
    }
  }

  private translate(error: unknown): unknown {
    const code = sqliteCode(error);
    const fsError = typeof (error as NodeJS.ErrnoException)?.code === 'string' && /^E[A-Z]+$/.test((error as NodeJS.ErrnoException).code!);
    if (code === undefined && !fsError) {
      return error;
    }
    if (code !== undefined && !UNAVAILABLE_CODES.has(code & 0xff)) {
      return error;
    }
    // A lock held too long passes; anything else (disk gone, file replaced, read-only) is retried from a fresh open.
    if (code === undefined || (code & 0xff) !== SQLITE_BUSY) {
      this.reset();
    }
    return new StateUnavailableError(this.description, reasonOf(error), 'cannot be used');
  }

  private reset(): void {
    const db = this.db;
    this.db = undefined;
    this.statements = undefined;
    try {
      db?.close();
    } catch {
      // closing a broken handle may fail too; it is dropped either way
    }
  }
}

function sqliteCode(error: unknown): number | undefined {
  const e = error as { code?: unknown; errcode?: unknown };
  return e?.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number' ? e.errcode : undefined;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
