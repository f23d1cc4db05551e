import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startGoogle, type TestGoogle } from './support/google.js';
import { rawToolsList } from './support/raw-tools-list.js';
import { listToolsInProcess } from './support/server.js';
import { expectNoStaleToolSnapshots, expectToolSnapshot } from './support/tool-snapshots.js';

const ALL_TOOLS = [
  'add_annotation',
  'add_site',
  'delete_annotation',
  'delete_site',
  'delete_sitemap',
  'get_indexing_status',
  'get_site',
  'get_sitemap',
  'get_verification_token',
  'get_verified_site',
  'inspect_url',
  'inspect_urls',
  'list_annotations',
  'list_sitemaps',
  'list_sites',
  'list_verified_sites',
  'query_search_analytics',
  'request_indexing',
  'setup_site',
  'submit_sitemap',
  'submit_sitemaps',
  'unverify_site',
  'update_site_owners',
  'verify_site',
];
const GUARDED = ['delete_site', 'delete_sitemap', 'unverify_site', 'update_site_owners'];
/** Over this server's own state store (PRODUCT.md §5e): nothing reaches Google, so a closed world. */
const ANNOTATION_TOOLS = ['add_annotation', 'delete_annotation', 'list_annotations'];

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google.emulator.close());

const listTools = (env: Record<string, string> = {}) => listToolsInProcess({ ...google.env, ...env });

/** Σ name + description + compact inputSchema: what every visible tool costs the model on every request. */
export function toolListCost(tools: { name: string; description?: string; inputSchema: unknown }[]): number {
  return tools.reduce((sum, t) => sum + t.name.length + (t.description ?? '').length + JSON.stringify(t.inputSchema).length, 0);
}

describe('tools/list', () => {
  describe('pins the whole surface, one file per tool in test/__snapshots__/tools/ (a change is a reviewed diff)', () => {
    let tools: { name: string }[];
    beforeAll(async () => {
      tools = await listTools();
    });

    it('lists the tools in order, and keeps a file for no tool that is gone', () => {
      expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
      expectNoStaleToolSnapshots(ALL_TOOLS);
    });

    it.each(ALL_TOOLS)('pins %s: name, title, description, schemas and annotations', (name) => {
      const tool = tools.find((t) => t.name === name);
      expect(tool).toBeDefined();
      expectToolSnapshot(tool!);
    });
  });

  it('derives every annotation from the access of the tool, and guards exactly the four destructive tools', async () => {
    for (const tool of await listTools()) {
      const a = tool.annotations;
      expect(a.title).toBeUndefined(); // tool.title says it once
      expect(a.openWorldHint).toBe(!ANNOTATION_TOOLS.includes(tool.name));
      expect(a.destructiveHint).toBe(GUARDED.includes(tool.name));
      if (a.readOnlyHint) {
        expect(a.destructiveHint).toBe(false);
      }
      if (GUARDED.includes(tool.name)) {
        expect(tool.inputSchema.properties.confirm_token).toBeDefined();
        expect(Object.keys(tool.outputSchema.properties)).toEqual(expect.arrayContaining(['executed', 'outcome']));
      }
      expect(tool.description).toMatch(/[.)]$/);
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$schema');
      if (tool.inputSchema.properties.site_url) {
        expect(tool.inputSchema.properties.site_url.description).toMatch(
          /^Property: "sc-domain:example\.com" or "https:\/\/www\.example\.com\/"\./,
        );
      }
    }
  });

  it('stays within the tool-list cost bars (the 21 Google tools and the 3 annotation tools)', async () => {
    const all = toolListCost(await listTools());
    const essential = toolListCost(await listTools({ GSC_ALLOW_TOOLS: 'essential' }));
    expect(all).toBeLessThanOrEqual(11_500);
    expect(essential).toBeLessThanOrEqual(3_000);
  });

  it('sends the whole tools/list within the wire-size bars of PRODUCT.md §10 (compact JSON, output schemas included)', async () => {
    const all = await rawToolsList(google.env);
    const essential = await rawToolsList({ ...google.env, GSC_ALLOW_TOOLS: 'essential' });
    expect(all.tools).toHaveLength(ALL_TOOLS.length);
    expect(essential.tools).toHaveLength(5);
    // 24 tools: the 21 Google tools and the 3 annotation tools, the views' _meta.ui included.
    expect(JSON.stringify(all).length).toBeLessThanOrEqual(24_000);
    expect(JSON.stringify(essential).length).toBeLessThanOrEqual(8_000);
    for (const tool of all.tools) {
      expect(tool.outputSchema.type).toBe('object');
      // No prose in output schemas: the text answer and the field names carry it.
      expect(JSON.stringify(tool.outputSchema)).not.toContain('"description"');
    }
  });

  it('read-only mode lists only the read tools', async () => {
    const tools = await listTools({ GSC_READ_ONLY: 'true' });
    expect(tools.every((t) => t.annotations.readOnlyHint)).toBe(true);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['list_sites', 'query_search_analytics', 'get_verification_token', 'setup_site']),
    );
    // The twelve Google read tools and list_annotations.
    expect(tools).toHaveLength(13);
    expect(tools.map((t) => t.name)).toContain('list_annotations');
  });

  it('essential is the curated five', async () => {
    expect((await listTools({ GSC_ALLOW_TOOLS: 'essential' })).map((t) => t.name)).toEqual([
      'get_site',
      'inspect_url',
      'list_sitemaps',
      'list_sites',
      'query_search_analytics',
    ]);
  });
});
