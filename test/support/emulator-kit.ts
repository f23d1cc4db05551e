import { afterAll, beforeAll, beforeEach } from '@jest/globals';
import { type EmulatorKit, startEmulatorKit } from '../../src/emulator/emulator-test-kit.js';
import type { EmulatorOptions } from '../../src/emulator/emulator-types.js';

// Jest hooks live here, not in src/emulator: the kit is built into dist, where
// the emulator's timing script loads it outside jest.

/**
 * The usual set-up of an emulator spec: one kit for the file, reset before
 * every test. The returned object stands for the kit beforeAll starts, so a
 * spec can keep it in a const at the top.
 */
export function useEmulatorKit(options: EmulatorOptions = {}): EmulatorKit {
  let kit: EmulatorKit | undefined;
  beforeAll(async () => {
    kit = await startEmulatorKit(options);
  });
  afterAll(() => kit?.emulator.close());
  beforeEach(() => kit!.emulator.reset());
  return new Proxy({} as EmulatorKit, { get: (_, key) => Reflect.get(kit!, key) as unknown });
}
