import { Injectable, Module } from '@nestjs/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import * as z from 'zod';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { SiteUrlArg } from '../src/tools/tool-args.js';
import type { ToolCall } from '../src/tools/tool-call.js';
import { toolOutput } from '../src/tools/tool-output.js';
import { Tool, ToolProvider } from '../src/tools/tool.decorator.js';
import { connectHttp, type TestClient, text } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type InProcessServer, startInProcess } from './support/server.js';

// A tool added later, with no policy code of its own: it only declares its target, the site_url property.
@ToolProvider()
@Injectable()
class ProbeTools {
  @Tool({
    name: 'probe_property',
    title: 'Probe',
    description: 'Test-only tool with a property argument.',
    input: z.object({ site_url: SiteUrlArg }),
    target: ['site'],
    output: z.object({ site: z.string() }),
    access: 'read',
    apis: ['searchconsole'],
  })
  async probe(_args: unknown, call: ToolCall<{ site: string }>) {
    return toolOutput({ site: call.target.site }, `reached the tool for ${call.target.site}`);
  }
}
@Module({ providers: [ProbeTools] })
class ProbeModule {}

const ALLOWED = 'sc-domain:example.com,https://blog.example.net/';
let google: TestGoogle;
let server: InProcessServer;
let client: TestClient;

beforeAll(async () => {
  google = await startGoogle();
  server = await startInProcess({ ...google.env, GSC_ALLOWED_SITES: ALLOWED, GSC_SITE_URL: 'https://www.example.com' }, [], [ProbeModule]);
  client = await connectHttp(server.url, { revision: '2026-07-28' });
});
afterAll(async () => {
  await client.close();
  await server.close();
  await google.emulator.close();
});
beforeEach(() => {
  google.emulator.reset();
  // A verified domain this server must not touch.
  google.emulator.state.resources.set('dns://example.org', {
    id: 'dns%3A%2F%2Fexample.org',
    site: { type: 'INET_DOMAIN', identifier: 'example.org' },
    owners: ['owner@example.com', google.clientEmail],
  });
});

const sent = () => google.emulator.apiRequests();
const refused = (result: { isError?: boolean }, property: string) => {
  expect(result.isError).toBe(true);
  expect(text(result as never)).toContain(property);
  expect(text(result as never)).toMatch(/outside this server's allowed properties|not part of the property/);
  expect(text(result as never)).toMatch(/Nothing (else )?was sent to Google|Only the lookup/);
};

describe('property-shaped tools', () => {
  it('refuse a property outside the allowlist, naming it, with nothing sent', async () => {
    const result = await client.call('get_site', { site_url: 'sc-domain:example.org' });
    refused(result, 'sc-domain:example.org');
    expect(sent()).toHaveLength(0);
  });

  it('refuse look-alikes of an allowed property', async () => {
    for (const look of [
      'sc-domain:example.com.evil.test',
      'https://example.com.evil.test/',
      'sc-domain:evilexample.com',
      'https://blog.example.net.evil.test/',
    ]) {
      const result = await client.call('get_site', { site_url: look });
      expect(result.isError).toBe(true);
    }
    expect(sent()).toHaveLength(0);
  });

  it('allow a property covered by an allowed domain property', async () => {
    const result = await client.call('get_site', { site_url: 'https://shop.example.com' });
    expect(result.isError).toBeFalsy();
    expect(sent().map((r) => r.params.siteUrl)).toEqual(['https://shop.example.com/']);
  });

  it('default to GSC_SITE_URL when site_url is omitted', async () => {
    const result = await client.call('get_site', {});
    expect(result.structuredContent).toEqual({ site_url: SEED_PROPERTIES.owned, permission_level: 'siteOwner' });
  });

  it('add_site never takes GSC_SITE_URL', async () => {
    const tools = await client.listTools();
    const add = tools.find((t) => t.name === 'add_site');
    expect(add.inputSchema.required).toEqual(['site_url']);
    const get = tools.find((t) => t.name === 'get_site');
    expect(get.inputSchema.required ?? []).not.toContain('site_url');
    expect(get.inputSchema.properties.site_url.description).toContain('Defaults to https://www.example.com/');
    const result = await client.call('add_site', {});
    expect(result.isError).toBe(true);
    expect(sent().filter((r) => r.route === 'sites.add')).toHaveLength(0);
  });

  it('add_site refuses a property outside the allowlist', async () => {
    refused(await client.call('add_site', { site_url: 'https://elsewhere.example/' }), 'https://elsewhere.example/');
    expect(sent()).toHaveLength(0);
  });

  it('a newly registered tool with a property argument is checked with no code of its own', async () => {
    refused(await client.call('probe_property', { site_url: 'https://outside.example/' }), 'https://outside.example/');
    const ok = await client.call('probe_property', { site_url: 'SC-DOMAIN:EXAMPLE.COM' });
    expect(ok.structuredContent).toEqual({ site: 'sc-domain:example.com' });
  });
});

describe('listings filter to the allowlist and say how many they withheld', () => {
  it('list_sites', async () => {
    const result = await client.call('list_sites');
    const shown = result.structuredContent!.sites.map((s: { site_url: string }) => s.site_url);
    expect(shown.sort()).toEqual(
      [SEED_PROPERTIES.blog, SEED_PROPERTIES.domain, SEED_PROPERTIES.owned, SEED_PROPERTIES.subPath, SEED_PROPERTIES.fullUser].sort(),
    );
    // Withheld: the restricted sc-domain:example.org, the unverified http://legacy.example.net/ and the large https://www.example.net/.
    expect(result.structuredContent!.withheld).toBe(3);
    expect(text(result)).toMatch(/3 more withheld: outside the properties this caller may use \(GSC_ALLOWED_SITES/);
  });

  it('list_verified_sites', async () => {
    const result = await client.call('list_verified_sites');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.withheld).toBe(1);
    for (const r of result.structuredContent!.resources) {
      expect(r.site_url).toMatch(/example\.com|blog\.example\.net/);
    }
    expect(text(result)).toMatch(/withheld/);
  });
});

describe('page-URL tools', () => {
  it('request_indexing refuses a page outside every allowed property, with nothing sent', async () => {
    for (const url of [
      'https://example.org/jobs/1',
      'https://example.com.evil.test/jobs/1',
      'https://example.com@evil.test/jobs/1',
      'ftp://example.com/x',
    ]) {
      const result = await client.call('request_indexing', { url });
      expect(result.isError).toBe(true);
    }
    expect(sent()).toHaveLength(0);
  });

  it('get_indexing_status accepts a page inside an allowed domain property', async () => {
    const result = await client.call('get_indexing_status', { url: 'https://www.example.com/jobs/engineer' });
    expect(sent().map((r) => r.route)).toEqual(['urlNotifications.getMetadata']);
    expect(result.content).toBeDefined();
  });

  it('inspect_url refuses a URL outside the property being inspected', async () => {
    refused(
      await client.call('inspect_url', { site_url: SEED_PROPERTIES.subPath, url: 'https://www.example.com/shopping' }),
      'https://www.example.com/shopping',
    );
    expect(sent()).toHaveLength(0);
  });
});

describe('verification tools with an opaque resource id', () => {
  it('look the resource up first and refuse it when it maps outside the allowlist, sending nothing else', async () => {
    const result = await client.call('get_verified_site', { id: 'dns%3A%2F%2Fexample.org' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/belongs to sc-domain:example\.org, which is outside this server's allowed properties/);
    expect(sent().map((r) => r.route)).toEqual(['webResource.get']);
  });

  it('unverify_site is refused before any question is asked or anything is deleted', async () => {
    const result = await client.call('unverify_site', { id: 'dns://example.org' });
    expect(result.isError).toBe(true);
    expect(sent().map((r) => r.route)).toEqual(['webResource.get']);
  });
});
