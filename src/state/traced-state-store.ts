import { type TelemetryHooks, telemetry } from '../common/telemetry.js';
import type { StateStore } from './state-store.js';

/** The contract's operations that make a round trip to the store (description is a field; close and ping are traced too). */
const OPERATIONS = [
  'claim',
  'get',
  'put',
  'putIfAbsent',
  'replaceIf',
  'delete',
  'increment',
  'append',
  'appendMany',
  'read',
  'readLatest',
  'removeEntry',
  'ping',
  'close',
] as const satisfies readonly (keyof StateStore)[];

/** A key's namespace ("call-round" of "call-round:…"): the key itself names principals and properties, so it is never recorded. */
const NAMESPACE = /^([a-z][a-z0-9_-]{0,31}):/;

/**
 * The store as it is when telemetry is off; otherwise the same store with each
 * operation run as a state-store span (db.system.name, db.operation.name, the
 * key's namespace), a child of the request that made it.
 */
export function withTelemetry(store: StateStore, system: 'sqlite' | 'redis'): StateStore {
  const hooks = telemetry();
  return hooks ? traced(store, system, hooks) : store;
}

function traced(store: StateStore, system: string, hooks: TelemetryHooks): StateStore {
  const wrapped: Record<string, unknown> = {};
  for (const operation of OPERATIONS) {
    const run = (store[operation] as (...args: unknown[]) => Promise<unknown>).bind(store);
    wrapped[operation] = (...args: unknown[]) => {
      const namespace = typeof args[0] === 'string' ? NAMESPACE.exec(args[0])?.[1] : undefined;
      return hooks.state({ system, operation, namespace }, () => run(...args));
    };
  }
  return Object.assign(Object.create(store) as StateStore, wrapped);
}
