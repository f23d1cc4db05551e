import { describe, expect, it } from '@jest/globals';
import { text } from './support/clients.js';
import { useStack } from './support/stack.js';

const { google, legacy: client } = useStack();

const STEPS = ['get_token', 'place_token', 'verify_ownership', 'add_property'];
const done = (result: { structuredContent?: Record<string, any> }) => result.structuredContent!.steps.map((s: { done: boolean }) => s.done);

/** setup_site changes nothing: only GETs and the token request (a POST that claims nothing) may reach Google. */
function expectNoWrites(): void {
  const requests = google.emulator.apiRequests();
  expect(requests.length).toBeGreaterThan(0);
  const writes = requests.filter((r) => r.method !== 'GET' && r.route !== 'webResource.getToken');
  expect(writes).toEqual([]);
  expect(requests.some((r) => r.route === 'webResource.insert' || r.route === 'sites.add')).toBe(false);
}

describe('setup_site', () => {
  it('reports every step done for a seeded, verified and added property, without a record', async () => {
    const result = await client.call('setup_site', { site_url: 'sc-domain:example.com' });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out.site_url).toBe('sc-domain:example.com');
    expect(out.steps.map((s: { step: string }) => s.step)).toEqual(STEPS);
    expect(done(result)).toEqual([true, true, true, true]);
    expect(out.steps[2].detail).toContain('dns%3A%2F%2Fexample.com');
    expect(out.record).toBeUndefined();
    expect(out.next_step).toMatch(/Nothing to do/);
    expect(google.emulator.apiRequests().some((r) => r.route === 'webResource.getToken')).toBe(false);
    expectNoWrites();
  });

  it('counts a property covered by a verified domain as verified', async () => {
    const result = await client.call('setup_site', { site_url: 'https://shop.example.com/' });
    expect(done(result)).toEqual([true, true, true, true]);
    expect(result.structuredContent!.steps[2].detail).toContain('sc-domain:example.com');
  });

  it('reports everything missing for a brand-new domain and shows the apex TXT record', async () => {
    const result = await client.call('setup_site', { site_url: 'sc-domain:brand-new.example' });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(done(result)).toEqual([false, false, false, false]);
    expect(out.method).toBe('DNS_TXT');
    expect(out.record).toMatchObject({ type: 'TXT', name: 'brand-new.example.' });
    expect(out.record.value).toMatch(/^google-site-verification=/);
    expect(out.next_step).toMatch(/verify_site with method DNS_TXT/);
    expect(out.next_step).toMatch(/add_site/);
    expect(text(result)).toContain(out.record.value);
    const token = google.emulator.apiRequests().find((r) => r.route === 'webResource.getToken')!;
    expect(token.body).toEqual({ site: { type: 'INET_DOMAIN', identifier: 'brand-new.example' }, verificationMethod: 'DNS_TXT' });
    expectNoWrites();
  });

  it('reports a property that is added but unverified, with the meta tag to place', async () => {
    const result = await client.call('setup_site', { site_url: 'http://legacy.example.net/' });
    const out = result.structuredContent!;
    expect(done(result)).toEqual([false, false, false, true]);
    expect(out.steps[3].detail).toMatch(/unverified/);
    expect(out.method).toBe('META');
    expect(out.record.type).toBe('META');
    expect(out.record.value).toMatch(/^<meta name="google-site-verification"/);
    expect(out.next_step).not.toMatch(/add_site/);
    expectNoWrites();
  });

  it('reports a verified property that is not added yet, pointing at add_site', async () => {
    const result = await client.call('setup_site', { site_url: 'https://docs.example.com/' });
    const out = result.structuredContent!;
    expect(done(result)).toEqual([true, true, true, false]);
    expect(out.record).toBeUndefined();
    expect(out.next_step).toMatch(/add_site/);
    expectNoWrites();
  });

  it('turns a failing Site Verification list into a sentence', async () => {
    google.emulator.injectFault({ route: 'webResource.list', status: 403 });
    const result = await client.call('setup_site', { site_url: 'sc-domain:example.com' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Google refused to list the sites and domains this credential has verified/);
    expectNoWrites();
  });
});
