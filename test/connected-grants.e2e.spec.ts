import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SCOPES } from '../src/emulator/emulator-routing.js';
import { GoogleEmulator } from '../src/emulator/google-emulator.js';
import { mintGrant } from './support/google-grant.js';

const CLIENT = {
  clientId: '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-connected-test',
};
const REDIRECT = 'http://127.0.0.1:1/connect/google/callback';

let emulator: GoogleEmulator;
beforeAll(async () => {
  emulator = await GoogleEmulator.start();
});
afterAll(async () => {
  await emulator.close();
});

describe('mintGrant (test support)', () => {
  it('gets a refresh token for the chosen user with the granted scopes, keeping other redirect URIs of the client', async () => {
    emulator.registerOAuthClient({ ...CLIENT, redirectUris: ['http://127.0.0.1:2/other'] });
    const alice = await mintGrant(emulator, { ...CLIENT, user: 'alice@example.com', scopes: [SCOPES.webmasters], redirectUri: REDIRECT });
    expect(alice.email).toBe('alice@example.com');
    expect(alice.sub).toMatch(/^\d+$/);
    expect(alice.refreshToken).toMatch(/^1\/\//);
    expect(alice.scopes).toContain(SCOPES.webmasters);
    expect(emulator.oauth.clients.get(CLIENT.clientId)!.redirectUris).toEqual(['http://127.0.0.1:2/other', REDIRECT]);
    const bob = await mintGrant(emulator, {
      ...CLIENT,
      user: 'bob@example.net',
      scopes: [SCOPES.webmastersReadonly, SCOPES.webmasters],
      untick: [SCOPES.webmasters],
      redirectUri: REDIRECT,
    });
    expect(bob.sub).not.toBe(alice.sub);
    expect(bob.scopes).toContain(SCOPES.webmastersReadonly);
    expect(bob.scopes).not.toContain(SCOPES.webmasters);
  });
});
