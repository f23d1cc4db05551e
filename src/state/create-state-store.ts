import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { RedisStateStore } from './redis-state-store.js';
import { SqliteStateStore } from './sqlite-state-store.js';
import type { StateStore, StateStoreOptions } from './state-store.js';

/** The folder name under the user's state directory. */
export const STATE_DIR_NAME = 'google-search-console-mcp';

/**
 * Where the embedded store lives when GSC_STATE_DIR is unset: the XDG Base
 * Directory spec's state home ($XDG_STATE_HOME, used only when absolute, as the
 * spec says), else ~/.local/state.
 */
export function defaultStateDir(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.local', 'state'), STATE_DIR_NAME);
}

/**
 * The store the configuration names. Nothing is opened or connected here:
 * the first operation does that, and a store that cannot be reached makes
 * operations throw StateUnavailableError rather than this function.
 */
export function createStateStore(options: StateStoreOptions): StateStore {
  return options.kind === 'redis' ? new RedisStateStore(options.url) : new SqliteStateStore(options.dir);
}
