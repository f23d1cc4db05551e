import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RESULT_BUDGET_BYTES } from '../src/tools/tool-output.js';
import { connectHttp, type TestClient, text } from './support/clients.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { useStack } from './support/stack.js';

const { google, server, client } = useStack();

const DOMAIN_ID = 'dns%3A%2F%2Fexample.com';
const DOMAIN_PATH = `/siteVerification/v1/webResource/${DOMAIN_ID}`;
const WWW_ID = 'https%3A%2F%2Fwww.example.com%2F';
const WWW_PATH = `/siteVerification/v1/webResource/${WWW_ID}`;

const api = () => google.emulator.apiRequests();
const sent = (route: string) => api().filter((r) => r.route === route);
const writes = () => api().filter((r) => r.method !== 'GET' && r.route !== 'webResource.getToken');

describe('get_verification_token', () => {
  it('gives a domain property a DNS TXT record at the apex, asking Google for an INET_DOMAIN token', async () => {
    const result = await client.call('get_verification_token', { site_url: 'sc-domain:Example.com' });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out.site_url).toBe('sc-domain:example.com');
    expect(out.method).toBe('DNS_TXT');
    expect(out.token).toMatch(/^google-site-verification=/);
    expect(out.record).toMatchObject({ type: 'TXT', name: 'example.com.', value: out.token });
    expect(out.record.location).toMatch(/apex/);
    expect(out.next_step).toMatch(/verify_site/);
    expect(text(result)).toContain(out.token);
    const [request] = sent('webResource.getToken');
    expect(request.body).toEqual({ site: { type: 'INET_DOMAIN', identifier: 'example.com' }, verificationMethod: 'DNS_TXT' });
    expect(writes()).toEqual([]);
  });

  it('gives a URL-prefix property the <meta> tag for the home page <head>', async () => {
    const result = await client.call('get_verification_token', { site_url: 'https://www.example.com' });
    const out = result.structuredContent!;
    expect(out.method).toBe('META');
    expect(out.record.type).toBe('META');
    expect(out.record.value).toMatch(/^<meta name="google-site-verification" content="[^"]+" \/>$/);
    expect(out.record.location).toMatch(/<head> of https:\/\/www\.example\.com\//);
    expect(sent('webResource.getToken')[0].body).toEqual({
      site: { type: 'SITE', identifier: 'https://www.example.com/' },
      verificationMethod: 'META',
    });
  });

  it('names the file and its required content for FILE', async () => {
    const out = (await client.call('get_verification_token', { site_url: 'https://www.example.com/', method: 'FILE' })).structuredContent!;
    expect(out.record.type).toBe('FILE');
    expect(out.record.name).toBe(out.token);
    expect(out.record.value).toBe(`google-site-verification: ${out.token}`);
    expect(out.record.location).toContain(`https://www.example.com/${out.token}`);
  });

  it('refuses a method that does not fit the property kind, sending nothing', async () => {
    const domain = await client.call('get_verification_token', { site_url: 'sc-domain:example.com', method: 'META' });
    expect(domain.isError).toBe(true);
    expect(text(domain)).toMatch(/only through DNS/);
    expect(text(domain)).toMatch(/Nothing was sent to Google/);
    const prefix = await client.call('verify_site', { site_url: 'https://www.example.com/', method: 'DNS_TXT' });
    expect(prefix.isError).toBe(true);
    expect(text(prefix)).toMatch(/sc-domain:www\.example\.com/);
    expect(api()).toEqual([]);
  });
});

describe('verify_site', () => {
  it('says the token is not there yet before it is placed, and verifies once it is', async () => {
    const site = { type: 'INET_DOMAIN' as const, identifier: 'new-site.example' };
    const before = await client.call('verify_site', { site_url: 'sc-domain:new-site.example', method: 'DNS_TXT' });
    expect(before.isError).toBe(true);
    expect(text(before)).toMatch(/did not find the TXT record/);
    expect(text(before)).toMatch(/dig \+short TXT new-site\.example/);
    expect(text(before)).toMatch(/Nothing was changed/);
    expect(text(before)).toMatch(/The necessary verification token could not be found/);
    expect(google.emulator.state.resources.has('dns://new-site.example')).toBe(false);

    google.emulator.placeVerificationToken(site, 'DNS_TXT');
    const after = await client.call('verify_site', { site_url: 'sc-domain:new-site.example', method: 'DNS_TXT' });
    expect(after.isError).toBeFalsy();
    expect(after.structuredContent).toMatchObject({
      site_url: 'sc-domain:new-site.example',
      method: 'DNS_TXT',
      verified: true,
      id: 'dns%3A%2F%2Fnew-site.example',
      owners: [google.clientEmail],
      untrusted: true,
    });
    expect(text(after)).toMatch(/verified owner/);
    expect(text(after)).toMatch(/add_site/);
    const inserts = sent('webResource.insert');
    expect(inserts).toHaveLength(2);
    expect(inserts[1].query).toEqual({ verificationMethod: 'DNS_TXT' });
    expect(inserts[1].body).toEqual({ site: { type: 'INET_DOMAIN', identifier: 'new-site.example' } });
  });

  it('verifies a URL-prefix property with META', async () => {
    google.emulator.placeVerificationToken({ type: 'SITE', identifier: 'https://new.example.net/' }, 'META');
    const result = await client.call('verify_site', { site_url: 'https://new.example.net/', method: 'META' });
    expect(result.structuredContent).toMatchObject({
      verified: true,
      id: 'https%3A%2F%2Fnew.example.net%2F',
      site_url: 'https://new.example.net/',
    });
  });
});

describe('one verdict about verification across the tools (PRODUCT §5c)', () => {
  it('an already verified property: setup_site, get_verification_token and verify_site agree, and the owners include this credential', async () => {
    const site = 'https://www.example.com/';
    const setup = await client.call('setup_site', { site_url: site });
    expect(text(setup)).toContain(`verified owner through ${site} (resource id ${WWW_ID})`);
    const token = await client.call('get_verification_token', { site_url: site });
    expect(token.isError).toBeFalsy();
    expect(token.structuredContent).toMatchObject({ site_url: site, method: 'META', verified_through: site });
    expect(text(token)).toMatch(/^https:\/\/www\.example\.com\/ is already verified: .*No token needs placing\./);
    expect(text(token)).toMatch(/For re-verification only/);
    const verify = await client.call('verify_site', { site_url: site, method: 'META' });
    expect(verify.isError).toBeFalsy();
    expect(verify.structuredContent!.owners).toContain(google.clientEmail);
    const listed = (await client.call('list_verified_sites')).structuredContent!.resources.find((r: any) => r.id === WWW_ID);
    expect(listed.owners).toContain(google.clientEmail);
  });

  it('a property verified only through its domain is verified for all three, through the domain', async () => {
    const site = 'https://shop.example.com/';
    expect(text(await client.call('setup_site', { site_url: site }))).toContain('verified owner through sc-domain:example.com');
    expect((await client.call('get_verification_token', { site_url: site })).structuredContent!.verified_through).toBe(
      'sc-domain:example.com',
    );
    expect((await client.call('verify_site', { site_url: site, method: 'FILE' })).isError).toBeFalsy();
  });

  it('an unverified property gets a token without the claim, and each failed method is named in its own terms', async () => {
    const site = 'http://legacy.example.net/';
    const token = await client.call('get_verification_token', { site_url: site });
    expect(token.structuredContent!.verified_through).toBeUndefined();
    expect(text(token)).not.toMatch(/already verified/);
    const said: Record<string, string> = {};
    for (const method of ['META', 'FILE', 'ANALYTICS', 'TAG_MANAGER']) {
      const result = await client.call('verify_site', { site_url: site, method });
      expect(result.isError).toBe(true);
      said[method] = text(result);
      expect(said[method]).toContain(`with ${method}`);
      expect(said[method]).not.toMatch(/DNS|propagat/);
    }
    expect(said.META).toMatch(/did not find the <meta> tag/);
    expect(said.FILE).toMatch(/did not find the verification file/);
    expect(said.ANALYTICS).toMatch(/Google Analytics tag/);
    expect(said.TAG_MANAGER).toMatch(/Tag Manager container/);
    const cname = await client.call('verify_site', { site_url: 'sc-domain:new-site.example', method: 'DNS_CNAME' });
    expect(text(cname)).toMatch(/did not find the CNAME record/);
  });
});

describe('list_verified_sites and get_verified_site', () => {
  it('lists ids exactly as Google returns them and maps INET_DOMAIN back to sc-domain:', async () => {
    const result = await client.call('list_verified_sites');
    const out = result.structuredContent!;
    expect(out.untrusted).toBe(true);
    expect(out.withheld).toBeUndefined();
    expect(out.resources).toEqual(
      expect.arrayContaining([
        // Google lists only the caller's own resources; the emulator makes a registered credential an owner of the seeded ones.
        { id: DOMAIN_ID, site_url: 'sc-domain:example.com', owners: ['owner@example.com', google.clientEmail] },
        { id: WWW_ID, site_url: 'https://www.example.com/', owners: ['owner@example.com', 'webmaster@example.com', google.clientEmail] },
      ]),
    );
    expect(out.resources).toHaveLength(4);
    expect(text(result)).toContain(DOMAIN_ID);
  });

  it.each([
    ['percent-encoded', DOMAIN_ID],
    ['decoded', 'dns://example.com'],
  ])('gets a resource by its %s id, encoding it exactly once', async (_form, id) => {
    const result = await client.call('get_verified_site', { id });
    expect(result.structuredContent).toEqual({
      id: DOMAIN_ID,
      site_url: 'sc-domain:example.com',
      owners: ['owner@example.com', google.clientEmail],
      untrusted: true,
    });
    expect(api().map((r) => r.rawPath)).toEqual([DOMAIN_PATH]);
  });

  it('turns a missing resource into a sentence', async () => {
    const result = await client.call('get_verified_site', { id: 'dns://missing.example' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /owns no Site Verification resource with id "dns:\/\/missing\.example", so get_verified_site has nothing to act on/,
    );
    expect(sent('webResource.get')[0].rawPath).toBe('/siteVerification/v1/webResource/dns%3A%2F%2Fmissing.example');
  });

  it('drops whole entries to stay under 100 kB and says how many', async () => {
    const owners = [...Array.from({ length: 20 }, (_, i) => `owner-number-${i}@a-rather-long-domain-name.example`), google.clientEmail];
    for (let i = 0; i < 400; i++) {
      const identifier = `https://site-${i}.example.com/`;
      google.emulator.state.resources.set(identifier, { id: encodeURIComponent(identifier), site: { type: 'SITE', identifier }, owners });
    }
    const result = await client.call('list_verified_sites');
    expect(result.isError).toBeFalsy();
    const bytes = Buffer.byteLength(JSON.stringify(result.structuredContent)) + Buffer.byteLength(text(result));
    expect(bytes).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
    const shown = result.structuredContent!.resources.length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(404);
    expect(text(result)).toContain(`${404 - shown} not shown to stay within the size limit`);
  });
});

describe('Google errors', () => {
  it('403 on the list says what is missing', async () => {
    google.emulator.injectFault({ route: 'webResource.list', status: 403, message: 'The caller does not have permission' });
    const result = await client.call('list_verified_sites');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Google refused to list the sites and domains this credential has verified/);
    expect(text(result)).toMatch(/Nothing was changed/);
  });

  it('500 is retried, then told as temporary', async () => {
    google.emulator.injectFault({ route: 'webResource.get', status: 500, times: 10 });
    const result = await client.call('get_verified_site', { id: DOMAIN_ID });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/HTTP 500/);
    expect(text(result)).toMatch(/retry in a minute/);
    expect(sent('webResource.get').length).toBeGreaterThan(1);
  });

  it('429 with Retry-After is waited out', async () => {
    google.emulator.injectFault({ route: 'webResource.list', status: 429, retryAfter: 1 });
    const result = await client.call('list_verified_sites');
    expect(result.isError).toBeFalsy();
    expect(sent('webResource.list').map((r) => r.status)).toEqual([429, 200]);
  });

  it('429 without Retry-After is retried with backoff', async () => {
    google.emulator.injectFault({ route: 'webResource.getToken', status: 429 });
    const result = await client.call('get_verification_token', { site_url: 'sc-domain:example.com' });
    expect(result.isError).toBeFalsy();
    expect(sent('webResource.getToken').map((r) => r.status)).toEqual([429, 200]);
  });
});

describe('unverify_site (two-call token, no elicitation)', () => {
  it('issues a token without deleting, then deletes exactly once with it', async () => {
    const first = await client.call('unverify_site', { id: DOMAIN_ID });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ executed: false, outcome: 'token_issued' });
    expect(text(first)).toContain('This will give up ownership of sc-domain:example.com.');
    expect(text(first)).toContain('Every property for that site drops to 403, and the Indexing API stops working.');
    expect(sent('webResource.delete')).toEqual([]);

    const second = await client.call('unverify_site', { id: DOMAIN_ID, confirm_token: first.structuredContent!.confirm_token });
    expect(second.isError).toBeFalsy();
    expect(second.structuredContent).toMatchObject({
      executed: true,
      outcome: 'executed',
      id: DOMAIN_ID,
      site_url: 'sc-domain:example.com',
      unverified: true,
    });
    const deletes = sent('webResource.delete');
    expect(deletes).toHaveLength(1);
    expect(deletes[0].rawPath).toBe(DOMAIN_PATH);
    expect(google.emulator.state.resources.has('dns://example.com')).toBe(false);
  });

  it('refuses a resource that does not exist before asking anyone', async () => {
    const result = await client.call('unverify_site', { id: 'dns://nothing.example' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /owns no Site Verification resource with id "dns:\/\/nothing\.example", so unverify_site has nothing to act on/,
    );
    expect(text(result)).toMatch(/Nothing was changed/);
    expect(writes()).toEqual([]);
  });
});

describe('update_site_owners (two-call token, no elicitation)', () => {
  it('binds the token to the exact owner list: a widened list is refused, the same list executes once', async () => {
    const owners = ['owner@example.com'];
    const first = await client.call('update_site_owners', { id: WWW_ID, owners });
    expect(first.structuredContent).toMatchObject({ executed: false, outcome: 'token_issued' });
    expect(text(first)).toContain('This will replace the owner list of https://www.example.com/.');
    expect(text(first)).toContain('Everyone not in the new list loses ownership');
    const token = first.structuredContent!.confirm_token as string;

    const widened = await client.call('update_site_owners', {
      id: WWW_ID,
      owners: [...owners, 'intruder@example.com'],
      confirm_token: token,
    });
    expect(widened.isError).toBe(true);
    expect(widened.structuredContent).toMatchObject({ executed: false, outcome: 'token_rejected' });
    expect(writes()).toEqual([]);

    // The refusal did not spend the token: it was bound to another target.
    const second = await client.call('update_site_owners', { id: WWW_ID, owners, confirm_token: token });
    expect(second.isError).toBeFalsy();
    expect(second.structuredContent).toMatchObject({ executed: true, outcome: 'executed', id: WWW_ID, owners, untrusted: true });
    expect(text(second)).toContain('No longer owners: webmaster@example.com');
    const puts = sent('webResource.update');
    expect(puts).toHaveLength(1);
    expect(puts[0].rawPath).toBe(WWW_PATH);
    expect(puts[0].body).toEqual({ id: WWW_ID, site: { type: 'SITE', identifier: 'https://www.example.com/' }, owners });
    expect(writes()).toHaveLength(1);
  });

  it('patches only the owners with method patch', async () => {
    const args = { id: 'dns://example.com', owners: ['owner@example.com', 'new@example.com'], method: 'patch' };
    const first = await client.call('update_site_owners', args);
    const second = await client.call('update_site_owners', { ...args, confirm_token: first.structuredContent!.confirm_token });
    expect(second.structuredContent).toMatchObject({ executed: true, owners: ['owner@example.com', 'new@example.com'] });
    const patches = sent('webResource.patch');
    expect(patches).toHaveLength(1);
    expect(patches[0].rawPath).toBe(DOMAIN_PATH);
    expect(patches[0].body).toEqual({ owners: ['owner@example.com', 'new@example.com'] });
  });

  it('refuses an empty owner list and invalid addresses with nothing sent', async () => {
    const empty = await client.call('update_site_owners', { id: WWW_ID, owners: [] });
    expect(empty.isError).toBe(true);
    expect(text(empty)).toMatch(/empty list would remove every owner/);
    const invalid = await client.call('update_site_owners', { id: WWW_ID, owners: ['owner@example.com', 'not an email'] });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/"not an email"/);
    expect(api()).toEqual([]);
  });
});

describe('the approval dialog for update_site_owners', () => {
  it('quotes who gains and who loses ownership below the server’s own two sentences', async () => {
    const person = await connectHttp(server.url, { revision: '2026-07-28', elicit: () => ({ action: 'decline' }) });
    try {
      const result = await person.call('update_site_owners', { id: WWW_ID, owners: ['owner@example.com', 'new@example.com'] });
      expect(result.structuredContent).toMatchObject({ executed: false, outcome: 'declined' });
      const [dialog] = person.dialogs;
      expect(
        dialog.startsWith('This will replace the owner list of https://www.example.com/. Everyone not in the new list loses ownership'),
      ).toBe(true);
      expect(dialog).toContain('- Gaining ownership: "new@example.com"');
      expect(dialog).toContain('- Losing ownership: "webmaster@example.com"');
      expect(dialog).toContain(`- Resource id: "${WWW_ID}"`);
      // The service account acts, and the new list leaves it out: the question says the change removes the account making it.
      expect(dialog).toContain(`- Google account making the change: "${google.clientEmail}"`);
      expect(dialog).toContain(`- Losing its own ownership: the Google account making the change: "${google.clientEmail}"`);
      expect(dialog).toMatch(/the Google account making the change among them, so it cannot undo this/);
      expect(writes()).toEqual([]);
    } finally {
      await person.close();
    }
  });
});

describe('with GSC_ALLOWED_SITES', () => {
  let limited: InProcessServer;
  let limitedClient: TestClient;

  beforeAll(async () => {
    limited = await startInProcess({ ...google.env, GSC_ALLOWED_SITES: 'https://blog.example.net/' });
    limitedClient = await connectHttp(limited.url, { revision: '2025-11-25' });
  });

  afterAll(async () => {
    await limitedClient?.close();
    await limited?.close();
  });

  it('lists only allowed resources and says how many it withheld', async () => {
    const result = await limitedClient.call('list_verified_sites');
    expect(result.structuredContent).toEqual({
      resources: [
        {
          id: 'https%3A%2F%2Fblog.example.net%2F',
          site_url: 'https://blog.example.net/',
          owners: ['owner@example.com', google.clientEmail],
        },
      ],
      withheld: 3,
      untrusted: true,
    });
    expect(text(result)).toMatch(/3 more withheld: outside the properties this caller may use \(GSC_ALLOWED_SITES/);
  });

  it('reuses the resource the guard fetched instead of fetching it again', async () => {
    const result = await limitedClient.call('get_verified_site', { id: 'https%3A%2F%2Fblog.example.net%2F' });
    expect(result.structuredContent).toMatchObject({ site_url: 'https://blog.example.net/' });
    expect(sent('webResource.get')).toHaveLength(1);
  });

  it('refuses a resource outside the allowlist and changes nothing', async () => {
    const result = await limitedClient.call('unverify_site', { id: DOMAIN_ID });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/belongs to sc-domain:example\.com, which is outside this server's allowed properties/);
    expect(writes()).toEqual([]);
  });
});
