import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectStdio } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';

// The first Intl formatter or collator of a process loads ICU, ~20 ms of a cold
// start that a bare SDK server never pays. The binary answers tools/list
// without it (Nest's logger formatters are made lazily by the bundle, ours on
// first use); a tool that needs Pacific dates loads it when called.

const PROBE = resolve(import.meta.dirname, 'support/intl-probe.mjs');

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google.emulator.close());

async function report(path: string): Promise<{ api: string; afterList: boolean; stack: string }[]> {
  for (let i = 0; i < 100 && !existsSync(path); i++) {
    await sleep(50);
  }
  const text = readFileSync(path, 'utf8');
  return text ? text.split('\n').map((line) => JSON.parse(line)) : [];
}

describe('start-up without ICU', () => {
  it('answers tools/list over stdio before anything uses Intl, which the first Pacific-dated call then does', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gsc-intl-')), 'report.jsonl');
    const client = await connectStdio(
      { ...google.env, NODE_OPTIONS: `--import ${PROBE}`, INTL_PROBE_REPORT: path },
      { revision: '2026-07-28' },
    );
    try {
      expect((await client.listTools()).length).toBeGreaterThan(0);
      const result = await client.call('query_search_analytics', { site_url: 'https://www.example.com/', period: 'last7days' });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const uses = await report(path);
    expect(uses.filter((u) => !u.afterList)).toEqual([]);
    expect(uses.map((u) => u.api)).toContain('Intl.DateTimeFormat');
  });
});
