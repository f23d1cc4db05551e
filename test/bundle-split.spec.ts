import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

// What each transport loads, read off the chunk graph of the built CLI
// (scripts/bundle.mjs writes it from esbuild's metafile): the chunks an entry
// imports statically are read and compiled at start-up, whatever the process
// then does.

type Chunk = { entryPoint?: string; imports: string[]; builtins: string[]; packages: string[] };
const chunks = JSON.parse(readFileSync(join(process.cwd(), 'dist/cli-chunks/chunks.json'), 'utf8')) as Record<string, Chunk>;

function loadedBy(transport: 'stdio-server' | 'http-server'): { packages: Set<string>; builtins: Set<string> } {
  const own = Object.keys(chunks).find((path) => chunks[path].entryPoint === `dist/${transport}.js`);
  if (!own) {
    throw new Error(`no chunk for dist/${transport}.js`);
  }
  const files = new Set<string>();
  const walk = (path: string) => {
    if (files.has(path)) {
      return;
    }
    files.add(path);
    chunks[path].imports.forEach(walk);
  };
  walk('dist/cli.bundle.mjs');
  walk(own);
  const loaded = [...files].map((path) => chunks[path]);
  return {
    packages: new Set(loaded.flatMap((c) => c.packages)),
    builtins: new Set(loaded.flatMap((c) => c.builtins).map((b) => b.replace(/^node:/, ''))),
  };
}

const HTTP_ONLY = [
  'express',
  '@nestjs/platform-express',
  'prom-client',
  'body-parser',
  'multer',
  '@modelcontextprotocol/node',
  '@hono/node-server',
];

describe('the bundled CLI', () => {
  it('loads none of the HTTP-only packages when serving stdio', () => {
    const { packages, builtins } = loadedBy('stdio-server');
    expect(packages).toContain('@nestjs/core');
    expect(packages).toContain('@modelcontextprotocol/server');
    expect(HTTP_ONLY.filter((p) => packages.has(p))).toEqual([]);
    // class-validator is not even bundled: Nest probes for it only when a pipe asks.
    expect(packages).not.toContain('class-validator');
    expect([...builtins].filter((b) => ['http2', 'https', 'zlib'].includes(b))).toEqual([]);
  });

  it('carries Express, the adapter and the metrics for HTTP (so the check above can see them)', () => {
    const { packages } = loadedBy('http-server');
    expect(HTTP_ONLY.filter((p) => !packages.has(p))).toEqual([]);
  });

  it('has the tool schemas converted at build time inlined (src/tools/tool-catalog.ts), not looked up at run time', () => {
    const dir = join(process.cwd(), 'dist/cli-chunks');
    const code = readdirSync(dir)
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => readFileSync(join(dir, f), 'utf8'));
    expect(code.filter((c) => c.includes('GSC_BUILT_TOOL_SCHEMAS'))).toEqual([]);
    expect(code.filter((c) => /\{"plain":\{"add_annotation":\{"input":.*"add_site":\{"input":/.test(c))).toHaveLength(1);
  });
});
