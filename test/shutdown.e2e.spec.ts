import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { spawnHttpBinary } from './support/http-binary.js';

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google.emulator.close());

describe('graceful shutdown (SIGTERM)', () => {
  it('lets a guarded call already talking to Google finish, answers it, then exits 0', async () => {
    const server = await spawnHttpBinary(google.env);
    const modern = await connectHttp(server.url, { revision: '2026-07-28' });
    const legacy = await connectHttp(server.url, { revision: '2025-11-25' });
    const issued = await modern.call('delete_site', { site_url: SEED_PROPERTIES.blog });
    google.emulator.setLatency('sites.delete', 800);
    google.emulator.setLatency('sites.list', 800);

    const deleting = modern.call('delete_site', { site_url: SEED_PROPERTIES.blog, confirm_token: issued.structuredContent!.confirm_token });
    const listing = legacy.call('list_sites');
    await new Promise((r) => setTimeout(r, 300)); // both calls are now waiting on Google (800 ms latency)
    const exited = new Promise<number | null>((resolve) => server.process.on('exit', (code) => resolve(code)));
    server.process.kill('SIGTERM');

    const [deleted, listed] = await Promise.all([deleting, listing]);
    expect(deleted.structuredContent).toMatchObject({ executed: true, outcome: 'executed' });
    expect(listed.isError).toBeFalsy();
    expect(await exited).toBe(0);
    expect(google.emulator.apiRequests().filter((r) => r.route === 'sites.delete')).toHaveLength(1);
    expect(server.stderr()).toMatch(/waiting for \d running tool call/);
    await modern.close().catch(() => undefined);
    await legacy.close().catch(() => undefined);
    google.emulator.clearFaults();
  });

  it('does not wait for a connection that never sent a request: the server closes it and exits 0', async () => {
    const server = await spawnHttpBinary(google.env);
    const { port } = new URL(server.url);
    // A client's or load balancer's spare connection: open, and silent. SIGTERM comes right after the start-up line.
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined); // the server may reset it rather than end it
    await new Promise((connected) => socket.once('connect', connected));
    const closedByServer = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
    const exited = new Promise<number | null>((resolve) => server.process.on('exit', (code) => resolve(code)));
    server.process.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await closedByServer).toBe(true);
  });
});
