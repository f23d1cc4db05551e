import { createHash } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import { SERVER_NAME } from '../common/product.js';
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

/** Every key this server writes starts with this, so it can share a Redis database with other programs. */
const REDIS_KEY_PREFIX = 'gsc-mcp:';

/** Bounds that keep every operation from hanging on a Redis that is down, unreachable or stuck. */
const REDIS_TIMEOUTS = { connectMs: 2000, commandMs: 2000, maxReconnectDelayMs: 1000 } as const;

// Lua, so that each is one atomic step on Redis ≥ 6.2 (PEXPIRE NX and SET NX GET would need 7.0).
const INCREMENT = `local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`;
const PUT_IF_ABSENT = `local v = redis.call('GET', KEYS[1])
if v then return v end
if ARGV[2] == '0' then redis.call('SET', KEYS[1], ARGV[1]) else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return false`;
const REPLACE_IF = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '0' then redis.call('SET', KEYS[1], ARGV[2]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1`;
// Each value is kept under field 'v' (stream entries are field/value lists).
// ARGV: maxLength or 0, ttl or 0, then the values. Three times faster than a MULTI of XADDs for 50 000 rows.
const APPEND = `local ids = {}
for i = 3, #ARGV do ids[#ids + 1] = redis.call('XADD', KEYS[1], '*', 'v', ARGV[i]) end
if ARGV[1] ~= '0' then redis.call('XTRIM', KEYS[1], 'MAXLEN', ARGV[1]) end
if ARGV[2] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return ids`;
/** Values per script call: bounds one command's size; larger batches are several calls inside one MULTI. */
const APPEND_CHUNK = 10_000;

/**
 * The shared store for several replicas. Single use is one `SET key 1 NX PX ttl`,
 * so exactly one redeem wins across every process on the server.
 *
 * Fail fast, recover by itself: there is no offline queue (a command sent while
 * disconnected is refused at once), connect and command timeouts are bounded,
 * commands in flight when the connection drops are refused rather than resent
 * (a resent claim would read its own write as "already used"), and the client
 * keeps reconnecting in the background, so Redis coming back needs no restart.
 *
 * ioredis is imported on first use: processes on the embedded store never load it.
 */
export class RedisStateStore implements StateStore {
  readonly description: string;
  private readonly secrets: string[];
  private connection: Promise<Redis> | undefined;
  private lastError: string | undefined;
  private closed = false;
  private readonly shas = new Map<string, string>();

  constructor(private readonly url: string) {
    const parsed = parseRedisUrl(url);
    this.description = `Redis at ${parsed.shown}`;
    this.secrets = parsed.secrets;
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    checkName(key);
    const ttl = checkTtl(ttlMs);
    return (await this.command('SET', this.key(key), '1', 'NX', 'PX', ttl)) === 'OK';
  }

  async get(key: string): Promise<string | undefined> {
    checkName(key);
    return ((await this.command('GET', this.key(key))) as string | null) ?? undefined;
  }

  async put(key: string, value: string, ttlMs?: number): Promise<void> {
    checkName(key);
    const ttl = ttlMs === undefined ? [] : ['PX', checkTtl(ttlMs)];
    await this.command('SET', this.key(key), value, ...ttl);
  }

  async putIfAbsent(key: string, value: string, ttlMs?: number): Promise<string> {
    checkName(key);
    const ttl = ttlMs === undefined ? 0 : checkTtl(ttlMs);
    const existing = (await this.script(PUT_IF_ABSENT, this.key(key), value, ttl)) as string | null;
    return existing ?? value;
  }

  async replaceIf(key: string, expected: string, value: string, ttlMs?: number): Promise<boolean> {
    checkName(key);
    const ttl = ttlMs === undefined ? 0 : checkTtl(ttlMs);
    return Number(await this.script(REPLACE_IF, this.key(key), expected, value, ttl)) === 1;
  }

  async delete(key: string): Promise<void> {
    checkName(key);
    await this.command('DEL', this.key(key));
  }

  async increment(key: string, by: number, ttlMs: number): Promise<number> {
    checkName(key);
    checkIncrement(by);
    const ttl = checkTtl(ttlMs);
    return Number(await this.script(INCREMENT, this.key(key), by, ttl));
  }

  async append(stream: string, value: string, options: AppendOptions = {}): Promise<string> {
    const [id] = await this.appendMany(stream, [value], options);
    return id;
  }

  async appendMany(stream: string, values: readonly string[], options: AppendOptions = {}): Promise<string[]> {
    checkName(stream, 'stream');
    const maxLength = checkMaxLength(options.maxLength);
    const ttl = options.ttlMs === undefined ? undefined : checkTtl(options.ttlMs);
    if (values.length === 0) {
      return [];
    }
    const key = this.key(stream);
    if (values.length <= APPEND_CHUNK) {
      return (await this.script(APPEND, key, maxLength ?? 0, ttl ?? 0, ...values)) as string[];
    }
    const commands: (string | number)[][] = [];
    for (let i = 0; i < values.length; i += APPEND_CHUNK) {
      const last = i + APPEND_CHUNK >= values.length;
      commands.push(['eval', APPEND, 1, key, last ? (maxLength ?? 0) : 0, last ? (ttl ?? 0) : 0, ...values.slice(i, i + APPEND_CHUNK)]);
    }
    const client = await this.ready();
    let results: [Error | null, unknown][] | null;
    try {
      results = await client.multi(commands).exec();
    } catch (error) {
      throw this.failure(error);
    }
    if (!results) {
      throw new StateUnavailableError(this.description, 'the transaction was aborted');
    }
    const failed = results.find(([error]) => error);
    if (failed) {
      throw this.failure(failed[0]);
    }
    return results.flatMap(([, ids]) => ids as string[]);
  }

  async read(stream: string, options: { after?: string; limit?: number } = {}): Promise<StreamEntry[]> {
    checkName(stream, 'stream');
    const limit = checkLimit(options.limit);
    if (limit === 0) {
      return [];
    }
    const start = options.after === undefined ? '-' : `(${entryId(options.after)}`;
    const count = limit === undefined ? [] : ['COUNT', limit];
    return toEntries(await this.command('XRANGE', this.key(stream), start, '+', ...count));
  }

  async readLatest(stream: string, options: { before?: string; limit?: number } = {}): Promise<StreamEntry[]> {
    checkName(stream, 'stream');
    const limit = checkLimit(options.limit);
    if (limit === 0) {
      return [];
    }
    if (options.before !== undefined && entryId(options.before) === '0-0') {
      return [];
    }
    const end = options.before === undefined ? '+' : `(${entryId(options.before)}`;
    const count = limit === undefined ? [] : ['COUNT', limit];
    return toEntries(await this.command('XREVRANGE', this.key(stream), end, '-', ...count));
  }

  async removeEntry(stream: string, id: string): Promise<boolean> {
    checkName(stream, 'stream');
    return Number(await this.command('XDEL', this.key(stream), entryId(id))) === 1;
  }

  async ping(): Promise<void> {
    await this.command('PING');
  }

  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    if (!this.connection) {
      return;
    }
    const client = await this.connection;
    if (client.status === 'ready') {
      try {
        await client.quit();
        return;
      } catch {
        // fall through: a connection that cannot say goodbye is simply dropped
      }
    }
    client.disconnect();
  }

  private key(name: string): string {
    return REDIS_KEY_PREFIX + name;
  }

  private async command(name: string, ...args: (string | number)[]): Promise<unknown> {
    const client = await this.ready();
    try {
      return await client.call(name, ...args);
    } catch (error) {
      throw this.failure(error);
    }
  }

  /** EVALSHA, loading the script with EVAL on the first call after a Redis restart (NOSCRIPT). */
  private async script(lua: string, key: string, ...args: (string | number)[]): Promise<unknown> {
    let sha = this.shas.get(lua);
    if (!sha) {
      this.shas.set(lua, (sha = createHash('sha1').update(lua).digest('hex')));
    }
    const client = await this.ready();
    try {
      return await client.call('EVALSHA', sha, 1, key, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) {
        throw this.failure(error);
      }
      try {
        return await client.call('EVAL', lua, 1, key, ...args);
      } catch (again) {
        throw this.failure(again);
      }
    }
  }

  /** A connected client, or StateUnavailableError at once; waits only for a connection attempt already under way. */
  private async ready(): Promise<Redis> {
    if (this.closed) {
      throw new StateUnavailableError(this.description, 'the store was closed');
    }
    const client = await this.client();
    if (client.status === 'ready') {
      return client;
    }
    if (client.status === 'connecting' || client.status === 'connect' || client.status === 'wait') {
      if (client.status === 'wait') {
        client.connect().catch(() => undefined);
      }
      await this.attempt(client);
      return client;
    }
    throw new StateUnavailableError(this.description, this.lastError ?? `the connection is ${client.status}`);
  }

  private attempt(client: Redis): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (error?: string) => {
        clearTimeout(timer);
        client.off('ready', onReady);
        client.off('close', onClose);
        client.off('end', onClose);
        if (error === undefined) {
          resolve();
        } else {
          reject(new StateUnavailableError(this.description, error));
        }
      };
      const onReady = () => done();
      const onClose = () => done(this.lastError ?? 'the connection was closed');
      const timer = setTimeout(
        () => done(this.lastError ?? `no connection within ${REDIS_TIMEOUTS.connectMs} ms`),
        REDIS_TIMEOUTS.connectMs + 250,
      );
      client.on('ready', onReady);
      client.on('close', onClose);
      client.on('end', onClose);
    });
  }

  private client(): Promise<Redis> {
    this.connection ??= import('ioredis').then(({ Redis: Client }) => {
      const options: RedisOptions = {
        connectTimeout: REDIS_TIMEOUTS.connectMs,
        commandTimeout: REDIS_TIMEOUTS.commandMs,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
        // ioredis arms this timer even for a socket that is already closed (Redis down) and never clears it,
        // holding a shutting-down process open that long.
        disconnectTimeout: 200,
        retryStrategy: (times) => Math.min(times * 100, REDIS_TIMEOUTS.maxReconnectDelayMs),
        // RESP2 works with every Redis-speaking server and proxy; nothing here needs RESP3.
        protocol: 2,
        connectionName: SERVER_NAME,
      };
      const client = new Client(this.url, options);
      client.on('error', (error: Error) => {
        this.lastError = this.mask(error.message);
      });
      client.on('ready', () => {
        this.lastError = undefined;
      });
      // Until a reconnection attempt fails with a reason of its own, say what happened rather than "reconnecting".
      client.on('close', () => {
        this.lastError ??= 'the connection was lost';
      });
      return client;
    });
    return this.connection;
  }

  /** Connection trouble is "unavailable"; a refusal of a well-formed command (WRONGTYPE, not an integer) is a bug, said as such. */
  private failure(error: unknown): Error {
    if (error instanceof StateUnavailableError) {
      return error;
    }
    const message = this.mask(error instanceof Error ? error.message : String(error));
    if (
      error instanceof Error &&
      error.name === 'ReplyError' &&
      /^(WRONGTYPE|ERR (value|increment|Invalid stream ID|The ID specified))/.test(message)
    ) {
      return new Error(`the state store (${this.description}) refused an operation: ${message}`);
    }
    const lost = /^(Connection is closed|Reached the max retries|Stream isn't writeable)/.test(message);
    return new StateUnavailableError(this.description, lost && this.lastError ? this.lastError : message);
  }

  private mask(text: string): string {
    let masked = text;
    for (const secret of this.secrets) {
      masked = masked.split(secret).join('***');
    }
    return masked;
  }
}

/** The URL as it may be shown (password replaced, query left out) and the strings that must never be shown. */
export function parseRedisUrl(url: string): { shown: string; secrets: string[] } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('the Redis URL is not a URL; expected redis://[user[:password]@]host[:port][/db] or rediss://…');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error(`the Redis URL must start with redis:// or rediss://, not ${parsed.protocol}//`);
  }
  const secrets = [...new Set([parsed.password, decoded(parsed.password), parsed.searchParams.get('password') ?? ''])]
    .filter((s) => s.length > 0)
    .sort((a, b) => b.length - a.length);
  const user = decoded(parsed.username);
  const auth = parsed.password ? `${user}:***@` : user ? `${user}@` : '';
  const path = parsed.pathname && parsed.pathname !== '/' ? parsed.pathname : '';
  return { shown: `${parsed.protocol}//${auth}${parsed.host}${path}`, secrets };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function entryId(id: string): string {
  parseEntryId(id);
  return id;
}

function toEntries(reply: unknown): StreamEntry[] {
  return (reply as [string, string[]][]).map(([id, fields]) => ({ id, value: fields[1] ?? '' }));
}
