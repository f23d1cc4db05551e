import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  isInputRequiredResult,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ConnectRequests } from '../accounts/connect-requests.js';
import type { Config } from '../config/config.js';
import type { ConnectedGrant } from '../google/connected-accounts.js';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { AccountResolution, type Resolution } from './account-resolution.js';
import { CallRounds } from './asking.js';
import type { AccountSite, AccountSites } from './account-sites.js';
import { ToolCall } from '../tools/tool-call.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { ToolSpec } from '../tools/tool-spec.js';

const grant = (googleEmail: string, googleSub: string): ConnectedGrant => ({
  principal: 'ann@corp.example',
  googleSub,
  googleEmail,
  scopes: [],
  connectedAt: '2026-12-03T09:00:00Z',
});
const ALICE = grant('alice@example.com', '1');
const BOB = grant('bob@example.net', '2');
const SEES: Record<string, AccountSite[]> = {
  '1': [
    { siteUrl: 'sc-domain:example.com', permissionLevel: 'siteOwner' },
    { siteUrl: 'https://www.example.com/', permissionLevel: 'siteOwner' },
  ],
  '2': [
    { siteUrl: 'https://blog.example.net/', permissionLevel: 'siteOwner' },
    { siteUrl: 'https://www.example.com/', permissionLevel: 'siteRestrictedUser' },
  ],
};

/** Each subject's own state store (rounds and the accounts used before), the real one over SQLite. */
const stores: SqliteStateStore[] = [];
/** The round memory over the same store (asking.ts), as the account step uses it beside the resolution. */
const roundsOf = new WeakMap<AccountResolution, CallRounds>();
afterAll(() => Promise.all(stores.map((s) => s.close())));

function subject(
  grants: ConnectedGrant[] = [ALICE, BOB],
  failing?: string,
  sees: Record<string, AccountSite[]> = SEES,
  cache: Record<string, AccountSite[]> = {},
) {
  const looked: string[] = [];
  const cached = new Map(Object.entries(cache));
  const sites = {
    grantsOf: () => Promise.resolve(grants),
    sitesOf: (g: ConnectedGrant) => {
      const held = cached.get(g.googleSub);
      if (held) {
        return Promise.resolve({ grant: g, sites: held, cached: true });
      }
      looked.push(g.googleEmail);
      if (g.googleSub === failing) {
        return Promise.reject(new Error(`Google refused the lookup for ${g.googleEmail}`));
      }
      return Promise.resolve({ grant: g, sites: sees[g.googleSub] ?? [], cached: false });
    },
    forget: (g: ConnectedGrant) => Promise.resolve(void cached.delete(g.googleSub)),
  } as unknown as AccountSites;
  const requests = {
    create: () => Promise.resolve({ url: 'http://127.0.0.1:9/connect/google?request=abc', expiresAt: new Date('2026-12-03T10:00:00Z') }),
  } as unknown as ConnectRequests;
  const store = new SqliteStateStore(mkdtempSync(join(tmpdir(), 'gsc-account-resolution-')));
  stores.push(store);
  const resolution = new AccountResolution({ elicitation: true } as unknown as Config, sites, requests, store);
  roundsOf.set(resolution, new CallRounds(store));
  return { resolution, looked };
}

function callOf(
  spec: Partial<ToolSpec>,
  options: { responses?: Record<string, unknown>; form?: boolean; sites?: string[]; state?: string } = {},
) {
  const tool = { spec: { access: 'read', apis: ['searchconsole'], ...spec } } as unknown as RegisteredTool;
  const sdk = {
    mcpReq: {
      inputResponses: options.responses,
      requestState: () => options.state,
      envelope: { [CLIENT_CAPABILITIES_META_KEY]: { elicitation: options.form === false ? { url: {} } : { form: {} } } },
      signal: new AbortController().signal,
    },
  } as unknown as ServerContext;
  return new ToolCall(tool, {
    era: 'modern',
    sdk,
    server: {} as McpServer,
    caller: { principal: 'ann@corp.example', groups: [] },
    access: {
      rule: undefined,
      decidedBy: 'server',
      annotations: 'shared',
      tools: new Set([spec.name!]),
      ...(options.sites ? { sites: options.sites } : {}),
    },
  });
}

const isAsk = (r: Resolution | undefined) => !!r && 'answer' in r && isInputRequiredResult(r.answer);

/** The chooser a resolution asked: its message and the google_account field of its schema. */
function question(r: Resolution | undefined): { message: string; schema: { oneOf: { const: string; title: string }[]; default?: string } } {
  if (!r || !('answer' in r) || !isInputRequiredResult(r.answer)) {
    throw new Error(`not a question: ${JSON.stringify(r)}`);
  }
  const params = (r.answer.inputRequests as Record<string, { params: { message: string; requestedSchema: any } }>).google_account.params;
  return { message: params.message, schema: params.requestedSchema.properties.google_account };
}

/** The requestState the round of `asked` went out with (as the account step remembers it, asking.ts). */
async function roundOf(resolution: AccountResolution, call: ToolCall, args: Record<string, unknown>, asked: Resolution | undefined) {
  const r = asked as { answer: InputRequiredResult; offered: string[] };
  return (await roundsOf.get(resolution)!.remember(call, args, r.answer, { offered: r.offered })).requestState!;
}

const chosen = (r: Resolution | undefined) => (r && 'grant' in r ? r.grant.googleEmail : undefined);
const said = (r: Resolution | undefined) =>
  r && 'answer' in r && !isInputRequiredResult(r.answer) ? (r.answer.content[0] as { text: string }).text : undefined;

describe('AccountResolution', () => {
  it('a tool that takes no property is not resolved (it runs over every account)', async () => {
    const { resolution, looked } = subject();
    expect(await resolution.resolve(callOf({ name: 'list_sites' }), {}, [])).toBeUndefined();
    expect(looked).toEqual([]);
  });

  it('a property, a page and a Site Verification id each resolve to the one account that has it', async () => {
    const { resolution } = subject();
    const site = callOf({ name: 'get_site', target: ['site'] });
    expect(chosen(await resolution.resolve(site, { site_url: 'https://blog.example.net' }, []))).toBe(BOB.googleEmail);
    const page = callOf({ name: 'get_indexing_status', target: ['page'] });
    expect(chosen(await resolution.resolve(page, { url: 'https://shop.example.com/x' }, []))).toBe(ALICE.googleEmail);
    const resource = callOf({ name: 'get_verified_site', target: ['resource'] });
    expect(chosen(await resolution.resolve(resource, { id: 'dns%3A%2F%2Fexample.com' }, []))).toBe(ALICE.googleEmail);
  });

  it('none → a sentence naming the accounts and the connect link', async () => {
    const { resolution } = subject();
    const text = said(await resolution.resolve(callOf({ name: 'get_site', target: ['site'] }), { site_url: 'https://x.test/' }, []));
    expect(text).toMatch(/None of the Google accounts connected for you has https:\/\/x\.test\//);
    expect(text).toContain('alice@example.com has sc-domain:example.com');
    expect(text).toContain('http://127.0.0.1:9/connect/google?request=abc');
  });

  it('several → a form listing each account with its permission on the property; only an answer to that question counts', async () => {
    const { resolution } = subject();
    const spec = { name: 'delete_sitemap', target: ['site'] } as Partial<ToolSpec>;
    const args = { site_url: 'https://www.example.com/', sitemap_url: 'https://www.example.com/s.xml' };
    const asked = await resolution.resolve(callOf(spec), args, []);
    const form = question(asked);
    expect(form.schema.oneOf).toEqual([
      { const: ALICE.googleEmail, title: 'alice@example.com (owner)' },
      { const: BOB.googleEmail, title: 'bob@example.net (restricted user, read-only)' },
    ]);
    expect(form.message).toContain('bob@example.net (restricted user, read-only)');
    const pickBob = { google_account: { action: 'accept', content: { google_account: BOB.googleEmail } } };
    // The same answer without the round that asked it (an "accept" nobody asked for) is no answer: asked afresh.
    expect(isAsk(await resolution.resolve(callOf(spec, { responses: pickBob }), args, []))).toBe(true);
    // With the round the question went out in: the choice holds.
    const state = await roundOf(resolution, callOf(spec), args, asked);
    const answered = await resolution.resolve(
      callOf(spec, { responses: pickBob, state }),
      args,
      [],
      await roundsOf.get(resolution)!.open(callOf(spec, { state }), args),
    );
    expect(chosen(answered)).toBe(BOB.googleEmail);
    // A round is single use: bringing it again is no answer.
    expect(await roundsOf.get(resolution)!.open(callOf(spec, { state }), args)).toBeUndefined();
    // The approval round after it brings only its own answer: the choice the previous round carried stands.
    expect(
      chosen(
        await resolution.resolve(callOf(spec, { responses: { approval: {} } }), args, [], { asked: ['approval'], chosen: BOB.googleSub }),
      ),
    ).toBe(BOB.googleEmail);
    // Another call (other arguments) gets nothing from that round.
    const other = { ...args, sitemap_url: 'https://www.example.com/t.xml' };
    const state2 = await roundOf(resolution, callOf(spec), args, asked);
    expect(await roundsOf.get(resolution)!.open(callOf(spec, { state: state2 }), other)).toBeUndefined();
  });

  it('an answer naming an account the question did not offer is no answer; declining sends nothing', async () => {
    const { resolution } = subject();
    const spec = { name: 'get_site', target: ['site'] } as Partial<ToolSpec>;
    const args = { site_url: 'https://www.example.com/' };
    const round = { asked: ['google_account'], offered: [ALICE.googleSub] };
    const pickBob = { google_account: { action: 'accept', content: { google_account: BOB.googleEmail } } };
    expect(isAsk(await resolution.resolve(callOf(spec, { responses: pickBob }), args, [], round))).toBe(true);
    const declined = await resolution.resolve(callOf(spec, { responses: { google_account: { action: 'decline' } } }), args, [], round);
    expect(said(declined)).toMatch(/No Google account was chosen.*nothing was sent to Google/);
  });

  it('several, and no form can reach a person → an error naming them and google_account; google_account settles it', async () => {
    const { resolution } = subject();
    const spec = { name: 'get_site', target: ['site'] } as Partial<ToolSpec>;
    const text = said(await resolution.resolve(callOf(spec, { form: false }), { site_url: 'https://www.example.com/' }, []));
    // Each with its permission on the property, as the chooser shows it.
    expect(text).toContain('(alice@example.com (owner), bob@example.net (restricted user, read-only))');
    expect(text).toContain('google_account');
    const named = await resolution.resolve(
      callOf(spec, { form: false }),
      { site_url: 'https://www.example.com/', google_account: 'BOB@example.net' },
      [],
    );
    expect(chosen(named)).toBe(BOB.googleEmail);
  });

  it('arguments the guard refuses before Google hears of them choose no account and look nothing up', async () => {
    const { resolution, looked } = subject();
    const site = callOf({ name: 'get_site', target: ['site'] }, { sites: ['https://blog.example.net/'] });
    expect(await resolution.resolve(site, { site_url: 'sc-domain:example.com' }, [])).toEqual({ refused: true });
    expect(await resolution.resolve(site, { site_url: 'example.com' }, [])).toEqual({ refused: true });
    expect(await resolution.resolve(site, {}, [])).toEqual({ refused: true });
    const page = callOf({ name: 'get_indexing_status', target: ['page'] }, { sites: ['https://blog.example.net/'] });
    expect(await resolution.resolve(page, { url: 'https://shop.example.com/x' }, [])).toEqual({ refused: true });
    expect(await resolution.resolve(page, { url: 'not a url' }, [])).toEqual({ refused: true });
    expect(looked).toEqual([]);
  });

  it('a page resolves to the longest covering URL-prefix property across accounts, not to a covering domain', async () => {
    const { resolution } = subject([ALICE, BOB], undefined, {
      '1': [{ siteUrl: 'sc-domain:example.com', permissionLevel: 'siteOwner' }],
      '2': [
        { siteUrl: 'https://www.example.com/', permissionLevel: 'siteRestrictedUser' },
        { siteUrl: 'https://www.example.com/shop/', permissionLevel: 'siteFullUser' },
      ],
    });
    const page = callOf({ name: 'get_indexing_status', target: ['page'] });
    const deep = await resolution.resolve(page, { url: 'https://www.example.com/shop/a?b=1#c' }, []);
    expect(deep).toMatchObject({ grant: BOB, property: 'https://www.example.com/shop/' });
    expect(await resolution.resolve(page, { url: 'https://WWW.example.com/shopping' }, [])).toMatchObject({
      grant: BOB,
      property: 'https://www.example.com/',
    });
    expect(await resolution.resolve(page, { url: 'https://blog.example.com/' }, [])).toMatchObject({
      grant: ALICE,
      property: 'sc-domain:example.com',
    });
  });

  it('the account calls for a property used before is gone: asked (the chooser offering the rest), never switched silently', async () => {
    const { resolution } = subject([ALICE, BOB]);
    const spec = { name: 'get_site', target: ['site'] } as Partial<ToolSpec>;
    const args = { site_url: 'https://www.example.com/' };
    // Bob was named for it, so Bob is the account it used.
    expect(chosen(await resolution.resolve(callOf(spec), { ...args, google_account: BOB.googleEmail }, []))).toBe(BOB.googleEmail);
    // Bob disconnected; only Alice (an owner, where Bob was restricted) has it now.
    const after = subject([ALICE]);
    (after.resolution as unknown as { memory: unknown }).memory = (resolution as unknown as { memory: unknown }).memory;
    const asked = question(await after.resolution.resolve(callOf(spec), args, []));
    expect(asked.message).toMatch(/acted as bob@example\.net until now, which is no longer connected/);
    expect(asked.schema.oneOf).toEqual([{ const: ALICE.googleEmail, title: 'alice@example.com (owner)' }]);
    // The token path names the accounts that remain, and the argument that settles it.
    const token = said(await after.resolution.resolve(callOf(spec, { form: false }), args, []));
    expect(token).toMatch(
      /acted as bob@example\.net until now.*alice@example\.com \(owner\).*did not run and nothing was sent to Google.*google_account/,
    );
    // Naming Alice makes her the account it uses: later calls go on without asking.
    expect(chosen(await after.resolution.resolve(callOf(spec, { form: false }), { ...args, google_account: ALICE.googleEmail }, []))).toBe(
      ALICE.googleEmail,
    );
    expect(chosen(await after.resolution.resolve(callOf(spec, { form: false }), args, []))).toBe(ALICE.googleEmail);
  });

  it('a Site Verification id that names no property: one account fetches it; with several, the person says which holds it', async () => {
    const spec = { name: 'get_verified_site', target: ['resource'], apis: [] } as unknown as Partial<ToolSpec>;
    const one = subject([BOB]);
    expect(chosen(await one.resolution.resolve(callOf(spec), { id: 'android-app://com.example' }, []))).toBe(BOB.googleEmail);
    const several = subject([ALICE, BOB]);
    const asked = question(await several.resolution.resolve(callOf(spec), { id: 'android-app://com.example' }, []));
    expect(asked.message).toMatch(/names no Search Console property.*which of your Google accounts holds it is not known/);
    expect(asked.schema.oneOf.map((o) => o.const)).toEqual([ALICE.googleEmail, BOB.googleEmail]);
    const token = said(await several.resolution.resolve(callOf(spec, { form: false }), { id: 'android-app://com.example' }, []));
    expect(token).toMatch(/alice@example\.com, bob@example\.net.*google_account/);
    // An id whose property no account lists is the same question, never the newest account.
    expect(isAsk(await several.resolution.resolve(callOf(spec), { id: 'https%3A%2F%2Fnowhere.example%2F' }, []))).toBe(true);
  });

  it('texts about accounts name only properties the caller may use and count the rest', async () => {
    const { resolution } = subject();
    const call = callOf({ name: 'get_site', target: ['site'] }, { sites: ['https://blog.example.net/', 'https://x.test/'] });
    const text = said(await resolution.resolve(call, { site_url: 'https://x.test/' }, []));
    expect(text).toContain('bob@example.net has https://blog.example.net/');
    expect(text).toContain('alice@example.com has no property you may use here');
    expect(text).not.toMatch(/sc-domain:example\.com|www\.example\.com/);
    expect(text).toMatch(/3 more properties withheld/);
  });

  it('one account that lacks the property still gets the sentence (its list is checked)', async () => {
    const { resolution, looked } = subject([BOB]);
    const text = said(await resolution.resolve(callOf({ name: 'get_site', target: ['site'] }), { site_url: 'sc-domain:example.com' }, []));
    expect(text).toMatch(/None of the Google accounts/);
    expect(looked).toEqual([BOB.googleEmail]);
  });

  it("an account whose properties could not be read: never 'none has it'; the others still resolve what they have", async () => {
    const { resolution } = subject([ALICE, BOB], BOB.googleSub);
    const spec = { name: 'get_site', target: ['site'] } as Partial<ToolSpec>;
    await expect(resolution.resolve(callOf(spec), { site_url: 'https://blog.example.net/' }, [])).rejects.toThrow(/bob@example\.net/);
    expect(chosen(await resolution.resolve(callOf(spec), { site_url: 'sc-domain:example.com' }, []))).toBe(ALICE.googleEmail);
  });
  it('the resolution names the property it resolved to (for a page, the one it belongs to) and the level the account has on it', async () => {
    const { resolution } = subject();
    const page = await resolution.resolve(
      callOf({ name: 'request_indexing', target: ['page'] }),
      { url: 'https://Shop.example.com/job?id=1#x' },
      [],
    );
    expect(page).toMatchObject({ grant: ALICE, property: 'sc-domain:example.com', permissionLevel: 'siteOwner' });
    const site = await resolution.resolve(callOf({ name: 'get_site', target: ['site'] }), { site_url: 'HTTPS://BLOG.EXAMPLE.NET' }, []);
    expect(site).toMatchObject({ grant: BOB, property: 'https://blog.example.net/', permissionLevel: 'siteOwner' });
    // Named: the level of the named account, not of another that holds it too.
    const named = await resolution.resolve(
      callOf({ name: 'get_site', target: ['site'] }),
      { site_url: 'https://www.example.com/', google_account: BOB.googleEmail },
      [],
    );
    expect(named).toMatchObject({ grant: BOB, permissionLevel: 'siteRestrictedUser' });
  });

  it('a page whose most specific property both accounts have is asked about, naming the page and that property', async () => {
    const { resolution } = subject();
    const asked = question(
      await resolution.resolve(callOf({ name: 'get_indexing_status', target: ['page'] }), { url: 'https://www.example.com/a/b' }, []),
    );
    expect(asked.message).toContain('https://www.example.com/a/b (property https://www.example.com/)');
    expect(asked.schema.oneOf.map((o) => o.const)).toEqual([ALICE.googleEmail, BOB.googleEmail]);
  });

  it('a page let through by a narrower allowlist entry, whose property is withheld: the question names the page only', async () => {
    const { resolution } = subject();
    const call = callOf({ name: 'get_indexing_status', target: ['page'] }, { sites: ['https://www.example.com/a/'] });
    const asked = question(await resolution.resolve(call, { url: 'https://www.example.com/a/b' }, []));
    expect(asked.message).toContain('https://www.example.com/a/b in Search Console');
    expect(asked.message).not.toContain('property https://www.example.com/');
  });

  it('google_account that lacks the property: refused before anything is sent, naming the account that has it', async () => {
    const { resolution } = subject();
    const text = said(
      await resolution.resolve(
        callOf({ name: 'get_site', target: ['site'] }),
        { site_url: 'https://blog.example.net/', google_account: ALICE.googleEmail },
        [],
      ),
    );
    expect(text).toMatch(
      /^alice@example\.com has no property for https:\/\/blog\.example\.net\/ .*nothing was sent to Google.*bob@example\.net has it/,
    );
    // A page: the account named must hold the property the page belongs to.
    const page = said(
      await resolution.resolve(
        callOf({ name: 'get_indexing_status', target: ['page'] }),
        { url: 'https://blog.example.net/post', google_account: 'ALICE@example.com' },
        [],
      ),
    );
    expect(page).toMatch(/^alice@example\.com has no property for https:\/\/blog\.example\.net\/post .*bob@example\.net has it/);
  });

  it('google_account whose properties cannot be read: that failure is the answer', async () => {
    const { resolution } = subject([ALICE, BOB], BOB.googleSub);
    const spec = { name: 'get_site', target: ['site'] } as Partial<ToolSpec>;
    await expect(
      resolution.resolve(callOf(spec), { site_url: 'https://www.example.com/', google_account: BOB.googleEmail }, []),
    ).rejects.toThrow(/bob@example\.net/);
  });

  it('"none" from a cached list is looked up again first: the property may have been added at Google since', async () => {
    const { resolution, looked } = subject([BOB], undefined, SEES, {
      '2': [{ siteUrl: 'https://old.example.net/', permissionLevel: 'siteOwner' }],
    });
    const found = await resolution.resolve(callOf({ name: 'get_site', target: ['site'] }), { site_url: 'https://blog.example.net/' }, []);
    expect(found).toMatchObject({ grant: BOB, cached: false });
    expect(looked).toEqual([BOB.googleEmail]);
  });
});
