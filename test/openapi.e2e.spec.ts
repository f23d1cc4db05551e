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

type Doc = { openapi: string; paths: Record<string, Record<string, { parameters?: { name: string }[]; summary?: string }>> };

/** GET routes Express serves, from Nest's own router (Express 5 keeps them in app.router.stack). */
function mountedGets(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  };
  return express.router.stack.filter((layer) => layer.route?.methods.get).map((layer) => layer.route!.path);
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
    const documented = Object.keys(doc.paths).sort();
    const mounted = mountedGets(server.app)
      .filter((p) => /^\/(admin|metrics)(\/|$)/.test(p))
      .sort();
    expect(documented).toEqual(mounted);
    for (const item of Object.values(doc.paths)) {
      expect(item.get?.summary).toBeTruthy();
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
    const documented = Object.keys(doc.paths).sort();
    const mounted = mountedGets(app)
      .filter((p) => p.startsWith('/api/ops/'))
      .sort();
    expect(documented).toEqual(mounted);
    expect(documented).toContain('/api/ops/search-console/metrics');
    for (const path of documented) {
      expect((await fetch(`${origin}${path}`)).status).not.toBe(404);
    }
  });
});
