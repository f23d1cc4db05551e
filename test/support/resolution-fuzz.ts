// Property resolution fuzzed (PRODUCT.md §8d, last paragraph of "Never the
// wrong account, never silently"; §10 "property resolution fuzz"): seeded
// account layouts, the calls a person makes over them, and an oracle that
// says what each call must come to.
//
// The oracle is written from PRODUCT.md §7 and §8d, not from the code under
// test, and imports none of it: every property and page is generated as
// parts (scheme, the host as a Unicode and an ASCII name, path segments) and
// only then spelled the ways people and Google spell it (upper case, Unicode
// or punycode host, no trailing slash, a default port, percent-encoded
// letters, dot segments, queries, fragments; and tricks that must be
// refused). The oracle reads the parts; the code under test gets the spelling.
//
// Self-contained (no imports) and erasable TypeScript, so that the bench
// (bench/resolution.mjs) loads this file as it is with Node's type stripping.

/** PRODUCT.md §8d's rule, as the oracle reads it. */
export const RULE =
  'a site_url names one property exactly (scheme/host case, trailing slash, IDN spelling normalised), never a covering one; ' +
  'a page URL resolves to the exact property, else the longest covering URL-prefix property, else a covering sc-domain:; ' +
  'a tie across accounts is asked; none is refused naming only allowed properties';

// ---------------------------------------------------------------- randomness

export type Rng = () => number;

/** mulberry32: small, fast, and the same sequence on every machine for a seed. */
export function makeRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The run's seed: FUZZ_SEED to replay one, else a fresh one (printed by the runner). */
export function fuzzSeed(env: Record<string, string | undefined> = process.env): number {
  const given = env.FUZZ_SEED?.trim();
  if (given) {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new Error(`FUZZ_SEED must be an integer from 0 to 4294967295, not "${given}"`);
    }
    return seed;
  }
  return Math.floor(Math.random() * 0x100000000);
}

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];
const chance = (rng: Rng, p: number): boolean => rng() < p;
const between = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
function sample<T>(rng: Rng, items: readonly T[], n: number): T[] {
  const copy = [...items];
  const out: T[] = [];
  while (out.length < n && copy.length > 0) {
    out.push(copy.splice(Math.floor(rng() * copy.length), 1)[0]);
  }
  return out;
}

// ---------------------------------------------------------------- the world

/** Registrable domains, each as a person types it and as DNS (and Search Console's API) spells it. */
export const DOMAINS: readonly { readonly unicode: string; readonly ascii: string }[] = [
  { unicode: 'example.com', ascii: 'example.com' },
  { unicode: 'example.net', ascii: 'example.net' },
  { unicode: 'bücher.de', ascii: 'xn--bcher-kva.de' },
  { unicode: 'пример.рф', ascii: 'xn--e1afmkfd.xn--p1ai' },
  { unicode: 'café.fr', ascii: 'xn--caf-dma.fr' },
];
const SUBDOMAINS = ['', 'www', 'shop', 'blog', 'm.shop'];
/** Locale and deep sub-folders; "shop" and "shopping" share a prefix as strings but not as folders; "café" is percent-encoded on the wire. */
const FOLDERS: readonly (readonly string[])[] = [
  [],
  ['fr'],
  ['de'],
  ['en-gb'],
  ['blog'],
  ['blog', '2024'],
  ['fr', 'blog'],
  ['fr', 'blog', '2024'],
  ['shop'],
  ['shopping'],
  ['café'],
];
const LEVELS = ['siteOwner', 'siteFullUser', 'siteRestrictedUser', 'siteUnverifiedUser'] as const;
export type Level = (typeof LEVELS)[number];

export interface Host {
  /** Lower-case ASCII (punycode), as a URL's hostname. */
  readonly ascii: string;
  readonly unicode: string;
}
export type Prop =
  | { readonly type: 'domain'; readonly host: Host }
  | {
      readonly type: 'prefix';
      readonly scheme: 'http' | 'https';
      readonly host: Host;
      /** undefined: the scheme's default port. */
      readonly port?: number;
      readonly folders: readonly string[];
    };

export interface Page {
  readonly scheme: 'http' | 'https';
  readonly host: Host;
  readonly port?: number;
  /** Path segments; the last one is a folder when `slash`. */
  readonly segments: readonly string[];
  readonly slash: boolean;
  readonly query?: string;
  readonly fragment?: string;
}

const hostOf = (sub: string, domain: (typeof DOMAINS)[number]): Host =>
  sub ? { ascii: `${sub}.${domain.ascii}`, unicode: `${sub}.${domain.unicode}` } : { ascii: domain.ascii, unicode: domain.unicode };

/** A path segment as the URL standard percent-encodes it (UTF-8, upper-case hex); the ones here have no other reserved characters. */
const wire = (segment: string): string => encodeURIComponent(segment);

function folderPath(folders: readonly string[]): string {
  return folders.length ? `/${folders.map(wire).join('/')}/` : '/';
}

function pagePath(page: Page): string {
  if (page.segments.length === 0) {
    return '/';
  }
  return `/${page.segments.map(wire).join('/')}${page.slash ? '/' : ''}`;
}

/** How Search Console spells the property (the one spelling it answers to). */
export function canonical(prop: Prop): string {
  if (prop.type === 'domain') {
    return `sc-domain:${prop.host.ascii}`;
  }
  return `${prop.scheme}://${prop.host.ascii}${prop.port ? `:${prop.port}` : ''}${folderPath(prop.folders)}`;
}

const within = (host: string, domain: string): boolean => host === domain || host.endsWith(`.${domain}`);

/** §7: sc-domain covers its host and every subdomain, both schemes, any port; a URL-prefix property its scheme, host, port and the folders below its path. */
export function covers(prop: Prop, page: Page): boolean {
  if (prop.type === 'domain') {
    return within(page.host.ascii, prop.host.ascii);
  }
  return (
    prop.scheme === page.scheme &&
    prop.host.ascii === page.host.ascii &&
    prop.port === page.port &&
    pagePath(page).startsWith(folderPath(prop.folders))
  );
}

/** §7: an allowlist entry allows itself and every property Search Console scopes inside it; never a wider one. */
export function entryAllows(entry: Prop, prop: Prop): boolean {
  if (entry.type === 'domain') {
    return within(prop.host.ascii, entry.host.ascii);
  }
  return (
    prop.type === 'prefix' &&
    prop.scheme === entry.scheme &&
    prop.host.ascii === entry.host.ascii &&
    prop.port === entry.port &&
    folderPath(prop.folders).startsWith(folderPath(entry.folders))
  );
}

// ---------------------------------------------------------------- layouts

export interface Holding {
  readonly prop: Prop;
  readonly level: Level;
  /** How the account's sites.list spells it. */
  readonly listed: string;
}
export interface Account {
  readonly email: string;
  readonly holdings: readonly Holding[];
}
export interface Entry {
  readonly prop: Prop;
  /** As an operator writes it in GSC_ALLOWED_SITES or a rule's "sites". */
  readonly spelled: string;
}

export type ToolName = 'get_site' | 'list_sitemaps' | 'inspect_url' | 'inspect_urls' | 'get_indexing_status' | 'request_indexing';
export const SITE_TOOLS: readonly ToolName[] = ['get_site', 'list_sitemaps', 'inspect_url', 'inspect_urls'];
export const PAGE_TOOLS: readonly ToolName[] = ['get_indexing_status', 'request_indexing'];

export interface Spelled<T> {
  /** undefined when the spelling is one that must be refused (then `text` names nothing). */
  readonly parts?: T;
  readonly text: string;
}
export interface Call {
  readonly tool: ToolName;
  /** site tools (and inspect_url/inspect_urls): the site_url. */
  readonly site?: Spelled<Prop>;
  /** page tools: the url; inspect_url/inspect_urls: their pages (inside the site, or not). */
  readonly pages?: readonly Spelled<Page>[];
  /** google_account, as the person typed it. */
  readonly named?: string;
}
export interface Layout {
  readonly seed: number;
  readonly index: number;
  readonly accounts: readonly Account[];
  /** GSC_ALLOWED_SITES; undefined: unset. */
  readonly server?: readonly Entry[];
  /** The person's policy rule's "sites"; undefined: no rule narrows them. */
  readonly rule?: readonly Entry[];
  readonly calls: readonly Call[];
}

export interface LayoutOptions {
  /** Server-wide lists fixed by the caller (a server already started with them); otherwise drawn per layout. */
  readonly fixed?: { readonly server?: readonly string[]; readonly rule?: readonly string[] };
  /** Account e-mails to use (an emulator's users); default acct1…acct5@fuzz.example. */
  readonly emails?: readonly string[];
  /** sites.list spellings other than Search Console's own (Unicode hosts, upper case): only for the resolver alone, never against an emulator. */
  readonly oddListings?: boolean;
  readonly callsPerLayout?: number;
}

const DEFAULT_EMAILS = ['acct1@fuzz.example', 'acct2@fuzz.example', 'acct3@fuzz.example', 'acct4@fuzz.example', 'acct5@fuzz.example'];

/** One layout, the same for the same (seed, index) on every machine. */
export function generateLayout(seed: number, index: number, options: LayoutOptions = {}): Layout {
  const rng = makeRng((seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0);
  const fixed = options.fixed;
  const server = fixed ? fixed.server?.map((s) => entryOf(s)) : undefined;
  const rule = fixed ? fixed.rule?.map((s) => entryOf(s)) : undefined;
  // With lists fixed by a server, most layouts live where the person may act (else nearly every call is refused as outside).
  const inside = (rule ?? server)?.map((e) => e.prop);
  const near = inside && chance(rng, 0.7) ? DOMAINS.filter((d) => inside.some((p) => within(p.host.ascii, d.ascii))) : DOMAINS;
  const domains = sample(rng, near, between(rng, 1, 3));
  const candidates = candidateProps(rng, domains);
  if (inside && near !== DOMAINS) {
    candidates.push(...sample(rng, inside, 2).flatMap((prop) => [prop, child(rng, prop)]));
  }
  const emails = sample(rng, options.emails ?? DEFAULT_EMAILS, between(rng, 1, 5));
  const accounts = emails.map((email) => ({
    email,
    holdings: sample(rng, candidates, between(rng, 0, 5)).map((prop) => holding(rng, prop, options.oddListings === true)),
  }));
  // The same property in two accounts at different permission levels.
  if (accounts.length > 1 && chance(rng, 0.6)) {
    const [from, to] = sample(rng, accounts, 2);
    const shared = from.holdings.length ? pick(rng, from.holdings) : undefined;
    if (shared && !to.holdings.some((h) => canonical(h.prop) === canonical(shared.prop))) {
      const level = pick(
        rng,
        LEVELS.filter((l) => l !== shared.level),
      );
      to.holdings.push({ ...holding(rng, shared.prop, options.oddListings === true), level });
    }
  }
  const lists = fixed
    ? { server, rule }
    : { server: drawList(rng, candidates, domains, 0.4), rule: drawList(rng, candidates, domains, 0.3) };
  const held = accounts.flatMap((a) => a.holdings.map((h) => h.prop));
  const calls = Array.from({ length: options.callsPerLayout ?? 6 }, () => drawCall(rng, candidates, held, accounts));
  return { seed, index, accounts, ...(lists.server ? { server: lists.server } : {}), ...(lists.rule ? { rule: lists.rule } : {}), calls };
}

function candidateProps(rng: Rng, domains: readonly (typeof DOMAINS)[number][]): Prop[] {
  const props = new Map<string, Prop>();
  const add = (prop: Prop) => props.set(canonical(prop), prop);
  for (const domain of domains) {
    add({ type: 'domain', host: hostOf('', domain) });
    if (chance(rng, 0.4)) {
      add({ type: 'domain', host: hostOf(pick(rng, ['shop', 'www', 'blog']), domain) });
    }
    for (let i = between(rng, 3, 7); i > 0; i--) {
      add({
        type: 'prefix',
        scheme: chance(rng, 0.8) ? 'https' : 'http',
        host: hostOf(pick(rng, SUBDOMAINS), domain),
        folders: pick(rng, FOLDERS),
      });
    }
  }
  return [...props.values()];
}

/** A property inside another: a deeper folder, or on the domain's host or a subdomain. */
function child(rng: Rng, prop: Prop): Prop {
  if (prop.type === 'prefix') {
    return { ...prop, folders: [...prop.folders, pick(rng, ['fr', 'blog', '2024'])] };
  }
  const host = chance(rng, 0.5) ? prop.host : { ascii: `www.${prop.host.ascii}`, unicode: `www.${prop.host.unicode}` };
  return chance(rng, 0.8) ? { type: 'prefix', scheme: 'https', host, folders: pick(rng, FOLDERS) } : { type: 'domain', host };
}

function holding(rng: Rng, prop: Prop, odd: boolean): Holding {
  return { prop, level: pick(rng, LEVELS), listed: odd && chance(rng, 0.3) ? oddListing(rng, prop) : canonical(prop) };
}

/** A sites.list spelling other than the canonical one that still names the same property. */
function oddListing(rng: Rng, prop: Prop): string {
  const host = chance(rng, 0.5) ? prop.host.unicode : prop.host.ascii.toUpperCase();
  if (prop.type === 'domain') {
    return `sc-domain:${host}`;
  }
  return `${prop.scheme}://${host}${prop.port ? `:${prop.port}` : ''}${folderPath(prop.folders)}`;
}

function drawList(rng: Rng, candidates: readonly Prop[], domains: readonly (typeof DOMAINS)[number][], p: number): Entry[] | undefined {
  if (!chance(rng, p)) {
    return undefined;
  }
  const entries = sample(rng, candidates, between(rng, 1, 3));
  if (chance(rng, 0.5)) {
    // A whole domain of the layout: allows much, yet narrower than "everything" when the layout has several domains.
    entries.push({ type: 'domain', host: hostOf('', pick(rng, domains)) });
  }
  if (chance(rng, 0.3)) {
    // An entry about a domain none of the accounts has.
    const other = pick(
      rng,
      DOMAINS.filter((d) => !domains.includes(d)),
    );
    entries.push({ type: 'domain', host: hostOf('', other) });
  }
  return entries.map((prop) => ({ prop, spelled: spellEntry(rng, prop) }));
}

/** An allowlist entry as written: any valid spelling of the property (config normalises it). */
function spellEntry(rng: Rng, prop: Prop): string {
  return spellSite(rng, prop, false).text;
}

/** Parses an entry written as the fixed lists of an e2e server spell them: sc-domain:host or scheme://host/folders/ (Unicode or ASCII host). */
function entryOf(spelled: string): Entry {
  const domain = /^sc-domain:(.+)$/i.exec(spelled.trim());
  const asHost = (name: string): Host => {
    const lower = name.toLowerCase();
    const found = DOMAINS.find((d) => within(lower, d.ascii) || within(lower, d.unicode));
    if (!found) {
      throw new Error(`the fixed list entry ${spelled} is on no domain of the fuzz`);
    }
    const base = within(lower, found.ascii) ? found.ascii : found.unicode;
    const sub = lower === base ? '' : lower.slice(0, -(base.length + 1));
    return hostOf(sub, found);
  };
  if (domain) {
    return { prop: { type: 'domain', host: asHost(domain[1]) }, spelled };
  }
  const url = /^(https?):\/\/([^/]+)(\/.*)?$/i.exec(spelled.trim());
  if (!url) {
    throw new Error(`the fixed list entry ${spelled} is not sc-domain:host or scheme://host/path/`);
  }
  const folders = (url[3] ?? '/').split('/').filter(Boolean).map(decodeURIComponent);
  return { prop: { type: 'prefix', scheme: url[1].toLowerCase() as 'http' | 'https', host: asHost(url[2]), folders }, spelled };
}

function drawCall(rng: Rng, candidates: readonly Prop[], held: readonly Prop[], accounts: readonly Account[]): Call {
  const named = chance(rng, 0.25) ? nameAccount(rng, accounts) : undefined;
  const extra = named ? { named } : {};
  if (chance(rng, 0.5)) {
    const tool = pick(rng, SITE_TOOLS);
    const prop = pickSubject(rng, candidates, held);
    const site = spellSite(rng, prop, true);
    if (tool === 'inspect_url' || tool === 'inspect_urls') {
      const count = tool === 'inspect_url' ? 1 : between(rng, 1, 3);
      // Mostly pages inside the site, sometimes one that is not (refused: a page outside its property).
      const pages = Array.from({ length: count }, () =>
        spellPage(rng, chance(rng, 0.85) ? pageUnder(rng, prop) : pageUnder(rng, pick(rng, candidates))),
      );
      return { tool, site, pages, ...extra };
    }
    return { tool, site, ...extra };
  }
  const base = held.length && chance(rng, 0.75) ? pick(rng, held) : pick(rng, candidates);
  return { tool: pick(rng, PAGE_TOOLS), pages: [spellPage(rng, pageUnder(rng, base))], ...extra };
}

function nameAccount(rng: Rng, accounts: readonly Account[]): string {
  if (chance(rng, 0.1)) {
    return 'nobody@fuzz.example';
  }
  const email = pick(rng, accounts).email;
  return chance(rng, 0.3) ? email.toUpperCase() : email;
}

/** A property a site_url names: one an account holds, one none does, or a neighbour of a held one (parent or child folder, other scheme, www or apex, another port). */
function pickSubject(rng: Rng, candidates: readonly Prop[], held: readonly Prop[]): Prop {
  const roll = rng();
  if (held.length && roll < 0.6) {
    return pick(rng, held);
  }
  if (held.length && roll < 0.8) {
    return neighbour(rng, pick(rng, held));
  }
  return pick(rng, candidates);
}

function neighbour(rng: Rng, prop: Prop): Prop {
  const domain = DOMAINS.find((d) => within(prop.host.ascii, d.ascii))!;
  if (prop.type === 'domain') {
    // The same host as a URL-prefix property, or the wider domain of a subdomain's.
    return chance(rng, 0.5) || prop.host.ascii === domain.ascii
      ? { type: 'prefix', scheme: 'https', host: prop.host, folders: [] }
      : { type: 'domain', host: hostOf('', domain) };
  }
  switch (between(rng, 0, 5)) {
    case 0:
      return { ...prop, folders: prop.folders.slice(0, -1) };
    case 5:
      // Another port is another property.
      return { ...prop, port: 8443 };
    case 1:
      return { ...prop, folders: [...prop.folders, pick(rng, ['fr', 'blog', '2024', 'jobs'])] };
    case 2:
      return { ...prop, scheme: prop.scheme === 'https' ? 'http' : 'https' };
    case 3:
      return { ...prop, host: prop.host.ascii.startsWith('www.') ? hostOf('', domain) : hostOf('www', domain) };
    default:
      return { type: 'domain', host: prop.host };
  }
}

/** A page under a property: deep below its folders, sometimes exactly the property, on a subdomain for a domain property; with queries and fragments. */
function pageUnder(rng: Rng, prop: Prop): Page {
  const more = Array.from({ length: between(rng, 0, 3) }, () => pick(rng, ['jobs', '2024', 'item-42', 'fr', 'café', 'a.b', 'index.html']));
  const slash = more.length === 0 || chance(rng, 0.3);
  const query = chance(rng, 0.3) ? pick(rng, ['utm_source=news&x=1', 'q=caf%C3%A9', 'page=2']) : undefined;
  const fragment = chance(rng, 0.2) ? pick(rng, ['top', 'section-2']) : undefined;
  const tail = { ...(query ? { query } : {}), ...(fragment ? { fragment } : {}) };
  if (prop.type === 'domain') {
    const sub = chance(rng, 0.5) ? '' : pick(rng, ['www', 'shop', 'jobs']);
    const host = sub ? { ascii: `${sub}.${prop.host.ascii}`, unicode: `${sub}.${prop.host.unicode}` } : prop.host;
    return {
      scheme: chance(rng, 0.7) ? 'https' : 'http',
      host,
      ...(chance(rng, 0.05) ? { port: 8443 } : {}),
      segments: [...pick(rng, FOLDERS), ...more],
      slash,
      ...tail,
    };
  }
  return {
    scheme: prop.scheme,
    host: prop.host,
    ...(prop.port ? { port: prop.port } : chance(rng, 0.04) ? { port: 8443 } : {}),
    segments: [...prop.folders, ...more],
    // No segment added: the page is the property's own URL (its exact property); now and then without
    // its trailing slash, which is not inside that property ("/fr" is not under "/fr/").
    slash: more.length === 0 ? prop.folders.length === 0 || chance(rng, 0.9) : slash,
    ...tail,
  };
}

// ---------------------------------------------------------------- spellings

function spellHost(rng: Rng, host: Host): string {
  switch (between(rng, 0, 4)) {
    case 0:
      return host.unicode;
    case 1:
      return host.ascii.toUpperCase();
    case 2:
      return host.unicode.toUpperCase();
    default:
      return host.ascii;
  }
}

/** Percent-encodes one ASCII letter of a segment now and then (%66r is fr), and spells "café" raw or with lower-case hex. */
function spellSegment(rng: Rng, segment: string): string {
  if (segment === 'café') {
    return pick(rng, ['café', 'caf%c3%a9', 'caf%C3%A9']);
  }
  if (chance(rng, 0.15) && /[a-z]/.test(segment)) {
    const at = segment.search(/[a-z]/);
    return `${segment.slice(0, at)}%${segment.charCodeAt(at).toString(16)}${segment.slice(at + 1)}`;
  }
  return segment;
}

/**
 * A site_url as people write it. `tricks`: sometimes a spelling that must be
 * refused (user info, a trailing dot, a query, a bare host), then `parts` is
 * undefined.
 */
export function spellSite(rng: Rng, prop: Prop, tricks: boolean): Spelled<Prop> {
  const host = spellHost(rng, prop.host);
  if (tricks && chance(rng, 0.06)) {
    const text = pick(rng, [
      prop.type === 'domain' ? `sc-domain:${prop.host.ascii}.` : `https://user@${host}/`,
      `https://${prop.host.ascii}./`,
      `${prop.host.ascii}`,
      prop.type === 'domain' ? `sc-domain:https://${prop.host.ascii}/` : `${canonical(prop)}?utm=1`,
    ]);
    return { text };
  }
  if (prop.type === 'domain') {
    return { parts: prop, text: `${pick(rng, ['sc-domain:', 'sc-domain:', 'SC-DOMAIN:', 'sc-domain: '])}${host}` };
  }
  const scheme = pick(rng, [prop.scheme, prop.scheme, prop.scheme.toUpperCase()]);
  const port = prop.port ? `:${prop.port}` : chance(rng, 0.1) ? (prop.scheme === 'https' ? ':443' : ':80') : '';
  const dots = prop.folders.length && chance(rng, 0.08) ? '/x/..' : '';
  const path = prop.folders.map((f) => spellSegment(rng, f)).join('/');
  const slash = chance(rng, 0.5) ? '/' : '';
  const text = path ? `${scheme}://${host}${port}${dots}/${path}${slash}` : `${scheme}://${host}${port}${slash}`;
  // Spaces around it, as pasted.
  return { parts: prop, text: chance(rng, 0.05) ? ` ${text} ` : text };
}

/** A page URL as people paste it; sometimes with user info or a trailing dot (refused). */
export function spellPage(rng: Rng, page: Page): Spelled<Page> {
  const host = spellHost(rng, page.host);
  const scheme = chance(rng, 0.2) ? page.scheme.toUpperCase() : page.scheme;
  const port = page.port ? `:${page.port}` : chance(rng, 0.08) ? (page.scheme === 'https' ? ':443' : ':80') : '';
  const dots = page.segments.length && chance(rng, 0.08) ? pick(rng, ['/x/..', '/x/%2e%2e', '/.']) : '';
  const path = page.segments.length ? `/${page.segments.map((s) => spellSegment(rng, s)).join('/')}${page.slash ? '/' : ''}` : '/';
  const tail = `${page.query ? `?${page.query}` : ''}${page.fragment ? `#${page.fragment}` : ''}`;
  if (chance(rng, 0.04)) {
    const trick = chance(rng, 0.5)
      ? `${scheme}://someone@${host}${port}${path}${tail}`
      : `${scheme}://${page.host.ascii}.${port}${path}${tail}`;
    return { text: trick };
  }
  return { parts: page, text: `${scheme}://${host}${port}${dots}${path}${tail}` };
}

// ---------------------------------------------------------------- the oracle

export type Expected =
  /** Refused before any account is looked up: the argument is no property/page, or outside the caller's properties, or google_account is unknown. */
  | { readonly kind: 'refused'; readonly why: 'invalid' | 'outside' | 'unknown-account' }
  | { readonly kind: 'match'; readonly email: string; readonly property: string }
  | { readonly kind: 'ask'; readonly property: string; readonly emails: readonly string[] }
  /** No account (or not the named one) has it: refused, naming only `mayName` properties. */
  | { readonly kind: 'none'; readonly named?: string; readonly mayName: readonly string[] };

function allowedBy(list: readonly Entry[] | undefined, prop: Prop): boolean {
  return !list || list.some((e) => entryAllows(e.prop, prop));
}
function pageAllowedBy(list: readonly Entry[] | undefined, page: Page): boolean {
  return !list || list.some((e) => covers(e.prop, page));
}

/** §7 + §8b: GSC_ALLOWED_SITES and the person's rule both bound a call; a rule only narrows. */
export function allowed(layout: Layout, prop: Prop): boolean {
  return allowedBy(layout.server, prop) && allowedBy(layout.rule, prop);
}

/** How specific a covering property is for a page: any URL-prefix above any domain; longer folders, deeper domains first. */
function specificity(prop: Prop): number {
  return prop.type === 'prefix' ? 1000 + folderPath(prop.folders).length : prop.host.ascii.split('.').length;
}

/** The one property a call is about for each account that has it, before the choice between accounts. */
function holdersOf(layout: Layout, call: Call, accounts: readonly Account[]): { property?: string; emails: string[] } {
  if (call.site) {
    const property = canonical(call.site.parts!);
    return { property, emails: accounts.filter((a) => a.holdings.some((h) => canonical(h.prop) === property)).map((a) => a.email) };
  }
  const page = call.pages![0].parts!;
  let best: Prop | undefined;
  for (const account of accounts) {
    for (const h of account.holdings) {
      if (covers(h.prop, page) && (!best || specificity(h.prop) > specificity(best))) {
        best = h.prop;
      }
    }
  }
  if (!best) {
    return { emails: [] };
  }
  const property = canonical(best);
  return { property, emails: accounts.filter((a) => a.holdings.some((h) => canonical(h.prop) === property)).map((a) => a.email) };
}

/** What PRODUCT.md §7/§8d say this call must come to (the account choice; for inspect_url(s), the site_url decides). */
export function expected(layout: Layout, call: Call): Expected {
  if (call.site) {
    if (!call.site.parts) {
      return { kind: 'refused', why: 'invalid' };
    }
    if (!allowed(layout, call.site.parts)) {
      return { kind: 'refused', why: 'outside' };
    }
  } else {
    const page = call.pages![0].parts;
    if (!page) {
      return { kind: 'refused', why: 'invalid' };
    }
    if (!pageAllowedBy(layout.server, page) || !pageAllowedBy(layout.rule, page)) {
      return { kind: 'refused', why: 'outside' };
    }
  }
  const mayName = [
    ...new Set(
      layout.accounts
        .flatMap((a) => a.holdings.map((h) => h.prop))
        .filter((p) => allowed(layout, p))
        .map(canonical),
    ),
  ];
  if (call.named) {
    const account = layout.accounts.find((a) => a.email.toLowerCase() === call.named!.toLowerCase());
    if (!account) {
      return { kind: 'refused', why: 'unknown-account' };
    }
    const own = holdersOf(layout, call, [account]);
    return own.property && own.emails.length
      ? { kind: 'match', email: account.email, property: own.property }
      : { kind: 'none', named: account.email, mayName };
  }
  const { property, emails } = holdersOf(layout, call, layout.accounts);
  if (!property || emails.length === 0) {
    return { kind: 'none', mayName };
  }
  return emails.length === 1 ? { kind: 'match', email: emails[0], property } : { kind: 'ask', property, emails };
}

/** inspect_url(s): a page outside the site_url's property (or one that is no URL) is refused by the guard, nothing sent. */
export function pagesOutsideSite(call: Call): boolean {
  if (!call.site?.parts || !call.pages) {
    return false;
  }
  const site = call.site.parts;
  return call.pages.some((p) => !p.parts || !covers(site, p.parts));
}

// ---------------------------------------------------------------- judging

/** What the code under test answered, in the oracle's terms. */
export type Actual =
  | { readonly kind: 'refused'; readonly why?: string }
  | { readonly kind: 'match'; readonly email: string; readonly property?: string }
  | { readonly kind: 'ask'; readonly property?: string; readonly emails: readonly string[] }
  /** `named`: every property the refusal names (checked against what the caller may see). */
  | { readonly kind: 'none'; readonly named: readonly string[] };

export type Fault =
  | 'wrong pick'
  | 'missed ask'
  | 'asked without a tie'
  | 'wrong candidates'
  | 'refusal names a withheld property'
  | 'wrong refusal'
  /** google_account named an account without the property and the call went to Google anyway (Google refuses it: not silent, but not the rule either). */
  | 'sent as a named account that lacks it';

/** Undefined when the answer is what the oracle expects; otherwise which kind of fault. A match on another account or property is a silent wrong pick. */
export function judge(want: Expected, got: Actual): Fault | undefined {
  if (got.kind === 'match') {
    if (
      want.kind === 'match' &&
      got.email.toLowerCase() === want.email.toLowerCase() &&
      (got.property ?? want.property) === want.property
    ) {
      return undefined;
    }
    if (want.kind === 'none' && want.named) {
      return 'sent as a named account that lacks it';
    }
    return want.kind === 'ask' ? 'missed ask' : 'wrong pick';
  }
  if (want.kind === 'ask' && got.kind === 'ask') {
    const same = [...got.emails].sort().join() === [...want.emails].sort().join() && (got.property ?? want.property) === want.property;
    return same ? undefined : 'wrong candidates';
  }
  if (got.kind === 'ask') {
    return 'asked without a tie';
  }
  if (want.kind === 'none' && got.kind === 'none') {
    return got.named.every((p) => want.mayName.includes(p)) ? undefined : 'refusal names a withheld property';
  }
  if (want.kind === 'refused' && got.kind === 'refused') {
    return undefined;
  }
  return 'wrong refusal';
}

export interface FuzzFigures {
  seed: number;
  layouts: number;
  calls: number;
  matches: number;
  asks: number;
  refusals: number;
  wrongPicks: number;
  faults: number;
  ms: number;
}

export interface FuzzFailure {
  readonly fault: Fault;
  readonly layout: Layout;
  readonly call: Call;
  readonly want: Expected;
  readonly got: Actual;
}

/** Runs `answer` over `count` layouts from `seed`, judging every call; at most `keep` failures are kept whole. */
export function runFuzz(
  seed: number,
  count: number,
  answer: (layout: Layout, call: Call) => Actual,
  options: LayoutOptions & { keep?: number; first?: number } = {},
): { figures: FuzzFigures; failures: FuzzFailure[] } {
  const figures: FuzzFigures = { seed, layouts: 0, calls: 0, matches: 0, asks: 0, refusals: 0, wrongPicks: 0, faults: 0, ms: 0 };
  const failures: FuzzFailure[] = [];
  const started = performance.now();
  for (let i = options.first ?? 0; i < (options.first ?? 0) + count; i++) {
    const layout = generateLayout(seed, i, options);
    figures.layouts++;
    for (const call of layout.calls) {
      const want = expected(layout, call);
      const got = answer(layout, call);
      figures.calls++;
      figures[got.kind === 'match' ? 'matches' : got.kind === 'ask' ? 'asks' : 'refusals']++;
      const fault = judge(want, got);
      if (fault) {
        figures.faults++;
        if (fault === 'wrong pick' || fault === 'missed ask') {
          figures.wrongPicks++;
        }
        if (failures.length < (options.keep ?? 5)) {
          failures.push({ fault, layout, call, want, got });
        }
      }
    }
  }
  figures.ms = performance.now() - started;
  return { figures, failures };
}

/** A failure as one paragraph a person can replay: the seed and layout index, the layout, the call, what was wanted and what came. */
export function describeFailure(f: FuzzFailure): string {
  const accounts = f.layout.accounts.map(
    (a) => `  ${a.email}: ${a.holdings.map((h) => `${h.listed} (${h.level})`).join(', ') || '(no properties)'}`,
  );
  return [
    `${f.fault} — FUZZ_SEED=${f.layout.seed}, layout ${f.layout.index}`,
    ...accounts,
    `  GSC_ALLOWED_SITES: ${f.layout.server ? f.layout.server.map((e) => e.spelled).join(', ') : '(unset)'}; rule sites: ${f.layout.rule ? f.layout.rule.map((e) => e.spelled).join(', ') : '(none)'}`,
    `  call: ${f.call.tool} ${JSON.stringify({ site_url: f.call.site?.text, urls: f.call.pages?.map((p) => p.text), google_account: f.call.named })}`,
    `  wanted: ${JSON.stringify(f.want)}`,
    `  got: ${JSON.stringify(f.got)}`,
  ].join('\n');
}

/** The figures as one line (what the spec and the bench print). */
export function figuresLine(f: FuzzFigures): string {
  const perSecond = f.ms > 0 ? Math.round((f.layouts / f.ms) * 1000) : 0;
  return `seed ${f.seed}: ${f.layouts} layouts, ${f.calls} calls — ${f.matches} resolved, ${f.asks} asked, ${f.refusals} refused; ${f.wrongPicks} wrong picks, ${f.faults} faults; ${perSecond} layouts/s`;
}

// ---------------------------------------------------------------- the resolver under test

/** What src/property/property-match.ts's resolveProperty answers, as far as the judge reads it (typed here so this file imports nothing of the product). */
type ResolverResult =
  | { readonly kind: 'match'; readonly email: string; readonly property: string }
  | { readonly kind: 'ambiguous'; readonly property: string; readonly candidates: readonly { readonly email: string }[] }
  | { readonly kind: 'none'; readonly accounts: readonly { readonly properties: readonly string[] }[] }
  | { readonly kind: 'invalid' | 'outside' | 'unknown-account' };

/** The product's functions the resolver depth calls: handed in by the spec (from src/) and the bench (from dist/). */
export interface ResolverUnderTest {
  resolveProperty(
    query: { siteUrl: string } | { pageUrl: string },
    accounts: readonly { account: string; email: string; sites: readonly { siteUrl: string; permissionLevel: string }[] }[],
    options: { allowed?: readonly string[]; googleAccount?: string },
  ): ResolverResult;
  /** policy-resolution.ts: the person's rule narrowed by GSC_ALLOWED_SITES. */
  intersectSites(rule: readonly string[] | undefined, server: readonly string[] | undefined): readonly string[] | undefined;
  /** property.ts: how config.ts reads each list entry. */
  normalizeProperty(input: string): string;
}

/** The resolver's answer to one call, given the caller's properties as AccessPolicy hands them over (each list normalised, the rule intersected with the server's). */
export function resolverAnswer(product: ResolverUnderTest): (layout: Layout, call: Call) => Actual {
  return (layout, call) => {
    const server = layout.server?.map((e) => product.normalizeProperty(e.spelled));
    const rule = layout.rule?.map((e) => product.normalizeProperty(e.spelled));
    const accounts = layout.accounts.map((a) => ({
      account: a.email,
      email: a.email,
      sites: a.holdings.map((h) => ({ siteUrl: h.listed, permissionLevel: h.level })),
    }));
    const query = call.site ? { siteUrl: call.site.text } : { pageUrl: call.pages![0].text };
    const allowed = product.intersectSites(rule, server);
    const result = product.resolveProperty(query, accounts, {
      ...(allowed ? { allowed } : {}),
      ...(call.named ? { googleAccount: call.named } : {}),
    });
    switch (result.kind) {
      case 'match':
        return { kind: 'match', email: result.email, property: result.property };
      case 'ambiguous':
        return { kind: 'ask', property: result.property, emails: result.candidates.map((c) => c.email) };
      case 'none':
        return { kind: 'none', named: result.accounts.flatMap((a) => a.properties) };
      default:
        return { kind: 'refused', why: result.kind };
    }
  };
}
