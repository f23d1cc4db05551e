import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Clock } from '../src/common/clock.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { ManualClock } from './support/manual-clock.js';
import { modernToolCall } from './support/modern-wire.js';
import { INITIALIZE, rawRequest } from './support/raw-http.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { TestIssuer } from './support/test-issuer.js';

// Key rotation and the key cache, in process: the verifier fetches the key set
// again at most once per 30 s cooldown, and there is no setting to shorten it,
// so the server runs with an injected Clock (a Nest provider override) that the
// test moves, and the issuer signs on the same clock. Everything else is real:
// the HTTP app, the issuer's metadata and JWKS over loopback, jose.

const AUDIENCE = 'https://mcp.test.example/mcp';
const COOLDOWN_MS = 30_000;

let google: TestGoogle;
let issuer: TestIssuer;
let server: InProcessServer;
const clock = new ManualClock('2026-03-02T09:00:00Z');

beforeAll(async () => {
  google = await startGoogle();
  issuer = await TestIssuer.start({ audience: AUDIENCE, clock });
  server = await startInProcess({ ...google.env, GSC_AUTH_ISSUER: issuer.issuer, GSC_AUTH_AUDIENCE: AUDIENCE }, [[Clock, clock]]);
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
  await google?.emulator.close();
});
beforeEach(() => google.emulator.reset());

async function statusWith(token: string): Promise<{ status: number; challenge?: string }> {
  const res = await rawRequest(server.url, { body: INITIALIZE, headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, challenge: res.headers['www-authenticate'] as string | undefined };
}

async function works(token: string): Promise<void> {
  const answer = await modernToolCall(server.url, 'list_sites', {}, { headers: { authorization: `Bearer ${token}` } });
  expect(answer.status).toBe(200);
  expect(answer.body.result.isError).toBeFalsy();
}

describe('a key rotation is picked up without a restart', () => {
  it('new kid: refused only until the cooldown allows one more fetch; then accepted; the old key keeps working while it is published', async () => {
    const first = await issuer.mint();
    await works(first);
    expect(issuer.jwksRequests).toBe(1);

    const oldKid = issuer.kid;
    const newKid = await issuer.rotate();
    expect(newKid).not.toBe(oldKid);
    const rotated = await issuer.mint();
    // The key set was fetched a moment ago: an unknown kid may not trigger another fetch yet.
    clock.advance(1_000);
    expect(await statusWith(rotated)).toMatchObject({
      status: 401,
      challenge: expect.stringMatching(/error_description="the access token is signed with a key the issuer does not publish"/),
    });
    expect(issuer.jwksRequests).toBe(1);

    clock.advance(COOLDOWN_MS);
    await works(await issuer.mint());
    expect(issuer.jwksRequests).toBe(2);
    // One fetch served every later token with the new kid, and the old key is still published.
    await works(await issuer.mint());
    await works(await issuer.mint({ signWith: 'previous' }));
    expect(issuer.jwksRequests).toBe(2);
  });

  it('a key the issuer withdrew stops working once the key set is fetched again', async () => {
    await issuer.rotate({ keepOld: false });
    const withdrawnKidToken = await issuer.mint({ signWith: 'previous' });
    clock.advance(COOLDOWN_MS + 1_000);
    // The new kid makes the server fetch the set; the withdrawn key is gone from it.
    await works(await issuer.mint());
    expect((await statusWith(withdrawnKidToken)).status).toBe(401);
  });

  it('the cache expires on its own (10 min): a withdrawn key stops working even with no new kid seen', async () => {
    const current = await issuer.mint();
    await works(current);
    await issuer.rotate({ keepOld: false });
    const before = issuer.jwksRequests;
    const stale = await issuer.mint({ signWith: 'previous', exp: clock.seconds() + 3600 });
    clock.advance(10 * 60_000 + 1_000);
    expect((await statusWith(stale)).status).toBe(401);
    expect(issuer.jwksRequests).toBe(before + 1);
  });

  it('a rotation during an issuer outage: a token with the new kid cannot be checked (503), and is accepted once the issuer is back', async () => {
    await works(await issuer.mint());
    issuer.jwksStatus = 503;
    await issuer.rotate();
    clock.advance(COOLDOWN_MS + 1_000);
    const rotated = await issuer.mint();
    const during = await rawRequest(server.url, { body: INITIALIZE, headers: { authorization: `Bearer ${rotated}` } });
    // Not 401: the token may well be good, and a 401 sends the client to re-authorise for the issuer's fault.
    expect(during.status).toBe(503);
    expect(during.headers['retry-after']).toMatch(/^\d+$/);
    // A token signed by a key still in the cached set keeps working meanwhile.
    await works(await issuer.mint({ signWith: 'previous' }));

    issuer.jwksStatus = 200;
    clock.advance(COOLDOWN_MS + 1_000);
    await works(rotated);
  });
});
