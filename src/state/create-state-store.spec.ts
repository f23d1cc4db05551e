import { describe, expect, it } from '@jest/globals';
import { createStateStore } from './create-state-store.js';
import { parseRedisUrl, RedisStateStore } from './redis-state-store.js';
import { SqliteStateStore } from './sqlite-state-store.js';

describe('createStateStore', () => {
  it('makes the store the options name, opening nothing yet', () => {
    expect(createStateStore({ kind: 'sqlite', dir: '/nonexistent/for/now' })).toBeInstanceOf(SqliteStateStore);
    expect(createStateStore({ kind: 'redis', url: 'redis://127.0.0.1:1/0' })).toBeInstanceOf(RedisStateStore);
  });
});

describe('parseRedisUrl', () => {
  it.each([
    ['redis://localhost:6379/0', 'redis://localhost:6379/0', []],
    ['redis://localhost', 'redis://localhost', []],
    ['rediss://cache.example.com:6380/2', 'rediss://cache.example.com:6380/2', []],
    ['redis://:hunter2@h:1/0', 'redis://:***@h:1/0', ['hunter2']],
    ['redis://app:p%40ss%3Aword@h:1', 'redis://app:***@h:1', ['p%40ss%3Aword', 'p@ss:word']],
    ['redis://app@h:1', 'redis://app@h:1', []],
    ['redis://h:1/0?password=qs-secret', 'redis://h:1/0', ['qs-secret']],
    ['redis://[::1]:6379/0', 'redis://[::1]:6379/0', []],
  ])('%s is shown as %s', (url, shown, secrets) => {
    const parsed = parseRedisUrl(url);
    expect(parsed.shown).toBe(shown);
    expect([...parsed.secrets].sort()).toEqual([...secrets].sort());
    for (const secret of secrets) {
      expect(new RedisStateStore(url).description).not.toContain(secret);
    }
  });

  it.each(['not a url', 'http://h:1', 'localhost:6379', 'unix:///tmp/redis.sock'])('refuses %s without echoing it', (url) => {
    expect(() => parseRedisUrl(url)).toThrow(/redis:\/\/.*rediss:\/\//);
  });
});
