import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SearchConsoleMcpModule } from '../src/search-console-mcp.module.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { isolatedEnv } from './support/env.js';
import { type InProcessServer, startInProcess } from './support/server.js';

// The operations API's OpenAPI document is generated from the controllers at
// build time (scripts/openapi.mjs); here it is held against the routes Nest
// actually mounted, standalone and inside a host app with its own paths.

type Operation = { parameters?: { name: string }[]; summary?: string };
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };

/** Routes Express serves as `METHOD path` (OpenAPI's {param} for Express's :param), from Nest's own router (Express 5 keeps them in app.router.stack). */
function mountedRoutes(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  };
  return express.router.stack.flatMap((layer) =>
    Object.keys(layer.route?.methods ?? {})
      .filter((m) => m === 'get' || m === 'delete')
      .map((m) => `${m} ${layer.route!.path.replace(/:(\w+)/g, '{$1}')}`),
  );
}

/** The document's operations as `method path`. */
function documentedRoutes(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
}

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google?.emulator.close());

describe('standalone', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startInProcess(google.env);
  });
  afterAll(() => server?.close());

  it('documents exactly the operations routes Nest mounted, each with a summary', async () => {
    const doc = (await (await fetch(`${server.origin}/admin/openapi.json`)).json()) as Doc;
    expect(doc.openapi).toMatch(/^3\./);
    const documented = documentedRoutes(doc).sort();
    const mounted = mountedRoutes(server.app)
      .filter((p) => /^\w+ \/(admin|metrics)(\/|$)/.test(p))
      .sort();
    expect(documented).toEqual(mounted);
    // Connected accounts (§8d): listed, and one disconnected, by ops.
    expect(documented).toEqual(expect.arrayContaining(['get /admin/accounts', 'delete /admin/accounts/{principal}/{account}']));
    // Team annotations (§5e): listed and deleted by ops.
    expect(documented).toEqual(expect.arrayContaining(['get /admin/annotations', 'delete /admin/annotations/{id}']));
    for (const item of Object.values(doc.paths)) {
      for (const operation of Object.values(item)) {
        expect(operation.summary).toBeTruthy();
      }
    }
  });

  it('describes the audit query parameters the DTO validates', async () => {
    const doc = (await (await fetch(`${server.origin}/admin/openapi.json`)).json()) as Doc;
    expect(doc.paths['/admin/audit'].get.parameters?.map((p) => p.name).sort()).toEqual([
      'before',
      'limit',
      'outcome',
      'principal',
      'tool',
    ]);
    expect(doc.paths['/admin/tools'].get.parameters?.map((p) => p.name).sort()).toEqual(['groups', 'principal']);
    expect(doc.paths['/admin/quota'].get.parameters?.map((p) => p.name)).toEqual(['property']);
    expect(doc.paths['/admin/accounts/{principal}/{account}'].delete.parameters?.map((p) => p.name)).toEqual(['principal', 'account']);
    expect(doc.paths['/admin/annotations'].get.parameters?.map((p) => p.name).sort()).toEqual(['end_date', 'property', 'start_date']);
    expect(doc.paths['/admin/annotations/{id}'].delete.parameters?.map((p) => p.name)).toEqual(['id']);
  });
});

describe('inside a host app with a global prefix and its own paths', () => {
  let app: INestApplication;
  let origin: string;
  beforeAll(async () => {
    @Module({
      imports: [
        SearchConsoleMcpModule.forRoot({
          settings: { GSC_API_ROOT_URL: google.env.GSC_API_ROOT_URL, GSC_STATE_DIR: isolatedEnv().GSC_STATE_DIR },
          admin: { path: 'ops/search-console' },
          metrics: { path: 'ops/search-console/metrics' },
        }),
      ],
    })
    class HostModule {}
    app = await NestFactory.create(HostModule, { logger: false });
    app.setGlobalPrefix('api');
    await app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(() => app?.close());

  it('moves every documented path to where the routes are mounted', async () => {
    const doc = (await (await fetch(`${origin}/api/ops/search-console/openapi.json`)).json()) as Doc;
    const documented = documentedRoutes(doc).sort();
    const mounted = mountedRoutes(app)
      .filter((p) => p.includes(' /api/ops/'))
      .sort();
    expect(documented).toEqual(mounted);
    expect(documented).toContain('get /api/ops/search-console/metrics');
    expect(documented).toContain('delete /api/ops/search-console/accounts/{principal}/{account}');
    for (const path of Object.keys(doc.paths).filter((p) => doc.paths[p].get)) {
      expect((await fetch(`${origin}${path}`)).status).not.toBe(404);
    }
  });
});
