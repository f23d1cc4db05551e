// The SQLite store's schema and statements, and the pieces of its writes that run inside a transaction.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { StreamEntry } from './state-store.js';

export const SCHEMA_VERSION = 1;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER);
CREATE INDEX IF NOT EXISTS records_expiry ON records (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS streams (name TEXT PRIMARY KEY, last_ms INTEGER NOT NULL, last_seq INTEGER NOT NULL, length INTEGER NOT NULL, expires_at INTEGER);
CREATE INDEX IF NOT EXISTS streams_expiry ON streams (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS entries (stream TEXT NOT NULL, ms INTEGER NOT NULL, seq INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (stream, ms, seq));
`;

export type Statements = ReturnType<typeof prepareStatements>;

export function prepareStatements(db: DatabaseSync) {
  const live = '(expires_at IS NULL OR expires_at > ?)';
  return {
    claim: db.prepare(
      `INSERT INTO records (key, value, expires_at) VALUES (?, '1', ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
       WHERE records.expires_at IS NOT NULL AND records.expires_at <= ?`,
    ),
    get: db.prepare(`SELECT value, expires_at FROM records WHERE key = ? AND ${live}`),
    put: db.prepare(
      `INSERT INTO records (key, value, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    ),
    // One statement, so the database decides: another process's write between a read and this one makes it change nothing.
    replaceIf: db.prepare(`UPDATE records SET value = ?, expires_at = ? WHERE key = ? AND value = ? AND ${live}`),
    deleteRecord: db.prepare('DELETE FROM records WHERE key = ?'),
    deleteEntries: db.prepare('DELETE FROM entries WHERE stream = ?'),
    deleteStream: db.prepare('DELETE FROM streams WHERE name = ?'),
    stream: db.prepare(`SELECT last_ms, last_seq, length, expires_at FROM streams WHERE name = ? AND ${live}`),
    saveStream: db.prepare(
      `INSERT INTO streams (name, last_ms, last_seq, length, expires_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET last_ms = excluded.last_ms, last_seq = excluded.last_seq, length = excluded.length, expires_at = excluded.expires_at`,
    ),
    insertEntry: db.prepare('INSERT INTO entries (stream, ms, seq, value) VALUES (?, ?, ?, ?)'),
    removeEntry: db.prepare('DELETE FROM entries WHERE stream = ? AND ms = ? AND seq = ?'),
    shorten: db.prepare('UPDATE streams SET length = length - 1 WHERE name = ?'),
    // Drops the ?2 oldest entries: the work is proportional to what goes, not to what stays.
    trim: db.prepare(
      `DELETE FROM entries WHERE stream = ?1 AND (ms, seq) <=
         (SELECT ms, seq FROM entries WHERE stream = ?1 ORDER BY ms, seq LIMIT 1 OFFSET ?2 - 1)`,
    ),
    readAfter: db.prepare(
      `SELECT ms, seq, value FROM entries
       WHERE stream = ?1 AND EXISTS (SELECT 1 FROM streams WHERE name = ?1 AND (expires_at IS NULL OR expires_at > ?2))
         AND (ms, seq) > (?3, ?4)
       ORDER BY ms, seq LIMIT ?5`,
    ),
    readBefore: db.prepare(
      `SELECT ms, seq, value FROM entries
       WHERE stream = ?1 AND EXISTS (SELECT 1 FROM streams WHERE name = ?1 AND (expires_at IS NULL OR expires_at > ?2))
         AND (ms, seq) < (?3, ?4)
       ORDER BY ms DESC, seq DESC LIMIT ?5`,
    ),
    purgeRecords: db.prepare('DELETE FROM records WHERE expires_at <= ?'),
    purgeEntries: db.prepare('DELETE FROM entries WHERE stream IN (SELECT name FROM streams WHERE expires_at <= ?)'),
    purgeStreams: db.prepare('DELETE FROM streams WHERE expires_at <= ?'),
  } satisfies Record<string, StatementSync>;
}

export type PendingAppend = { stream: string; values: readonly string[]; maxLength: number | undefined; ttl: number | undefined };

/** One append inside a write transaction: ids `<ms>-<seq>` after the stream's last, trimmed to maxLength, its expiry pushed back by ttl. */
export function appendIn(s: Statements, now: number, { stream, values, maxLength, ttl }: PendingAppend): string[] {
  const current = s.stream.get(stream, now) as { last_ms: number; last_seq: number; length: number; expires_at: number | null } | undefined;
  if (!current) {
    // An expired stream's leftovers go now, so they cannot reappear under the new one.
    s.deleteEntries.run(stream);
  }
  let ms = current?.last_ms ?? -1;
  let seq = current?.last_seq ?? 0;
  const ids: string[] = [];
  for (const value of values) {
    if (now > ms) {
      [ms, seq] = [now, 0];
    } else {
      seq += 1;
    }
    s.insertEntry.run(stream, ms, seq, value);
    ids.push(`${ms}-${seq}`);
  }
  let length = (current?.length ?? 0) + values.length;
  if (maxLength !== undefined && length > maxLength) {
    s.trim.run(stream, length - maxLength);
    length = maxLength;
  }
  s.saveStream.run(stream, ms, seq, length, ttl === undefined ? (current?.expires_at ?? null) : now + ttl);
  return ids;
}

export function toEntries(rows: unknown[]): StreamEntry[] {
  return (rows as { ms: number; seq: number; value: string }[]).map((r) => ({ id: `${r.ms}-${r.seq}`, value: r.value }));
}
