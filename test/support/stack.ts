import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import type { EmulatorOptions } from '../../src/emulator/google-emulator.js';
import { connectHttp, type TestClient } from './clients.js';
import { startGoogle, type TestGoogle } from './google.js';
import { type RedisServer, startRedisServer } from './redis-server.js';
import { type InProcessServer, startInProcess } from './server.js';

export interface Stack {
  google: TestGoogle;
  server: InProcessServer;
  /** v2 client pinned to 2026-07-28, no elicitation. */
  client: TestClient;
  /** v1 client, 2025-11-25, no elicitation. */
  legacy: TestClient;
}

/**
 * The usual end-to-end set-up of a spec file: the emulator, the real HTTP app
 * in-process, and one client of each protocol revision; the emulator is reset
 * before every test. The returned objects stand for what beforeAll creates, so
 * a spec can destructure them at the top: `const { google, client } = useStack();`.
 */
export function useStack(
  options: { google?: EmulatorOptions; env?: Record<string, string>; overrides?: [unknown, unknown][]; beforeEach?: () => void } = {},
): Stack {
  const stack = {} as Stack;
  beforeAll(async () => {
    stack.google = await startGoogle(options.google);
    stack.server = await startInProcess({ ...stack.google.env, ...options.env }, options.overrides);
    stack.client = await connectHttp(stack.server.url, { revision: '2026-07-28' });
    stack.legacy = await connectHttp(stack.server.url, { revision: '2025-11-25' });
  });
  afterAll(async () => {
    await stack.client?.close();
    await stack.legacy?.close();
    await stack.server?.close();
    await stack.google?.emulator.close();
  });
  beforeEach(() => {
    options.beforeEach?.();
    stack.google.emulator.reset();
  });
  return {
    google: late(() => stack.google),
    server: late(() => stack.server),
    client: late(() => stack.client),
    legacy: late(() => stack.legacy),
  };
}

/**
 * The set-up of specs that spawn their own server processes on a shared store:
 * the emulator and a redis-server of their own for the whole file, the emulator
 * reset before every test, and the emulator's DELETEs of properties as the
 * witness of what reached Google.
 */
export function useGoogleAndRedis(): {
  google: TestGoogle;
  redis: RedisServer;
  deletes: () => ReturnType<TestGoogle['emulator']['apiRequests']>;
} {
  const started = {} as { google: TestGoogle; redis: RedisServer };
  beforeAll(async () => {
    started.google = await startGoogle();
    started.redis = await startRedisServer();
  });
  afterAll(async () => {
    await started.redis?.stop();
    await started.google?.emulator.close();
  });
  beforeEach(() => started.google.emulator.reset());
  return {
    google: late(() => started.google),
    redis: late(() => started.redis),
    deletes: () => started.google.emulator.apiRequests().filter((r) => r.route === 'sites.delete'),
  };
}

function late<T extends object>(resolve: () => T): T {
  return new Proxy({} as T, {
    get(_, key) {
      const target = resolve();
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
