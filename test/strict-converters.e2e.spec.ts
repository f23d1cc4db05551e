import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mcpToTool } from '@google/genai';
import { mcpToFunctionTool, type MCPServer } from '@openai/agents';
import { connectHttp, type TestClient } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type InProcessServer, startInProcess } from './support/server.js';

// PRODUCT.md §5c, §10: strict function-calling clients accept all 24 tools (21 Google, 3 annotation) as
// listed — through the real converters, offline: the OpenAI Agents SDK's
// mcpToFunctionTool with convertSchemasToStrict (which falls back to a
// non-strict tool, with only a log line, when a schema does not convert), and
// @google/genai's mcpToTool, which forwards the schemas as
// parametersJsonSchema / responseJsonSchema for the Gemini API to read within
// its documented subset.

const ALL = 24;

/** The JSON Schema keywords Gemini reads, as the installed @google/genai documents them (responseJsonSchema). */
function geminiKeywords(): Set<string> {
  const dts = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../node_modules/@google/genai/dist/genai.d.ts'), 'utf8');
  const doc = /only the\s+following properties are supported:([\s\S]*?)The non-standard\s+`propertyOrdering`/.exec(dts)?.[1];
  if (!doc) {
    throw new Error('the Gemini schema subset is no longer documented where this test looks for it (@google/genai genai.d.ts)');
  }
  return new Set([...doc.matchAll(/`([$a-zA-Z]+)`/g)].map((m) => m[1]).concat('propertyOrdering'));
}

/** Every place a schema steps outside the subset: an unknown keyword, an enum of other than strings and numbers, a $ref with siblings. */
function outsideSubset(schema: unknown, allowed: Set<string>, path = '#'): string[] {
  if (!schema || typeof schema !== 'object') {
    return [];
  }
  const node = schema as Record<string, unknown>;
  const found: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (!allowed.has(key)) {
      found.push(`${path}/${key}`);
    }
    if (key === 'enum' && !(value as unknown[]).every((v) => typeof v === 'string' || typeof v === 'number')) {
      found.push(`${path}/enum of ${JSON.stringify(value)}`);
    }
    if (key === 'properties' || key === '$defs') {
      for (const [name, sub] of Object.entries(value as object)) {
        found.push(...outsideSubset(sub, allowed, `${path}/${key}/${name}`));
      }
    }
    if (key === 'items' || key === 'additionalProperties') {
      found.push(...outsideSubset(value, allowed, `${path}/${key}`));
    }
    if (key === 'anyOf' || key === 'oneOf') {
      (value as unknown[]).forEach((sub, i) => found.push(...outsideSubset(sub, allowed, `${path}/${key}/${i}`)));
    }
  }
  if ('$ref' in node && Object.keys(node).some((k) => !k.startsWith('$'))) {
    found.push(`${path}: $ref with siblings`);
  }
  return found;
}

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google.emulator.close());

describe.each([
  ['no default property', {}],
  ['GSC_SITE_URL set (site_url optional)', { GSC_SITE_URL: 'sc-domain:example.com' }],
])('strict converters, %s', (_, env: Record<string, string>) => {
  let server: InProcessServer;
  let client: TestClient;
  let tools: any[];
  beforeAll(async () => {
    server = await startInProcess({ ...google.env, ...env });
    client = await connectHttp(server.url, { revision: '2025-11-25' });
    tools = await client.listTools();
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('OpenAI Agents SDK: every tool converts in strict mode (no fallback), closed, every property listed, optional ones nullable', () => {
    expect(tools).toHaveLength(ALL);
    const mcpServer = { name: 'gsc' } as unknown as MCPServer;
    const converted = tools.map((tool) => ({ name: tool.name, tool: tool, fn: mcpToFunctionTool(tool, mcpServer, true) }));
    expect(converted.filter((c) => !c.fn.strict).map((c) => c.name)).toEqual([]);
    for (const { tool, fn } of converted) {
      const params = fn.parameters as any;
      expect(params.additionalProperties).toBe(false);
      expect(params.required).toEqual(Object.keys(params.properties));
      const optional = Object.keys(tool.inputSchema.properties).filter((name) => !(tool.inputSchema.required ?? []).includes(name));
      for (const name of optional) {
        expect(params.properties[name].anyOf).toContainEqual({ type: 'null' });
      }
    }
    const analytics = converted.find((c) => c.name === 'query_search_analytics')!.fn.parameters as any;
    const window =
      analytics.properties.compare.anyOf.find((b: any) => b.anyOf)?.anyOf.find((b: any) => b.type === 'object') ??
      analytics.properties.compare.anyOf.find((b: any) => b.type === 'object');
    expect(window).toMatchObject({ required: ['start_date', 'end_date'], additionalProperties: false });
  });

  it('Gemini: mcpToTool declares all 24, with schemas inside the documented subset (no const, no minLength)', async () => {
    const allowed = geminiKeywords();
    expect(allowed.has('enum')).toBe(true);
    expect(allowed.has('const')).toBe(false);
    const declared = (await mcpToTool(client.raw).tool()).functionDeclarations ?? [];
    expect(declared.map((d) => d.name)).toEqual(tools.map((t) => t.name));
    const outside = declared.flatMap((d) => [
      ...outsideSubset(d.parametersJsonSchema, allowed).map((p) => `${d.name} input ${p}`),
      ...outsideSubset(d.responseJsonSchema, allowed).map((p) => `${d.name} output ${p}`),
    ]);
    expect(outside).toEqual([]);
    for (const d of declared) {
      expect(d.responseJsonSchema).toMatchObject({ type: 'object' });
    }
  });

  it('answers what the schema lets through but the server refuses with a sentence naming the field and its valid forms', async () => {
    const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        'submit_sitemap',
        { site_url: 'https://www.example.com/', sitemap_url: '' },
        /sitemap_url: sitemap_url is empty: give the full sitemap URL, e\.g\. https:\/\/www\.example\.com\/sitemap\.xml\./,
      ],
      ['get_verified_site', { id: '' }, /id: id is empty: give an id from list_verified_sites/],
      ['query_search_analytics', { site_url: 'https://www.example.com/', start_row: -1 }, /start_row: start_row is 0 or more/],
      ['query_search_analytics', { site_url: 'https://www.example.com/', row_limit: 0 }, /row_limit: row_limit is at least 1/],
      ['query_search_analytics', { site_url: 'https://www.example.com/', row_limit: 30000 }, /row_limit: row_limit is at most 25000/],
      [
        'query_search_analytics',
        { site_url: 'https://www.example.com/', brand_terms: ['acme(?=x)'], brand: 'branded' },
        /brand_terms\[0\] "acme\(\?=x\)" is not a regular expression Google accepts/,
      ],
      [
        'query_search_analytics',
        { site_url: 'https://www.example.com/', compare: { end_date: '2026-01-01' } },
        /compare: use "previous_period", "previous_year" or \{"start_date"/,
      ],
    ];
    for (const [name, args, sentence] of refusals) {
      const result = await client.call(name, args);
      expect(result.isError).toBe(true);
      expect(result.content.map((c) => c.text).join('\n')).toMatch(sentence);
      expect(result.content.map((c) => c.text).join('\n')).not.toMatch(/Invalid input/);
    }
  });
});
