import { describe, expect, it } from '@jest/globals';
import { type AccountProperties, resolveProperty } from './property-match.js';

// Worked examples of PRODUCT.md §8d's rule; the fuzz (test/property-resolution.fuzz.spec.ts) covers the space.
const account = (email: string, sites: Record<string, string>): AccountProperties<string> => ({
  account: email,
  email,
  sites: Object.entries(sites).map(([siteUrl, permissionLevel]) => ({ siteUrl, permissionLevel })),
});
const ANN = account('ann@example.com', {
  'sc-domain:example.com': 'siteOwner',
  'https://www.example.com/fr/': 'siteRestrictedUser',
  'https://xn--bcher-kva.de/': 'siteOwner',
});
const BEN = account('ben@example.net', {
  'https://www.example.com/': 'siteFullUser',
  'https://www.example.com/fr/': 'siteOwner',
  'https://example.com/café/': 'siteOwner',
});
const both = [ANN, BEN];

describe('resolveProperty', () => {
  it('a site_url names one property exactly, however it is spelled; never a covering one', () => {
    for (const spelled of ['https://WWW.Example.com', 'HTTPS://www.example.com:443/', ' https://www.example.com/x/.. ']) {
      expect(resolveProperty({ siteUrl: spelled }, both)).toMatchObject({
        kind: 'match',
        email: BEN.email,
        property: 'https://www.example.com/',
      });
    }
    // https://shop.example.com/ lies inside Ann's sc-domain:example.com, but it is not that property.
    expect(resolveProperty({ siteUrl: 'https://shop.example.com' }, both)).toMatchObject({ kind: 'none' });
    expect(resolveProperty({ siteUrl: 'https://www.example.com/fr/blog' }, both)).toMatchObject({ kind: 'none' });
    expect(resolveProperty({ siteUrl: 'http://www.example.com/' }, both)).toMatchObject({ kind: 'none' });
  });

  it('IDN hosts and percent-encoded letters name the same property in either spelling', () => {
    expect(resolveProperty({ siteUrl: 'https://Bücher.de' }, both)).toMatchObject({ kind: 'match', email: ANN.email });
    expect(resolveProperty({ siteUrl: 'https://example.com/caf%c3%a9' }, both)).toMatchObject({ kind: 'match', email: BEN.email });
    expect(resolveProperty({ siteUrl: 'https://example.com/%63af%C3%A9/' }, both)).toMatchObject({ kind: 'match', email: BEN.email });
    // A sites.list that spells the host in Unicode or upper case still holds it.
    const listed = [account('cy@example.org', { 'sc-domain:BÜCHER.de': 'siteOwner', 'https://WWW.EXAMPLE.ORG/': 'siteOwner' })];
    expect(resolveProperty({ pageUrl: 'https://shop.xn--bcher-kva.de/x' }, listed)).toMatchObject({
      kind: 'match',
      property: 'sc-domain:xn--bcher-kva.de',
    });
    expect(resolveProperty({ siteUrl: 'https://www.example.org' }, listed)).toMatchObject({
      kind: 'match',
      property: 'https://www.example.org/',
    });
  });

  it('the same property in two accounts is asked, with each level, never settled by rights', () => {
    const tie = resolveProperty({ siteUrl: 'https://www.example.com/fr' }, both);
    expect(tie).toEqual({
      kind: 'ambiguous',
      subject: 'https://www.example.com/fr/',
      property: 'https://www.example.com/fr/',
      candidates: [
        { account: ANN.email, email: ANN.email, property: 'https://www.example.com/fr/', permissionLevel: 'siteRestrictedUser' },
        { account: BEN.email, email: BEN.email, property: 'https://www.example.com/fr/', permissionLevel: 'siteOwner' },
      ],
    });
  });

  it('a page belongs to the exact property, else the longest covering URL-prefix, else a covering sc-domain:', () => {
    // The longest prefix (www…/fr/) is in both accounts: asked.
    expect(resolveProperty({ pageUrl: 'https://www.example.com/fr/jobs/1?x=1#top' }, both)).toMatchObject({ kind: 'ambiguous' });
    // www…/ (Ben) is longer than Ann's sc-domain: Ben's, not asked.
    expect(resolveProperty({ pageUrl: 'https://www.example.com/de/jobs' }, both)).toMatchObject({
      kind: 'match',
      email: BEN.email,
      property: 'https://www.example.com/',
    });
    // Only a domain property covers it.
    expect(resolveProperty({ pageUrl: 'http://shop.example.com/a' }, both)).toMatchObject({
      kind: 'match',
      email: ANN.email,
      property: 'sc-domain:example.com',
    });
    // "/fr" is not inside "/fr/".
    expect(resolveProperty({ pageUrl: 'https://www.example.com/fr' }, both)).toMatchObject({ property: 'https://www.example.com/' });
    // The narrower of two domain properties.
    const domains = [
      account('a@x.test', { 'sc-domain:example.com': 'siteOwner' }),
      account('b@x.test', { 'sc-domain:shop.example.com': 'siteOwner' }),
    ];
    expect(resolveProperty({ pageUrl: 'https://m.shop.example.com/' }, domains)).toMatchObject({ kind: 'match', email: 'b@x.test' });
    expect(resolveProperty({ pageUrl: 'https://example.org/' }, both)).toMatchObject({ kind: 'none' });
  });

  it('google_account picks the account; one that lacks the property is refused, naming those that have it', () => {
    expect(resolveProperty({ siteUrl: 'https://www.example.com/fr/' }, both, { googleAccount: 'BEN@example.net' })).toMatchObject({
      kind: 'match',
      email: BEN.email,
      permissionLevel: 'siteOwner',
    });
    expect(resolveProperty({ pageUrl: 'https://www.example.com/fr/x' }, both, { googleAccount: 'ann@example.com' })).toMatchObject({
      kind: 'match',
      property: 'https://www.example.com/fr/',
    });
    const lacks = resolveProperty({ siteUrl: 'https://www.example.com/' }, both, { googleAccount: 'ann@example.com' });
    expect(lacks).toMatchObject({ kind: 'none', named: ANN.email, elsewhere: [{ email: BEN.email }] });
    expect(resolveProperty({ siteUrl: 'https://www.example.com/' }, both, { googleAccount: 'eve@example.com' })).toEqual({
      kind: 'unknown-account',
      named: 'eve@example.com',
    });
  });

  it('the allowlist: outside it nothing is matched; a refusal names only allowed properties and counts the rest', () => {
    const allowed = ['https://www.example.com/'];
    expect(resolveProperty({ siteUrl: 'sc-domain:example.com' }, both, { allowed })).toEqual({
      kind: 'outside',
      what: 'sc-domain:example.com',
    });
    expect(resolveProperty({ pageUrl: 'https://shop.example.com/' }, both, { allowed })).toMatchObject({ kind: 'outside' });
    const none = resolveProperty({ siteUrl: 'https://www.example.com/de/' }, both, { allowed });
    expect(none).toMatchObject({
      kind: 'none',
      accounts: [
        { email: ANN.email, properties: ['https://www.example.com/fr/'], withheld: 2 },
        { email: BEN.email, properties: ['https://www.example.com/', 'https://www.example.com/fr/'], withheld: 1 },
      ],
    });
  });

  it('what does not parse is invalid: user info, a trailing dot, a bare host', () => {
    for (const siteUrl of ['https://me@www.example.com/', 'https://www.example.com./', 'www.example.com']) {
      expect(resolveProperty({ siteUrl }, both)).toMatchObject({ kind: 'invalid' });
    }
    expect(resolveProperty({ pageUrl: 'https://me@www.example.com/x' }, both)).toMatchObject({ kind: 'invalid' });
  });
});
