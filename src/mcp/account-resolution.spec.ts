import { describe, expect, it } from '@jest/globals';
import { CLIENT_CAPABILITIES_META_KEY, isInputRequiredResult, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { ConnectRequests } from '../accounts/connect-requests.js';
import type { Config } from '../config/config.js';
import type { ConnectedGrant } from '../google/connected-accounts.js';
import type { StateStore } from '../state/state-store.js';
import { AccountResolution, type Resolution } from './account-resolution.js';
import type { AccountSite, AccountSites } from './account-sites.js';
import { ToolCall } from './tool-call.js';
import type { RegisteredTool } from './tool-registry.service.js';
import type { ToolSpec } from './tool.decorator.js';

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

function subject(grants: ConnectedGrant[] = [ALICE, BOB], failing?: string) {
  const looked: string[] = [];
  const kept = new Map<string, string>();
  const sites = {
    grantsOf: () => Promise.resolve(grants),
    sitesOf: (g: ConnectedGrant) => {
      looked.push(g.googleEmail);
      if (g.googleSub === failing) {
        return Promise.reject(new Error(`Google refused the lookup for ${g.googleEmail}`));
      }
      return Promise.resolve({ grant: g, sites: SEES[g.googleSub], cached: false });
    },
  } as unknown as AccountSites;
  const requests = {
    create: () => Promise.resolve({ url: 'http://127.0.0.1:9/connect/google?request=abc', expiresAt: new Date('2026-12-03T10:00:00Z') }),
  } as unknown as ConnectRequests;
  const store = {
    get: (k: string) => Promise.resolve(kept.get(k)),
    put: (k: string, v: string) => Promise.resolve(void kept.set(k, v)),
    delete: (k: string) => Promise.resolve(void kept.delete(k)),
  } as unknown as StateStore;
  const resolution = new AccountResolution({ elicitation: true } as unknown as Config, sites, requests, store);
  return { resolution, looked, kept };
}

function callOf(spec: Partial<ToolSpec>, options: { responses?: Record<string, unknown>; form?: boolean; sites?: string[] } = {}) {
  const tool = { spec: { access: 'read', apis: ['searchconsole'], ...spec } } as unknown as RegisteredTool;
  const sdk = {
    mcpReq: {
      inputResponses: options.responses,
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

  it('several → a form listing them; the answer is kept for the later rounds of the same call only, until settled', async () => {
    const { resolution, kept } = subject();
    const spec = { name: 'delete_sitemap', target: ['site'] } as Partial<ToolSpec>;
    const args = { site_url: 'https://www.example.com/', sitemap_url: 'https://www.example.com/s.xml' };
    const asked = await resolution.resolve(callOf(spec), args, []);
    expect(asked && 'answer' in asked && isInputRequiredResult(asked.answer)).toBe(true);
    const answered = await resolution.resolve(
      callOf(spec, { responses: { google_account: { action: 'accept', content: { google_account: BOB.googleEmail } } } }),
      args,
      [],
    );
    expect(chosen(answered)).toBe(BOB.googleEmail);
    // The approval round brings only its own answer: the choice stands for this very call.
    expect(chosen(await resolution.resolve(callOf(spec, { responses: { approval: {} } }), args, []))).toBe(BOB.googleEmail);
    // Other arguments are another call: asked again.
    const other = await resolution.resolve(callOf(spec), { ...args, sitemap_url: 'https://www.example.com/t.xml' }, []);
    expect(other && 'answer' in other && isInputRequiredResult(other.answer)).toBe(true);
    await resolution.settled((answered as { choice: string }).choice);
    expect(kept.size).toBe(0);
    const again = await resolution.resolve(callOf(spec), args, []);
    expect(again && 'answer' in again && isInputRequiredResult(again.answer)).toBe(true);
  });

  it('several, and no form can reach a person → an error naming them and google_account; google_account settles it', async () => {
    const { resolution } = subject();
    const spec = { name: 'get_site', target: ['site'] } as Partial<ToolSpec>;
    const text = said(await resolution.resolve(callOf(spec, { form: false }), { site_url: 'https://www.example.com/' }, []));
    expect(text).toMatch(/alice@example\.com, bob@example\.net|bob@example\.net, alice@example\.com/);
    expect(text).toContain('google_account');
    const named = await resolution.resolve(
      callOf(spec, { form: false }),
      { site_url: 'https://www.example.com/', google_account: 'BOB@example.net' },
      [],
    );
    expect(chosen(named)).toBe(BOB.googleEmail);
  });

  it('outside the allowlist: no lookup at all (SiteAccessGuard refuses it, nothing is sent)', async () => {
    const { resolution, looked } = subject();
    const call = callOf({ name: 'get_site', target: ['site'] }, { sites: ['https://blog.example.net/'] });
    expect(chosen(await resolution.resolve(call, { site_url: 'sc-domain:example.com' }, []))).toBeDefined();
    expect(looked).toEqual([]);
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
});
