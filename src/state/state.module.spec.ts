import { describe, expect, it } from '@jest/globals';
import { type DynamicModule, Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStateStore } from './create-state-store.js';
import { STATE_STORE, StateModule } from './state.module.js';
import { type StateStore, StateUnavailableError } from './state-store.js';

@Injectable()
class Consumer {
  constructor(@Inject(STATE_STORE) readonly store: StateStore) {}
}
@Module({ providers: [Consumer] })
class ConsumerModule {}

/** A module that names StateModule among its imports: the one way to reach STATE_STORE (it is not @Global). */
const consumerOf = (state: DynamicModule): DynamicModule => ({ module: ConsumerModule, imports: [state] });

describe('StateModule', () => {
  it('gives every module the one store it built from the options, and closes it on shutdown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsc-state-module-'));
    const state = StateModule.forRoot({ kind: 'sqlite', dir });
    const moduleRef = await Test.createTestingModule({ imports: [state, consumerOf(state)] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const store = app.get(Consumer).store;
    expect(store).toBe(app.get(STATE_STORE));
    expect(store.description).toBe(`SQLite in ${dir}`);
    expect(await store.claim('k', 60_000)).toBe(true);
    await app.close();
    await expect(store.claim('k2', 60_000)).rejects.toBeInstanceOf(StateUnavailableError);
    rmSync(dir, { recursive: true, force: true });
  });

  it('is not global: a module that does not import it cannot inject STATE_STORE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsc-state-module-'));
    const store = createStateStore({ kind: 'sqlite', dir });
    const compiling = Test.createTestingModule({ imports: [StateModule.forRoot({ store }), ConsumerModule] }).compile();
    await expect(compiling).rejects.toThrow(/can't resolve dependencies of the Consumer/);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves a store it was given open: its owner closes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsc-state-module-'));
    const store = createStateStore({ kind: 'sqlite', dir });
    const state = StateModule.forRoot({ store });
    const moduleRef = await Test.createTestingModule({ imports: [state, consumerOf(state)] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    expect(app.get(Consumer).store).toBe(store);
    await app.close();
    expect(await store.claim('k', 60_000)).toBe(true);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
