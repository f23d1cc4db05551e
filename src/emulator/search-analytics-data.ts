// Deterministic synthetic performance data. Each (property, search type, day)
// gets its own seeded PRNG, so a day's numbers never depend on which other days
// were asked for, and the same request always returns the same numbers.
//
// The unit of data is a SERP group: one query/country/device/hour/appearance
// combination with the property's pages that showed in it. pages[0] appears on
// every impression at the best position, so by-property totals count each SERP
// impression once while by-page totals count every page — which is why, as on
// Google, per-page rows add up to more than the property total.
//
// Anonymised queries: each day, groups without a query are added until they
// hold the property's anonymised share of the day's impressions, so a
// no-dimension total exceeds the sum of query rows by a known amount.
//
// Nothing here is stored in the repository: the large property's tens of
// thousands of queries and pages are built from word lists at first use.

import { hashString, mulberry32 } from './emulator-random.js';
import { SEED_PROPERTIES } from './emulator-seed.js';
import type { AnalyticsOptions } from './emulator-types.js';
import { siteBases, trafficPages } from './seed-world.js';

export type SearchType = 'web' | 'image' | 'video' | 'news' | 'discover' | 'googleNews';

export interface PageHit {
  page: string;
  impressions: number;
  clicks: number;
  position: number;
}

export interface SerpGroup {
  date: string;
  /** Pacific hour 0–23. */
  hour: number;
  /** null = anonymized query (dropped whenever queries are grouped or filtered). */
  query: string | null;
  country: string;
  device: 'DESKTOP' | 'MOBILE' | 'TABLET';
  appearance: string | null;
  /** SERP impressions in which any page of the property appeared. */
  impressions: number;
  pages: PageHit[];
  /** Uniform [0, 1): a day still being collected holds only the groups whose arrival is below its completeness. */
  arrival: number;
}

// [query, index into TRAFFIC_PATHS (seed-world.ts) of the page that ranks for it]
const QUERIES: Array<[string, number]> = [
  ['{brand}', 0],
  ['{brand} login', 0],
  ['{brand} pricing', 9],
  ['widget pro', 6],
  ['Widget Pro', 6],
  ['widget pro review', 6],
  ['widget mini vs pro', 7],
  ['best widgets 2025', 5],
  ['cheap widgets', 5],
  ['widget max price', 8],
  ['seo basics', 2],
  ['what is seo', 2],
  ['core web vitals', 3],
  ['how to improve lcp', 3],
  ['structured data examples', 4],
  ['schema markup guide', 4],
  ['{brand} api', 13],
  ['{brand} docs', 12],
  ['getting started with widgets', 12],
  ['widget faq', 14],
  ['senior engineer jobs', 15],
  ['{brand} careers', 15],
  ['widget returns policy', 16],
  ['widget shipping time', 17],
  ['about {brand}', 10],
  ['contact {brand}', 11],
];

/** The query of the blog property that carries markup (see smallCatalog), and the slot of QUERIES it takes. */
export const MARKUP_QUERY = 'widget <img src=x onerror="window.__gscInjected=1"> review';
const MARKUP_QUERY_SLOT = 3;

// The large property: a shop whose vocabulary is every adjective × product × intent.
const ADJECTIVES = [
  'cheap',
  'best',
  'organic',
  'wooden',
  'steel',
  'vintage',
  'compact',
  'foldable',
  'waterproof',
  'handmade',
  'electric',
  'portable',
  'heavy duty',
  'kids',
  'mini',
  'large',
  'modern',
  'classic',
  'eco',
  'smart',
  'red',
  'blue',
  'black',
  'white',
  'green',
  'bamboo',
  'leather',
  'ceramic',
  'glass',
  'cotton',
];
const PRODUCTS = [
  'garden chair',
  'desk lamp',
  'coffee grinder',
  'yoga mat',
  'backpack',
  'water bottle',
  'bike light',
  'tent',
  'kettle',
  'blender',
  'notebook',
  'phone case',
  'headphones',
  'office chair',
  'bookshelf',
  'rug',
  'pillow',
  'blanket',
  'frying pan',
  'knife set',
  'plant pot',
  'wall clock',
  'mirror',
  'sofa',
  'bed frame',
  'toolbox',
  'drill',
  'ladder',
  'umbrella',
  'wallet',
  'sunglasses',
  'watch',
  'scarf',
  'gloves',
  'boots',
  'sneakers',
  'raincoat',
  'dog bed',
  'cat tree',
  'aquarium',
];
const INTENTS = [
  '',
  'price',
  'review',
  'sale',
  'near me',
  'online',
  'uk',
  'for sale',
  'reviews 2026',
  'vs ikea',
  'discount code',
  'how to clean',
  'size guide',
  'delivery',
  'best rated',
  'warranty',
  'replacement parts',
  'set',
  'amazon',
  'ideas',
  'diy',
  'alternatives',
  'deals',
  'on sale',
  'black friday',
  'gift',
  'sizes',
  'colors',
  'instructions',
  'manual',
  'repair',
  'refill',
  'cover',
  'accessories',
  'stand',
  'storage',
  'outlet',
  'wholesale',
  'rental',
  'second hand',
  'for men',
  'for women',
];

const country = chooser<string>([
  ['usa', 45],
  ['gbr', 12],
  ['ind', 10],
  ['deu', 8],
  ['can', 7],
  ['aus', 5],
  ['fra', 5],
  ['bra', 4],
  ['jpn', 4],
]);

const device = chooser<SerpGroup['device']>([
  ['MOBILE', 55],
  ['DESKTOP', 40],
  ['TABLET', 5],
]);

const APPEARANCES: Record<SearchType, string[]> = {
  web: ['REVIEW_SNIPPET', 'FAQ_RICH_RESULT', 'PRODUCT_SNIPPETS', 'VIDEO', 'AMP_BLUE_LINK'],
  image: ['PRODUCT_SNIPPETS'],
  video: ['VIDEO'],
  news: ['AMP_TOP_STORIES'],
  discover: ['NEWS_SHOWCASE', 'AMP_ARTICLE'],
  googleNews: ['NEWS_SHOWCASE'],
};

const TYPE_SCALE: Record<SearchType, number> = { web: 1, image: 0.3, video: 0.1, news: 0.15, discover: 0.35, googleNews: 0.1 };

// Local bindings: inside a test runner's vm context every global lookup (Math.…) is slow, and this is the hot loop.
const { floor, round, min, max, pow, sqrt, sin } = Math;

/** A weighted choice, from cumulative weights computed once. */
function chooser<T>(items: Array<[T, number]>): (rng: () => number) => T {
  const values = items.map(([v]) => v);
  const cumulative: number[] = [];
  let total = 0;
  for (const [, w] of items) {
    cumulative.push((total += w));
  }
  return (rng) => {
    const r = rng() * total;
    for (let i = 0; i < cumulative.length; i++) {
      if (r < cumulative[i]) {
        return values[i];
      }
    }
    return values[values.length - 1];
  };
}

/** Skewed towards the first items, like real query popularity. */
function zipfIndex(rng: () => number, n: number, skew: number): number {
  return min(n - 1, floor(n * pow(rng(), skew)));
}

const ctrAt = (position: number) => 0.32 / pow(position, 1.1);
const round1 = (n: number) => round(n * 10) / 10;

interface Catalog {
  pages: string[];
  /** [query, index into pages of the page that ranks for it] */
  queries: Array<[string, number]>;
  scale: number;
  /** Named-query SERP groups per full web day, before the weekday and type factors. */
  groupsPerDay: number;
  /** Popularity skew of queries (higher = a few queries dominate). */
  skew: number;
  /** Share of impressions that belongs to anonymised queries. */
  anonymizedShare: number;
}

/** The pages are the seed world's traffic pages of the property (seed-world.ts), so that inspection agrees with them. */
function smallCatalog(property: string): Omit<Catalog, 'anonymizedShare'> {
  const { brand } = siteBases(property);
  const pages = trafficPages(property);
  const queries = QUERIES.map(([q, page]): [string, number] => [q.replace('{brand}', brand), page]);
  // Search Console reports what people typed, markup included: the blog property has one query carrying an
  // HTML payload, in place of a popular one (no random draw changes), so every view and text is tried with it.
  if (property === SEED_PROPERTIES.blog) {
    queries[MARKUP_QUERY_SLOT] = [MARKUP_QUERY, queries[MARKUP_QUERY_SLOT][1]];
  }
  return { pages, queries, scale: 0.6 + (hashString(property) % 1000) / 700, groupsPerDay: 34, skew: 2.2 };
}

/** 30 × 40 × 42 = 50 400 queries over 1 200 product pages plus category and guide pages. */
function largeCatalog(property: string): Omit<Catalog, 'anonymizedShare'> {
  const slug = (s: string) => s.replace(/ /g, '-');
  const pages: string[] = [property];
  for (const product of PRODUCTS) {
    pages.push(`${property}c/${slug(product)}/`);
  }
  for (const product of PRODUCTS) {
    for (const adjective of ADJECTIVES) {
      pages.push(`${property}p/${slug(adjective)}-${slug(product)}`);
    }
  }
  for (const intent of INTENTS.slice(1)) {
    pages.push(`${property}guides/${slug(intent)}`);
  }
  const productPage = (a: number, p: number) => 1 + PRODUCTS.length + p * ADJECTIVES.length + a;
  const queries: Array<[string, number]> = [];
  // Interleaved so popular ranks spread over products and intents alike.
  for (let i = 0; i < INTENTS.length; i++) {
    for (let a = 0; a < ADJECTIVES.length; a++) {
      for (let p = 0; p < PRODUCTS.length; p++) {
        const intent = INTENTS[(i + p) % INTENTS.length];
        queries.push([`${ADJECTIVES[a]} ${PRODUCTS[p]}${intent ? ` ${intent}` : ''}`, productPage(a, p)]);
      }
    }
  }
  return { pages, queries, scale: 1, groupsPerDay: 3200, skew: 1.25 };
}

/** How many groups the day cache may hold before it is emptied (about 1 kB each): a month of the large property. */
const CACHE_GROUPS = 100_000;

export interface AnonymizedShare {
  /** The share the property was seeded with (of each day's impressions). */
  seededShare: number;
  /** Exactly what a no-dimension query counts beyond the sum of its query rows. */
  clicks: number;
  impressions: number;
  totalClicks: number;
  totalImpressions: number;
  clickShare: number;
  impressionShare: number;
}

export class SearchAnalyticsData {
  private readonly days = new Map<string, SerpGroup[]>();
  private cachedGroups = 0;
  private readonly catalogs = new Map<string, Catalog>();

  /** droppedFrom(url): the first Pacific date a page that left the index has no traffic (the seed world's). */
  constructor(
    private readonly options: AnalyticsOptions = {},
    private readonly droppedFrom: (url: string) => string | undefined = () => undefined,
  ) {}

  private largePages?: Set<string>;

  /** Whether a URL is one of the large property's pages (all of them rank, so all are indexed). */
  hasTrafficPage(url: string): boolean {
    if (!url.startsWith(SEED_PROPERTIES.large)) {
      return false;
    }
    this.largePages ??= new Set(this.catalog(SEED_PROPERTIES.large).pages);
    return this.largePages.has(url);
  }

  /** Forgets generated days: after a reset the world (and its dropped pages' dates) may differ. */
  clear(): void {
    this.days.clear();
    this.cachedGroups = 0;
  }

  get order(): 'google' | 'clicks' {
    return this.options.order ?? 'google';
  }

  /** Every SERP group of one Pacific day, whole (callers drop what is not collected yet). */
  day(property: string, type: SearchType, date: string): SerpGroup[] {
    const key = `${property}|${type}|${date}`;
    let groups = this.days.get(key);
    if (!groups) {
      groups = this.generate(property, type, date);
      if (this.cachedGroups + groups.length > CACHE_GROUPS) {
        this.days.clear();
        this.cachedGroups = 0;
      }
      this.days.set(key, groups);
      this.cachedGroups += groups.length;
    }
    return groups;
  }

  catalog(property: string): Catalog {
    let c = this.catalogs.get(property);
    if (!c) {
      const base = property === SEED_PROPERTIES.large ? largeCatalog(property) : smallCatalog(property);
      const anonymizedShare = this.options.anonymizedShare?.[property] ?? 0.08 + (hashString(`anon|${property}`) % 100) / 1000;
      if (!(anonymizedShare >= 0 && anonymizedShare < 1)) {
        throw new Error(`analytics.anonymizedShare for ${property} must be in [0, 1)`);
      }
      c = { ...base, anonymizedShare };
      this.catalogs.set(property, c);
    }
    return c;
  }

  private generate(property: string, type: SearchType, date: string): SerpGroup[] {
    const rng = mulberry32(hashString(`${property}|${type}|${date}`));
    const catalog = this.catalog(property);
    const { pages, queries, scale } = catalog;
    const dayNumber = Date.parse(`${date}T00:00:00Z`) / 86400000;
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    const dayFactor = (weekday === 0 || weekday === 6 ? 0.75 : 1) * (1 + 0.2 * sin(dayNumber / 29));
    const typeScale = TYPE_SCALE[type];
    const queryless = type === 'discover' || type === 'googleNews';
    const count = max(3, round(catalog.groupsPerDay * sqrt(typeScale) * dayFactor));
    const appearances = APPEARANCES[type];
    const groups: SerpGroup[] = [];
    // A page that left the index before this day shows nowhere: its queries find nothing of this property.
    const gone = new Set(
      pages
        .map((_, i) => i)
        .filter((i) => {
          const from = this.droppedFrom(pages[i]);
          return from !== undefined && date >= from;
        }),
    );
    const live = (i: number) => {
      let j = i;
      while (gone.has(j)) {
        j = (j + 1) % pages.length;
      }
      return j;
    };
    const group = (query: string | null, popularity: number, mainPage: number, rank: number, impressions?: number): SerpGroup => {
      const where = country(rng);
      const kind = device(rng);
      const hour = min(23, floor(24 * (0.15 + 0.85 * rng())));
      const appearance = rng() < (queryless ? 0.4 : 0.15) ? appearances[floor(rng() * appearances.length)] : null;
      const shown = impressions ?? max(1, round(260 * popularity * scale * typeScale * dayFactor * (0.4 + rng())));
      const p1 = round1(max(1, 1 + min(rank, 40) * 0.45 + rng() * 5));
      const hits: PageHit[] = [this.hit(rng, pages[mainPage], shown, p1)];
      if (rng() < 0.35) {
        const other = (mainPage + 1 + floor(rng() * (pages.length - 1))) % pages.length;
        if (!gone.has(other)) {
          hits.push(this.hit(rng, pages[other], max(1, floor(shown * (0.2 + 0.5 * rng()))), round1(p1 + 1 + rng() * 8)));
        }
      }
      return { date, hour, query, country: where, device: kind, appearance, impressions: shown, pages: hits, arrival: rng() };
    };
    let named = 0;
    for (let i = 0; i < count; i++) {
      const qi = zipfIndex(rng, queries.length, catalog.skew);
      const popularity = 1 / (1 + (qi * 26 * 0.35) / queries.length);
      if (!queryless && gone.has(queries[qi][1])) {
        continue;
      }
      const g = queryless
        ? group(null, popularity, live(floor(rng() * pages.length)), qi)
        : group(queries[qi][0], popularity, queries[qi][1], (qi * 26) / queries.length);
      if (!queryless) {
        named += g.impressions;
      }
      groups.push(g);
    }
    if (!queryless) {
      // Top up with anonymised groups until they hold exactly the seeded share of the day's impressions.
      const share = catalog.anonymizedShare;
      let remaining = round((named * share) / (1 - share));
      while (remaining > 0) {
        const size = min(remaining, max(1, round(260 * scale * dayFactor * (0.4 + rng()))));
        groups.push(group(null, 1, live(floor(rng() * pages.length)), floor(rng() * 10), size));
        remaining -= size;
      }
    }
    return groups;
  }

  private hit(rng: () => number, page: string, impressions: number, position: number): PageHit {
    const clicks = min(impressions, round(impressions * ctrAt(position) * (0.6 + 0.8 * rng())));
    return { page, impressions, clicks, position };
  }
}
