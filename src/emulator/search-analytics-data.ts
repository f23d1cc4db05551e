// Deterministic synthetic performance data. Each (property, search type, day)
// gets its own seeded PRNG, so a day's numbers never depend on which other days
// were asked for, and the same request always returns the same numbers.
//
// The unit of data is a SERP group: one query/country/device/hour/appearance
// combination with the property's pages that showed in it. pages[0] appears on
// every impression at the best position, so by-property totals count each SERP
// impression once while by-page totals count every page — which is why, as on
// Google, per-page rows add up to more than the property total.

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
}

const PATHS = [
  '',
  'blog/',
  'blog/seo-basics',
  'blog/core-web-vitals',
  'blog/structured-data-guide',
  'products/',
  'products/widget-pro',
  'products/widget-mini',
  'products/widget-max',
  'pricing',
  'about',
  'contact',
  'docs/getting-started',
  'docs/api',
  'docs/faq',
  'jobs/senior-engineer',
  'support/returns',
  'support/shipping',
];

// [query, index into PATHS of the page that ranks for it]
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

const COUNTRIES: Array<[string, number]> = [
  ['usa', 45],
  ['gbr', 12],
  ['ind', 10],
  ['deu', 8],
  ['can', 7],
  ['aus', 5],
  ['fra', 5],
  ['bra', 4],
  ['jpn', 4],
];

const DEVICES: Array<[SerpGroup['device'], number]> = [
  ['MOBILE', 55],
  ['DESKTOP', 40],
  ['TABLET', 5],
];

const APPEARANCES: Record<SearchType, string[]> = {
  web: ['REVIEW_SNIPPET', 'FAQ_RICH_RESULT', 'PRODUCT_SNIPPETS', 'VIDEO', 'AMP_BLUE_LINK'],
  image: ['PRODUCT_SNIPPETS'],
  video: ['VIDEO'],
  news: ['AMP_TOP_STORIES'],
  discover: ['NEWS_SHOWCASE', 'AMP_ARTICLE'],
  googleNews: ['NEWS_SHOWCASE'],
};

const TYPE_SCALE: Record<SearchType, number> = { web: 1, image: 0.3, video: 0.1, news: 0.15, discover: 0.35, googleNews: 0.1 };

export function hashString(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weighted<T>(rng: () => number, items: Array<[T, number]>): T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let r = rng() * total;
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return items[items.length - 1][0];
}

/** Skewed towards the first items, like real query popularity. */
function zipfIndex(rng: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(n * Math.pow(rng(), 2.2)));
}

const ctrAt = (position: number) => 0.32 / Math.pow(position, 1.1);
const round1 = (n: number) => Math.round(n * 10) / 10;

interface Catalog {
  pages: string[];
  queries: Array<[string, number]>;
  scale: number;
}

function catalogFor(property: string): Catalog {
  let bases: string[];
  let brand: string;
  if (property.startsWith('sc-domain:')) {
    const domain = property.slice('sc-domain:'.length);
    bases = [`https://www.${domain}/`, `https://${domain}/`, `https://m.${domain}/`];
    brand = domain.split('.')[0];
  } else {
    bases = [property];
    const host = new URL(property).hostname.split('.');
    brand = host.length > 2 ? host[host.length - 2] : host[0];
  }
  const pages = PATHS.map((p, i) => `${bases[i % bases.length]}${p}`);
  const queries = QUERIES.map(([q, page]): [string, number] => [q.replace('{brand}', brand), page]);
  return { pages, queries, scale: 0.6 + (hashString(property) % 1000) / 700 };
}

export class SearchAnalyticsData {
  private readonly days = new Map<string, SerpGroup[]>();
  private readonly catalogs = new Map<string, Catalog>();

  /** Every SERP group of one Pacific day, whole (callers drop hours that have not happened yet). */
  day(property: string, type: SearchType, date: string): SerpGroup[] {
    const key = `${property}|${type}|${date}`;
    let groups = this.days.get(key);
    if (!groups) {
      if (this.days.size > 50000) this.days.clear();
      groups = this.generate(property, type, date);
      this.days.set(key, groups);
    }
    return groups;
  }

  private catalog(property: string): Catalog {
    let c = this.catalogs.get(property);
    if (!c) {
      c = catalogFor(property);
      this.catalogs.set(property, c);
    }
    return c;
  }

  private generate(property: string, type: SearchType, date: string): SerpGroup[] {
    const rng = mulberry32(hashString(`${property}|${type}|${date}`));
    const { pages, queries, scale } = this.catalog(property);
    const dayNumber = Date.parse(`${date}T00:00:00Z`) / 86400000;
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    const dayFactor = (weekday === 0 || weekday === 6 ? 0.75 : 1) * (1 + 0.2 * Math.sin(dayNumber / 29));
    const typeScale = TYPE_SCALE[type];
    const queryless = type === 'discover' || type === 'googleNews';
    const count = Math.max(3, Math.round(34 * Math.sqrt(typeScale) * dayFactor));
    const groups: SerpGroup[] = [];
    for (let i = 0; i < count; i++) {
      const qi = zipfIndex(rng, queries.length);
      const anonymized = queryless || rng() < 0.12;
      const country = weighted(rng, COUNTRIES);
      const device = weighted(rng, DEVICES);
      const hour = Math.min(23, Math.floor(24 * (0.15 + 0.85 * rng())));
      const appearances = APPEARANCES[type];
      const appearance = rng() < (queryless ? 0.4 : 0.15) ? appearances[Math.floor(rng() * appearances.length)] : null;
      const popularity = 1 / (1 + qi * 0.35);
      const impressions = Math.max(1, Math.round(260 * popularity * scale * typeScale * dayFactor * (0.4 + rng())));
      const mainPage = anonymized ? Math.floor(rng() * pages.length) : queries[qi][1];
      const p1 = round1(Math.max(1, 1 + qi * 0.45 + rng() * 5));
      const hits: PageHit[] = [this.hit(rng, pages[mainPage], impressions, p1)];
      if (rng() < 0.35) {
        const other = (mainPage + 1 + Math.floor(rng() * (pages.length - 1))) % pages.length;
        const otherImpressions = Math.max(1, Math.floor(impressions * (0.2 + 0.5 * rng())));
        hits.push(this.hit(rng, pages[other], otherImpressions, round1(p1 + 1 + rng() * 8)));
      }
      groups.push({ date, hour, query: anonymized ? null : queries[qi][0], country, device, appearance, impressions, pages: hits });
    }
    return groups;
  }

  private hit(rng: () => number, page: string, impressions: number, position: number): PageHit {
    const clicks = Math.min(impressions, Math.round(impressions * ctrAt(position) * (0.6 + 0.8 * rng())));
    return { page, impressions, clicks, position };
  }
}
