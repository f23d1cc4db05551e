import { describe, expect, it } from '@jest/globals';
import { pageInProperty } from '../property/property.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { targetOf, type TargetContext } from './target.js';

// The one parser of a call's target: what the account step matches and what the site-access step refuses agree.

const site = { target: ['site'] } as Pick<ToolSpec, 'target' | 'newProperty'>;
const sitePage = { target: ['site', 'page'] } as Pick<ToolSpec, 'target' | 'newProperty'>;
const page = { target: ['page'] } as Pick<ToolSpec, 'target' | 'newProperty'>;
const context = (sites?: string[], siteUrl?: string): TargetContext => ({
  principal: 'ann@corp.example',
  access: sites ? { sites } : {},
  ...(siteUrl ? { siteUrl } : {}),
});

/** A small seeded generator (no dependency): properties, pages and allowlists over a few hosts. */
function* layouts(seed: number, count: number) {
  let x = seed;
  const next = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
  const hosts = ['example.com', 'www.example.com', 'shop.example.com', 'other.org'];
  const property = () =>
    [
      `sc-domain:${hosts[next(4)].replace(/^www\./, '')}`,
      `https://${hosts[next(4)]}/`,
      `http://${hosts[next(4)]}/blog/`,
      'not a property',
      '',
    ][next(5)];
  const url = () => [`https://${hosts[next(4)]}/a`, `http://${hosts[next(4)]}/blog/x`, 'ftp://x', 'nope'][next(4)];
  for (let i = 0; i < count; i++) {
    const allowed = next(3) === 0 ? undefined : [property(), property()].filter((p) => p.includes(':') && !p.includes(' '));
    yield { siteUrl: property(), url: url(), allowed: allowed?.length ? allowed : undefined };
  }
}

describe('targetOf', () => {
  it('refuses a missing, malformed or disallowed site_url, and names the rule to change', () => {
    expect(targetOf(site, {}, context()).site?.refusal).toContain('site_url is required');
    expect(targetOf(site, { site_url: 'example' }, context()).site?.refusal).toContain('site_url is not a property');
    expect(targetOf(site, { site_url: 'sc-domain:other.org' }, context(['sc-domain:example.com'])).site?.refusal).toContain(
      'GSC_ALLOWED_SITES',
    );
    expect(targetOf(site, {}, context(undefined, 'sc-domain:example.com')).site).toEqual({ value: 'sc-domain:example.com' });
  });

  it('add_site names a new property and never takes GSC_SITE_URL for it', () => {
    const add = { target: ['site'], newProperty: true } as Pick<ToolSpec, 'target' | 'newProperty'>;
    expect(targetOf(add, {}, context(undefined, 'sc-domain:example.com')).site?.refusal).toContain('site_url is required');
    expect(targetOf(add, { site_url: 'https://www.example.com/' }, context()).subject).toEqual({
      kind: 'new',
      property: 'https://www.example.com/',
    });
  });

  it('a tool without a target has no subject; one whose target is refused has a refused subject', () => {
    expect(targetOf({ target: [] }, {}, context()).subject).toBeUndefined();
    expect(targetOf(site, {}, context()).subject).toEqual({ kind: 'refused' });
  });

  it('over seeded layouts: the account step is given a property exactly when the site-access step lets it through', () => {
    for (const layout of layouts(31, 2000)) {
      const ctx = context(layout.allowed);
      const bySite = targetOf(site, { site_url: layout.siteUrl }, ctx);
      expect(bySite.subject?.kind === 'refused').toBe(bySite.site?.refusal !== undefined);
      if (bySite.site?.refusal === undefined && layout.allowed) {
        expect(isPropertyAllowed(bySite.site!.value, layout.allowed)).toBe(true);
      }
      const both = targetOf(sitePage, { site_url: layout.siteUrl, url: layout.url }, ctx);
      if (both.site?.refusal === undefined && both.page?.refusal === undefined) {
        expect(pageInProperty(both.page!.value, both.site!.value)).toBe(true);
      }
      const byPage = targetOf(page, { url: layout.url }, ctx);
      // A page the account step matches is one the site-access step lets through (the reverse may name a page under a narrower entry).
      if (byPage.subject?.kind === 'page') {
        expect(byPage.page?.refusal).toBeUndefined();
      }
    }
  });
});
