// Property resolution fuzzed, second depth: through the real server. One
// emulator as Google (five Google users whose Search Console properties are
// set per layout), one in-process server in OAuth resource-server mode with
// connected accounts, GSC_ALLOWED_SITES and a policy file giving three kinds
// of people three different "sites" rules; each layout is a person of its own
// (a principal new to the server, so nothing one layout's calls left behind —
// the account a property's calls acted as — carries into the next, where that
// account may no longer be connected and the server rightly asks), with the
// layout's connected accounts, and the official MCP clients make the layout's
// calls (a form-capable client that answers the account question, and a
// client without elicitation: the token path). Each answer is judged by the
// oracle of test/support/resolution-fuzz.ts and by what Google saw: the
// emulator's request log says which Google account each request came from
// and which property it named. FUZZ_SEED replays; FUZZ_E2E_LAYOUTS changes
// how many layouts (default 500).

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GrantStore } from '../src/accounts/grant-store.js';
import { GoogleEmulator } from '../src/emulator/google-emulator.js';
import { connectHttp, type TestClient, text, type ToolResult } from './support/clients.js';
import { connectedEnv, GOOGLE_CLIENT } from './support/connect-kit.js';
import { ALL_TOOL_SCOPES, type LinkClient, linkClientHttp, saveGrant } from './support/connected-kit.js';
import { mintGrant, type MintedGrant } from './support/google-grant.js';
import {
  allowed,
  type Call,
  canonical,
  describeFailure,
  type Expected,
  expected,
  type Fault,
  type FuzzFailure,
  fuzzSeed,
  generateLayout,
  judge,
  type Layout,
  makeRng,
  pagesOutsideSite,
  type Actual,
} from './support/resolution-fuzz.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { TestIssuer } from './support/test-issuer.js';

const SEED = fuzzSeed();
const LAYOUTS = Number(process.env.FUZZ_E2E_LAYOUTS ?? 500);
const CALLS_PER_LAYOUT = 3;
const AUDIENCE = 'https://mcp.fuzz.example/mcp';
const REDIRECT = 'http://127.0.0.1:1/connect/google/callback';
const IDP_CLIENT = { id: 'gsc-fuzz-connect-page', secret: 'idp-client-secret-for-the-fuzz' };

/** The five Google accounts a layout's 1–5 connected accounts are drawn from. */
const USERS = ['fuzz1@gmail.test', 'fuzz2@gmail.test', 'fuzz3@gmail.test', 'fuzz4@gmail.test', 'fuzz5@gmail.test'];
const subOf = (email: string) => `2900000000000000000000${USERS.indexOf(email) + 1}`;

/** GSC_ALLOWED_SITES: most of the fuzz's domains, none of пример.рф, two corners of example.net. */
const SERVER_SITES = [
  'sc-domain:example.com',
  'sc-domain:bücher.de',
  'https://www.example.net/',
  'http://example.net/',
  'SC-DOMAIN:CAFÉ.FR',
];
/**
 * Three kinds of people, three rules: no "sites" (the server's list), and two narrower ones (a rule may only narrow it:
 * start-up checks). A rule holds for every principal of its domain (`*@pat.corp.example`); a layout's person is one of them.
 */
const RULES: Record<string, readonly string[] | undefined> = {
  pat: undefined,
  quinn: ['https://www.example.com/', 'sc-domain:shop.example.com', 'https://xn--bcher-kva.de/fr/', 'http://example.net/'],
  rene: ['sc-domain:café.fr', 'https://www.bücher.de/', 'https://example.com/blog/'],
};
const PEOPLE = Object.keys(RULES);
const domainOf = (person: string) => `${person}.corp.example`;
/** The 2025-11-25 client for one kind of person, 2026-07-28 for the others. */
const LEGACY = 'rene';
/** The Indexing API's 200 publishes a day (this server's own ledger counts them): the rest of request_indexing calls become get_indexing_status. */
const MAX_PUBLISHES = 150;

let emulator: GoogleEmulator;
let issuer: TestIssuer;
let server: InProcessServer;
let store: GrantStore;
const minted = new Map<string, MintedGrant>();
/** Which account the form client answers with next (the fuzz's choice among those offered). */
let chooseNext: (offered: readonly string[]) => string = (offered) => offered[0];

beforeAll(async () => {
  const unlimited = Number.MAX_SAFE_INTEGER;
  emulator = await GoogleEmulator.start({
    quotas: {
      otherPerMinutePerUser: unlimited,
      otherPerSecondPerUser: unlimited,
      inspectionPerMinutePerProperty: unlimited,
      inspectionPerDayPerProperty: unlimited,
      publishPerDay: unlimited,
      metadataPerMinute: unlimited,
      indexingPerMinute: unlimited,
    },
  });
  emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [REDIRECT] });
  for (const email of USERS) {
    emulator.registerGoogleUser({ email, sub: subOf(email), name: email, sites: {} });
    minted.set(email, await mintGrant(emulator, { ...GOOGLE_CLIENT, user: email, scopes: ALL_TOOL_SCOPES, redirectUri: REDIRECT }));
  }
  issuer = await TestIssuer.start({ audience: AUDIENCE });
  const policy = join(mkdtempSync(join(tmpdir(), 'gsc-fuzz-policy-')), 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      rules: PEOPLE.map((person) => ({
        principals: [`*@${domainOf(person)}`],
        tools: ['*'],
        ...(RULES[person] ? { sites: RULES[person] } : {}),
      })),
    }),
  );
  server = await startInProcess({
    ...connectedEnv(emulator),
    GSC_AUTH_ISSUER: issuer.issuer,
    GSC_AUTH_AUDIENCE: AUDIENCE,
    GSC_AUTH_CLIENT_ID: IDP_CLIENT.id,
    GSC_AUTH_CLIENT_SECRET: IDP_CLIENT.secret,
    GSC_ALLOWED_SITES: SERVER_SITES.join(','),
    GSC_POLICY_FILE: policy,
  });
  store = server.app.get(GrantStore, { strict: false });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await issuer?.close();
  await emulator?.close();
});

/** Properties added to the emulator's world for the layout before, removed before the next. */
const added = new Set<string>();

/** Google's side of one layout: each Google user's properties. */
function arrangeGoogle(layout: Layout): void {
  for (const property of added) {
    emulator.state.sites.delete(property);
  }
  added.clear();
  for (const email of USERS) {
    const account = layout.accounts.find((a) => a.email === email);
    const own = Object.fromEntries((account?.holdings ?? []).map((h) => [h.listed, h.level]));
    emulator.registerGoogleUser({ email, sub: subOf(email), name: email, sites: own });
    for (const property of Object.keys(own)) {
      if (!emulator.state.sites.has(property)) {
        emulator.state.sites.set(property, 'siteOwner');
        added.add(property);
      }
    }
  }
}

/**
 * The server's side: the layout's person (a principal new to the server, of the rule of `person`) with the layout's
 * connected accounts, and the two clients that person calls with (one that answers the account question, one without
 * elicitation: the token path).
 */
async function arrangePerson(
  layout: Layout,
  index: number,
  person: string,
): Promise<{ principal: string; form: LinkClient; token: TestClient }> {
  const principal = `layout${index}@${domainOf(person)}`;
  for (const account of layout.accounts) {
    await saveGrant(store, principal, minted.get(account.email)!);
  }
  const headers = {
    authorization: `Bearer ${await issuer.mint({ sub: principal, email: principal, exp: Math.floor(Date.now() / 1000) + 3600 })}`,
  };
  const revision = person === LEGACY ? '2025-11-25' : '2026-07-28';
  const form = await linkClientHttp(server.url, {
    revision,
    headers,
    choose: (offered) => chooseNext(offered.map((o) => o.email)),
  });
  return { principal, form, token: await connectHttp(server.url, { revision }, headers) };
}

function argumentsOf(call: Call): Record<string, unknown> {
  const pages = call.pages?.map((p) => p.text) ?? [];
  return {
    ...(call.site ? { site_url: call.site.text } : {}),
    ...(call.tool === 'inspect_urls' ? { urls: pages } : pages.length ? { url: pages[0] } : {}),
    ...(call.named !== undefined ? { google_account: call.named } : {}),
  };
}

/** The Google requests of one call, the resolution's own sites.list lookups left out: who made them and which property they named. */
function sentToGoogle() {
  return emulator
    .apiRequests()
    .filter((r) => r.route !== 'sites.list')
    .map((r) => ({
      route: r.route,
      user: r.principal,
      property: r.params.siteUrl ?? (r.body as { siteUrl?: string } | undefined)?.siteUrl,
    }));
}

/** Every property-like token of an answer's text. */
function propertiesIn(answer: string): string[] {
  return [...answer.matchAll(/sc-domain:[^\s,;()"]+|https?:\/\/[^\s,;()"]+/g)].map((m) => m[0].replace(/[.:]$/, ''));
}

interface Observed {
  readonly layout: Layout;
  readonly call: Call;
  /** The kind of person (whose rule applies), and the layout's principal of that kind. */
  readonly person: string;
  readonly principal: string;
  readonly path: 'form' | 'token';
  readonly want: Expected;
  readonly pageRefused: boolean;
  readonly result: ToolResult;
  readonly asked: readonly string[][];
  readonly chosen?: string;
  /** What the person was asked (the form's message), or told on the token path. */
  readonly question?: string;
  readonly sent: ReturnType<typeof sentToGoogle>;
}

const observed: Observed[] = [];
let elapsedMs = 0;

beforeAll(async () => {
  const started = performance.now();
  let publishes = 0;
  for (let index = 0; index < LAYOUTS; index++) {
    const person = PEOPLE[index % PEOPLE.length];
    const layout = generateLayout(SEED, index, {
      fixed: { server: SERVER_SITES, ...(RULES[person] ? { rule: RULES[person] } : {}) },
      emails: USERS,
      callsPerLayout: CALLS_PER_LAYOUT,
    });
    arrangeGoogle(layout);
    const { principal, form, token } = await arrangePerson(layout, index, person);
    const rng = makeRng((SEED ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
    for (let call of layout.calls) {
      if (call.tool === 'request_indexing' && ++publishes > MAX_PUBLISHES) {
        call = { ...call, tool: 'get_indexing_status' };
      }
      const path = rng() < 0.25 ? 'token' : 'form';
      const asked: string[][] = [];
      let chosen: string | undefined;
      chooseNext = (offered) => {
        asked.push([...offered]);
        chosen = offered[Math.floor(rng() * offered.length)];
        return chosen;
      };
      emulator.clearLog();
      const before = form.asked.length;
      const result = await (path === 'form' ? form : token).call(call.tool, argumentsOf(call));
      const question = path === 'form' ? form.asked.slice(before).find((q) => q.mode !== 'url')?.message : text(result);
      observed.push({
        layout,
        call,
        person,
        principal,
        path,
        want: expected(layout, call),
        pageRefused: pagesOutsideSite(call),
        result,
        asked,
        chosen,
        ...(question !== undefined ? { question } : {}),
        sent: sentToGoogle(),
      });
    }
    await form.close();
    await token.close();
  }
  elapsedMs = performance.now() - started;
}, 600_000);

/** What the server answered, in the oracle's terms (the account and property Google saw, or the question, or the refusal). */
function actualOf(o: Observed): Actual {
  if (o.asked.length > 0) {
    return { kind: 'ask', emails: o.asked[0] };
  }
  const users = [...new Set(o.sent.map((s) => s.user))];
  if (users.length > 0) {
    const properties = [...new Set(o.sent.flatMap((s) => (s.property ? [s.property] : [])))];
    return { kind: 'match', email: users.join(' and '), ...(properties.length === 1 ? { property: properties[0] } : {}) };
  }
  const said = text(o.result);
  if (o.want.kind === 'ask' && o.path === 'token') {
    // The token path asks in words: the accounts named, and google_account.
    const named = USERS.filter((u) => said.includes(u));
    if (/google_account/.test(said) && named.length > 1) {
      return { kind: 'ask', emails: named };
    }
  }
  if (o.want.kind === 'none') {
    const everyProperty = new Set(o.layout.accounts.flatMap((a) => a.holdings.map((h) => canonical(h.prop))));
    return { kind: 'none', named: propertiesIn(said).filter((p) => everyProperty.has(p)) };
  }
  return { kind: 'refused' };
}

function faultsOf(o: Observed): Fault | 'answered without Google' | 'a refused page reached Google' | undefined {
  if (o.pageRefused) {
    // inspect_url(s) with a page outside its site_url: whatever the account, nothing reaches Google.
    return o.sent.length === 0 && o.result.isError ? undefined : 'a refused page reached Google';
  }
  const got = actualOf(o);
  if (o.want.kind === 'ask' && got.kind === 'ask' && o.path === 'form') {
    const fault = judge(o.want, got);
    if (fault) {
      return fault;
    }
    // The person chose; Google then saw that account and that property only.
    const after = actualOf({ ...o, asked: [] });
    return judge({ kind: 'match', email: o.chosen!, property: o.want.property }, after);
  }
  if ((o.want.kind === 'refused' || o.want.kind === 'none') && !o.result.isError) {
    return 'answered without Google';
  }
  return judge(o.want, got);
}

function failuresOf(kinds: readonly string[]): string[] {
  return observed
    .map((o) => ({ o, fault: faultsOf(o) }))
    .filter(({ fault }) => fault !== undefined && kinds.includes(fault))
    .slice(0, 5)
    .map(({ o, fault }) => {
      const got = actualOf(o);
      const failure: FuzzFailure = { fault: fault as Fault, layout: o.layout, call: o.call, want: o.want, got };
      return `${describeFailure(failure)}\n  person: ${o.principal} (${o.path} path); answer: ${text(o.result).slice(0, 400)}; Google saw: ${JSON.stringify(o.sent)}`;
    });
}

describe(`property resolution fuzz through the server (FUZZ_SEED=${SEED})`, () => {
  it(`${LAYOUTS} layouts: 0 silent wrong picks (account or property), as the emulator saw them`, () => {
    const count = (kind: string) => observed.filter((o) => actualOf(o).kind === kind).length;
    process.stdout.write(
      `property resolution fuzz (server): seed ${SEED}: ${LAYOUTS} layouts, ${observed.length} calls — ${count('match')} resolved, ` +
        `${count('ask')} asked, ${observed.length - count('match') - count('ask')} refused; ` +
        `${observed.filter((o) => ['wrong pick', 'missed ask'].includes(faultsOf(o) ?? '')).length} wrong picks; ` +
        `${Math.round((LAYOUTS / elapsedMs) * 1000)} layouts/s\n`,
    );
    expect(failuresOf(['wrong pick', 'missed ask', 'answered without Google', 'a refused page reached Google'])).toEqual([]);
  });

  it('every true tie is asked (a form listing exactly the accounts that have the property; on the token path, a sentence naming them)', () => {
    expect(observed.some((o) => o.want.kind === 'ask' && o.path === 'form')).toBe(true);
    expect(observed.some((o) => o.want.kind === 'ask' && o.path === 'token')).toBe(true);
    expect(failuresOf(['asked without a tie', 'wrong candidates'])).toEqual([]);
  });

  it('what no account has, what the person may not touch and what does not parse are refused, and nothing is sent to Google', () => {
    expect(observed.some((o) => o.want.kind === 'none')).toBe(true);
    expect(observed.some((o) => o.want.kind === 'refused' && o.want.why === 'outside')).toBe(true);
    expect(failuresOf(['wrong refusal', 'sent as a named account that lacks it'])).toEqual([]);
  });

  it('a question about accounts names only properties the person may use (a page let through by a narrower entry is named as the page)', () => {
    const leaks = observed
      .filter((o) => o.want.kind === 'ask' && !o.pageRefused && o.question)
      .flatMap((o) => {
        const withheld = new Set(
          o.layout.accounts.flatMap((a) => a.holdings.filter((h) => !allowed(o.layout, h.prop)).map((h) => canonical(h.prop))),
        );
        const named = propertiesIn(o.question!).filter((p) => withheld.has(p));
        return named.length
          ? [
              `${o.call.tool} ${JSON.stringify(argumentsOf(o.call))} as ${o.principal}: "${o.question!.slice(0, 300)}" names ${named.join(', ')}`,
            ]
          : [];
      });
    expect(leaks.slice(0, 5)).toEqual([]);
  });

  // Depends on i29b (account texts count what the allowlist and the person's rule withhold, as list_sites does).
  it('a refusal names only properties the person may use (GSC_ALLOWED_SITES narrowed by their rule)', () => {
    expect(failuresOf(['refusal names a withheld property'])).toEqual([]);
  });

  // Depends on i29b (answers naming the property and the Google account they used).
  it('every answer that reached Google names, in its first line and its structuredContent, the property and the Google account used', () => {
    const unnamed = observed
      .filter((o) => !o.result.isError && o.sent.length > 0 && !o.pageRefused)
      .flatMap((o) => {
        const email = o.chosen ?? (o.want.kind === 'match' ? o.want.email : undefined);
        const property = o.want.kind === 'match' || o.want.kind === 'ask' ? o.want.property : undefined;
        const first = text(o.result).split('\n')[0];
        const structured = o.result.structuredContent ?? {};
        const ok =
          email !== undefined &&
          property !== undefined &&
          first.includes(email) &&
          first.includes(property) &&
          structured.google_account === email &&
          JSON.stringify(structured).includes(JSON.stringify(property));
        return ok
          ? []
          : [
              `${o.call.tool} as ${email} on ${property}: first line "${first.slice(0, 200)}", google_account ${String(structured.google_account)}`,
            ];
      });
    expect(unnamed.slice(0, 5)).toEqual([]);
  });

  it('the layouts covered what the fuzz is for: allowed and withheld properties, both paths, both revisions', () => {
    expect(observed.length).toBe(LAYOUTS * CALLS_PER_LAYOUT);
    expect(new Set(observed.map((o) => o.person)).size).toBe(PEOPLE.length);
    expect(observed.some((o) => o.layout.accounts.some((a) => a.holdings.some((h) => !allowed(o.layout, h.prop))))).toBe(true);
    expect(observed.some((o) => o.want.kind === 'match' && o.call.pages && !o.call.site)).toBe(true);
  });
});
