import { RedisStateStore } from './redis-state-store.js';
import { SqliteStateStore } from './sqlite-state-store.js';
import type { StateConfig } from '../config/server-settings.js';
import type { StateStore } from './state-store.js';
import { withTelemetry } from './traced-state-store.js';

/**
 * The store the configuration names. Nothing is opened or connected here:
 * the first operation does that, and a store that cannot be reached makes
 * operations throw StateUnavailableError rather than this function. With
 * telemetry on, every operation is a span (traced-state-store.ts).
 */
export function createStateStore(options: StateConfig): StateStore {
  return options.kind === 'redis'
    ? withTelemetry(new RedisStateStore(options.url), 'redis')
    : withTelemetry(new SqliteStateStore(options.dir), 'sqlite');
}
