import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import * as z from 'zod';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { textOf, ToolCallKit } from '../../test/support/tool-call-kit.js';
import { googleError } from '../google/google-service.fake.js';
import { PageUrlArg, SiteUrlArg } from '../tools/tool-args.js';
import { checkTarget } from '../tools/tool-registry.service.js';

// SiteAccessGuard in front of real tools (get_site, inspect_url, inspect_urls,
// get_verified_site): what it lets through, what it refuses and in which words,
// and that a refusal sends nothing to Google (the shared fake records every call).

const ALLOWED = 'sc-domain:example.com,https://blog.example.net/';
const OUTSIDE = 'https://www.other.example/';
const INSPECTION = {
  inspectionResult: {
    inspectionResultLink: 'https://search.google.com/x',
    indexStatusResult: { verdict: 'PASS', coverageState: 'Submitted and indexed' },
  },
};

let kit: ToolCallKit;
beforeAll(() => Logger.overrideLogger(false));
afterEach(() => kit.dispose());

const isError = (result: CallToolResult | InputRequiredResult) => (result as CallToolResult).isError === true;

describe('SiteAccessGuard: properties', () => {
  it('lets an allowed property through, normalised, and hands the tool exactly that', async () => {
    kit = new ToolCallKit({ GSC_ALLOWED_SITES: ALLOWED });
    kit.google.on('sites.get', (params: { siteUrl: string }) => ({ siteUrl: params.siteUrl, permissionLevel: 'siteOwner' }));
    const result = await kit.call('get_site', { site_url: 'https://WWW.Example.com' });
    expect(isError(result)).toBe(false);
    expect(kit.google.calls.map((c) => c.args[0])).toEqual([{ siteUrl: 'https://www.example.com/' }]);
  });

  it('refuses a property outside GSC_ALLOWED_SITES as an isError sentence naming it and the list, with nothing sent', async () => {
    kit = new ToolCallKit({ GSC_ALLOWED_SITES: ALLOWED });
    const result = await kit.call('get_site', { site_url: OUTSIDE });
    expect(isError(result)).toBe(true);
    expect(textOf(result)).toContain(
      `${OUTSIDE} is outside this server's allowed properties (sc-domain:example.com, https://blog.example.net/)`,
    );
    expect(textOf(result)).toContain('Nothing was sent to Google');
    expect(textOf(result)).toContain('GSC_ALLOWED_SITES');
    expect(kit.google.calls).toHaveLength(0);
  });

  it('a caller narrowed by a policy rule is told that rule and its file (from the access decision), not GSC_ALLOWED_SITES', async () => {
    kit = new ToolCallKit(
      { GSC_ALLOWED_SITES: ALLOWED },
      {
        rules: [
          { principals: ['alice@corp.example'], tools: ['*'], sites: ['https://blog.example.net/'] },
          { groups: ['seo'], tools: ['*'] },
        ],
      },
    );
    const alice = await kit.call('get_site', { site_url: 'https://www.example.com/' }, { principal: 'alice@corp.example' });
    expect(textOf(alice)).toContain('is outside the properties allowed to alice@corp.example (https://blog.example.net/)');
    expect(textOf(alice)).toMatch(/add it to the "sites" of rule 1 in \S/);
    // Rule 2 names no sites: the server-wide list is what narrows this caller, so that is where to ask.
    const seo = await kit.call('get_site', { site_url: OUTSIDE }, { principal: 'bob@corp.example', groups: ['seo'] });
    expect(textOf(seo)).toContain("outside this server's allowed properties");
    expect(textOf(seo)).toContain('GSC_ALLOWED_SITES');
    expect(kit.google.calls).toHaveLength(0);
  });

  it('fills in GSC_SITE_URL when site_url is omitted, and without it asks for a property', async () => {
    kit = new ToolCallKit({ GSC_SITE_URL: 'https://blog.example.net/' });
    kit.google.on('sites.get', (params: { siteUrl: string }) => ({ siteUrl: params.siteUrl, permissionLevel: 'siteOwner' }));
    await kit.call('get_site', {});
    expect(kit.google.calls.map((c) => c.args[0])).toEqual([{ siteUrl: 'https://blog.example.net/' }]);
    await kit.dispose();
    kit = new ToolCallKit();
    expect(textOf(await kit.call('get_site', {}))).toContain('site_url is required');
    expect(textOf(await kit.call('get_site', { site_url: 'example.com' }))).toContain('site_url is not a property');
    expect(kit.google.calls).toHaveLength(0);
  });
});

describe('SiteAccessGuard: page URLs', () => {
  it('a page inside the property goes through; one outside it is refused, naming both, nothing sent', async () => {
    kit = new ToolCallKit({ GSC_ALLOWED_SITES: ALLOWED });
    kit.google.on('urlInspection.index.inspect', INSPECTION);
    const inside = await kit.call('inspect_url', { site_url: 'https://blog.example.net/', url: 'https://blog.example.net/post' });
    expect(isError(inside)).toBe(false);
    expect(kit.google.calls).toHaveLength(1);

    const outside = await kit.call('inspect_url', { site_url: 'https://blog.example.net/', url: 'https://www.example.com/page' });
    expect(textOf(outside)).toContain('https://www.example.com/page is not part of the property https://blog.example.net/');
    expect(kit.google.calls).toHaveLength(1);
  });

  it('one URL of a batch outside the property refuses the whole batch before anything is sent', async () => {
    kit = new ToolCallKit({ GSC_ALLOWED_SITES: ALLOWED });
    kit.google.on('urlInspection.index.inspect', INSPECTION);
    const result = await kit.call('inspect_urls', {
      site_url: 'sc-domain:example.com',
      urls: ['https://www.example.com/a', 'https://blog.example.net/b'],
    });
    expect(isError(result)).toBe(true);
    expect(textOf(result)).toContain('https://blog.example.net/b is not part of the property sc-domain:example.com');
    expect(kit.google.calls).toHaveLength(0);
  });

  it('a URL that is not a page is refused as such', async () => {
    kit = new ToolCallKit();
    expect(textOf(await kit.call('inspect_url', { site_url: 'sc-domain:example.com', url: 'ftp://example.com/x' }))).toContain(
      'The page URL is refused',
    );
    expect(kit.google.calls).toHaveLength(0);
  });
});

describe('SiteAccessGuard: Site Verification ids', () => {
  const resource = (identifier: string, type = 'SITE') => ({
    id: encodeURIComponent(type === 'SITE' ? identifier : `dns://${identifier}`),
    site: { type, identifier },
    owners: ['a@corp.example'],
  });

  it('fetches the resource an id names and maps its site back to a property: allowed when that property is', async () => {
    kit = new ToolCallKit({ GSC_ALLOWED_SITES: ALLOWED });
    kit.google.on('webResource.get', resource('example.com', 'INET_DOMAIN'));
    const result = await kit.call('get_verified_site', { id: 'dns%3A%2F%2Fexample.com' });
    expect(isError(result)).toBe(false);
    expect((result as CallToolResult).structuredContent).toMatchObject({ site_url: 'sc-domain:example.com' });
    // The id is decoded once before the client encodes it again.
    expect(kit.google.calls.map((c) => c.args[0])).toEqual(['dns://example.com']);
  });

  it('refuses a resource whose property is outside the allowlist, saying only the lookup was sent', async () => {
    kit = new ToolCallKit({ GSC_ALLOWED_SITES: ALLOWED });
    kit.google.on('webResource.get', resource(OUTSIDE));
    const result = await kit.call('unverify_site', { id: encodeURIComponent(OUTSIDE) });
    expect(isError(result)).toBe(true);
    expect(textOf(result)).toContain(
      `The Site Verification resource ${OUTSIDE} belongs to ${OUTSIDE}, which is outside this server's allowed properties`,
    );
    expect(textOf(result)).toContain('Only the lookup of that resource was sent to Google; nothing was changed.');
    expect(kit.google.ops.map((op) => op.method)).toEqual(['webResource.get']);
  });

  it('an id this credential does not own is answered with where to find the ones it does', async () => {
    kit = new ToolCallKit();
    kit.google.fail('webResource.get', googleError('not_found', { status: 404 }));
    const result = await kit.call('get_verified_site', { id: 'dns%3A%2F%2Fnope.example' });
    expect(textOf(result)).toContain('owns no Site Verification resource with id "dns://nope.example"');
    expect(textOf(result)).toContain('list_verified_sites');
  });
});

describe('checkTarget (start-up)', () => {
  const input = z.object({ id: z.string(), site_url: SiteUrlArg });

  it('a reserved argument without its declared target stops start-up, naming the tool and the fix', () => {
    expect(() => checkTarget({ name: 'export_job', input: z.object({ id: z.string() }) })).toThrow(
      `Tool export_job has the argument "id" but does not declare target 'resource' or 'annotation': SiteAccessGuard reserves "id" for the id of a Site Verification resource (which it fetches) or the id of an annotation (which names its property). Add one of them to the target of its @Tool, or rename the argument.`,
    );
    expect(() => checkTarget({ name: 'probe', input, target: ['site'] })).toThrow(/Tool probe has the argument "id"/);
  });

  it('a declared target without its argument stops start-up too', () => {
    expect(() => checkTarget({ name: 'probe', input: z.object({ site_url: SiteUrlArg }), target: ['site', 'page'] as never })).toThrow(
      `Tool probe declares target 'page' but has no "url" argument for it.`,
    );
  });

  it('an id is one kind or the other, never both', () => {
    expect(() => checkTarget({ name: 'probe', input, target: ['resource', 'annotation', 'site'] })).toThrow(
      `Tool probe declares targets 'resource' and 'annotation', but its "id" is one of them.`,
    );
    expect(() =>
      checkTarget({ name: 'probe', input: z.object({ site_url: SiteUrlArg }), target: ['site', 'annotation'] as never }),
    ).toThrow(`Tool probe declares target 'annotation' but has no "id" argument for it.`);
  });

  it('declared and present agree: start-up goes on', () => {
    expect(() => checkTarget({ name: 'probe', input: z.object({ id: z.string() }), target: ['annotation'] })).not.toThrow();
    expect(() => checkTarget({ name: 'probe', input, target: ['resource', 'site'] })).not.toThrow();
    expect(() => checkTarget({ name: 'probe', input: z.object({ url: PageUrlArg, job: z.string() }), target: ['page'] })).not.toThrow();
  });
});
