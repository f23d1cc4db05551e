// Issue 29: in connected mode an answer names the Google account that acted,
// never "this credential", "the credential" or "the service account" — the
// words of the shared-credential mode, which here would leave a person unsure
// which of their accounts Google saw. Every tool whose answer speaks of the
// identity acting at Google is called over a real MCP client against the
// emulator, as a person with a real grant.

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, type TestClient, text } from './support/clients.js';
import { type ConnectedGoogle, saveGrant, startConnectedGoogle } from './support/connected-kit.js';
import { type InProcessServer, startInProcess } from './support/server.js';

const OWNED = SEED_PROPERTIES.owned; // https://www.example.com/, alice@example.com's
const ALICE = 'alice@example.com';
const NOBODY = 'nobody-here@example.com';
/** Words of the shared-credential mode; Google's own quoted text is left out of the check. */
const SHARED_WORDS = /\bthis credential\b|\bthe credential\b|\bcredential's\b|service account|configured credential/i;
const ours = (said: string) => said.replace(/"[^"]*"/g, '""');

let google: ConnectedGoogle;
let server: InProcessServer;
let store: GrantStore;
let client: TestClient;
beforeAll(async () => {
  google = await startConnectedGoogle();
  google.emulator.registerGoogleUser({ email: NOBODY, sub: '229999999999999999999', sites: {} });
  server = await startInProcess(google.env);
  store = server.app.get(GrantStore, { strict: false });
  client = await connectHttp(server.url, { revision: '2026-07-28' });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  await google?.close();
});

async function connectedAs(user: string): Promise<void> {
  for (const { googleSub } of (await store.read('local')).usable) {
    await store.remove('local', googleSub);
  }
  await saveGrant(store, 'local', await google.mint(user));
}

describe('answers in connected mode name the Google account that acted', () => {
  it('setup_site, get_verification_token and verify_site say which Google account owns the property', async () => {
    await connectedAs(ALICE);
    const answers: string[] = [];
    for (const [tool, args] of [
      ['setup_site', { site_url: OWNED }],
      ['get_verification_token', { site_url: OWNED }],
      ['verify_site', { site_url: OWNED, method: 'META' }],
    ] as const) {
      const result = await client.call(tool, args);
      const said = text(result);
      answers.push(said);
      expect([tool, ours(said)]).not.toEqual([tool, expect.stringMatching(SHARED_WORDS)]);
    }
    expect(answers.join('\n')).toContain(`the Google account ${ALICE}`);
  });

  it('list_sites and list_verified_sites of an account with nothing name that account', async () => {
    await connectedAs(NOBODY);
    const sites = text(await client.call('list_sites'));
    expect(sites).toContain(`No Search Console properties are available to the Google account ${NOBODY}.`);
    expect(sites).toContain(`Add the Google account ${NOBODY} as a user of a property in Search Console`);
    const verified = text(await client.call('list_verified_sites'));
    expect(verified).toContain(`The Google account ${NOBODY} is not a verified owner of any site or domain.`);
    expect(ours(`${sites}\n${verified}`)).not.toMatch(SHARED_WORDS);
  });

  it('a Site Verification id the account does not own names the account', async () => {
    await connectedAs(ALICE);
    // A property alice has in Search Console, with no Site Verification resource of hers.
    const id = encodeURIComponent('https://shop.example.com/');
    const result = await client.call('get_verified_site', { id });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`The Google account ${ALICE} owns no Site Verification resource with id "https://shop.example.com/"`);
    expect(ours(text(result))).not.toMatch(SHARED_WORDS);
  });

  it('a verification with a tag method says whose Analytics or Tag Manager access it needs', async () => {
    await connectedAs(ALICE);
    const said = text(await client.call('get_verification_token', { site_url: 'https://shop.example.com/', method: 'ANALYTICS' }));
    expect(said).toContain(`an Analytics property the Google account ${ALICE} can edit`);
    expect(ours(said)).not.toMatch(SHARED_WORDS);
  });
});
