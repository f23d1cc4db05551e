// Connected accounts inside a company's Nest app (PRODUCT.md §8a, §8d): the
// host names each caller (its principal(req)); two people, each with their own
// Google account. Ann connects through the URL elicitation mid-call and acts
// as alice@example.com; Ben connected bob@example.net but unticked the full
// Search Console permission, so the write tools are gone for him only. The
// audit trail names the Google account of every call, guarded ones included.

import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { GrantStore } from '../src/accounts/grant-store.js';
import { SCOPES } from '../src/emulator/emulator-routing.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { AuditTrail } from '../src/call/approval/audit-trail.service.js';
import { QuotaOverviewService } from '../src/quota/quota-overview.service.js';
import { SearchConsoleMcpModule } from '../src/search-console-mcp.module.js';
import { text } from './support/clients.js';
import { type ConnectedGoogle, type LinkClient, linkClientHttp, saveGrant, startConnectedGoogle } from './support/connected-kit.js';
import { isolatedEnv } from './support/env.js';

const ANN = 'ann@corp.example';
const BEN = 'ben@corp.example';
const WAITING = /Waiting for the Google account to be connected/;

let google: ConnectedGoogle;
let app: NestExpressApplication;
let url: string;
let grants: GrantStore;
let trail: AuditTrail;

beforeAll(async () => {
  google = await startConnectedGoogle();
  const env = isolatedEnv(google.env);
  const settings = Object.fromEntries(Object.keys(google.env).map((name) => [name, env[name]]));
  const moduleRef = await Test.createTestingModule({
    imports: [
      SearchConsoleMcpModule.forRoot({
        settings: { ...settings, GSC_STATE_DIR: env.GSC_STATE_DIR },
        principal: (req: IncomingMessage) => (typeof req.headers['x-user'] === 'string' ? req.headers['x-user'] : undefined),
      }),
    ],
  }).compile();
  app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  await app.listen(0, '127.0.0.1');
  url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
  grants = app.get(GrantStore, { strict: false });
  trail = app.get(AuditTrail, { strict: false });
});
afterAll(async () => {
  await app?.close();
  await google?.close();
});

const names = async (client: LinkClient) => (await client.listTools()).map((t) => t.name).sort();
const sitesOf = (result: Awaited<ReturnType<LinkClient['call']>>) =>
  (result.structuredContent!.sites as { site_url: string }[]).map((s) => s.site_url);

describe('two people in a host app, each with their own Google account', () => {
  it('Ann is asked to connect mid-call and acts as alice; Ben’s read-only grant hides the write tools for him only', async () => {
    const alice = await google.mint('alice@example.com');
    const ann: LinkClient = await linkClientHttp(url, {
      revision: '2026-07-28',
      headers: { 'x-user': ANN },
      approve: true,
      answer: async () => {
        void (async () => {
          while (!ann.progress.some((m) => WAITING.test(m))) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          await saveGrant(grants, ANN, alice);
        })();
        return { action: 'accept' };
      },
    });
    const bob = await google.mint('bob@example.net', [SCOPES.webmastersReadonly, SCOPES.webmasters], [SCOPES.webmasters]);
    await saveGrant(grants, BEN, bob);
    const ben = await linkClientHttp(url, { revision: '2025-11-25', headers: { 'x-user': BEN }, approve: true });
    try {
      const annTools = await names(ann);
      expect(annTools).toHaveLength(26); // no grant yet: the usual 24 (21 Google, 3 annotation tools), and connected mode's list_google_accounts, disconnect_google_account
      const annSites = await ann.call('list_sites');
      expect(annSites.isError).toBeFalsy();
      expect(ann.asked.filter((a) => a.mode === 'url')).toHaveLength(1);
      expect(ann.asked[0].url).toMatch(
        new RegExp(`^${url.replace(/\/mcp$/, '').replace(/[.]/g, '\\.')}/connect/google\\?request=[\\w-]{16,}$`),
      );
      expect(sitesOf(annSites)).toEqual(expect.arrayContaining([SEED_PROPERTIES.owned, SEED_PROPERTIES.domain]));
      expect(sitesOf(annSites)).not.toContain(SEED_PROPERTIES.blog);

      const benTools = await names(ben);
      expect(benTools).not.toEqual(expect.arrayContaining(['submit_sitemap']));
      expect(benTools).not.toContain('delete_site');
      expect(benTools).toContain('list_sites');
      expect(await names(ann)).toEqual(annTools); // Ann's full grant keeps all 23
      const benSites = await ben.call('list_sites');
      expect(benSites.isError).toBeFalsy();
      expect(sitesOf(benSites)).toContain(SEED_PROPERTIES.blog);
      expect(sitesOf(benSites)).not.toContain(SEED_PROPERTIES.domain);
      const refused = await ben.call('submit_sitemap', {
        site_url: SEED_PROPERTIES.blog,
        sitemap_url: `${SEED_PROPERTIES.blog}sitemap.xml`,
      });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^submit_sitemap needs the Google permission .*webmasters\), which bob@example\.net did not grant/);
      expect(ben.asked).toHaveLength(0);

      // A guarded call as Ann: approved in the dialog, made as alice, and the trail says so.
      const deleted = await ann.call('delete_sitemap', {
        site_url: SEED_PROPERTIES.owned,
        sitemap_url: 'https://www.example.com/feed.xml',
      });
      expect(deleted.structuredContent).toMatchObject({ executed: true, outcome: 'executed' });
      // The quota ledger counts the inspection for the property, and says which Google account made it.
      const inspected = await ann.call('inspect_url', { site_url: SEED_PROPERTIES.owned, url: 'https://www.example.com/' });
      expect(inspected.isError).toBeFalsy();
      const quota = await app.get(QuotaOverviewService, { strict: false }).overview();
      expect(quota.inspection.find((q) => q.property === SEED_PROPERTIES.owned)).toMatchObject({
        day: { used: 1 },
        google_accounts: [{ account: 'alice@example.com', used: 1 }],
      });
      const { entries } = await trail.query({ limit: 50 });
      const calls = entries.filter((e) => e.event === 'google_call');
      expect(calls.filter((e) => e.principal === ANN).map((e) => e.google_account)).toEqual(expect.arrayContaining(['alice@example.com']));
      expect(new Set(calls.filter((e) => e.principal === ANN).map((e) => e.google_account))).toEqual(new Set(['alice@example.com']));
      expect(new Set(calls.filter((e) => e.principal === BEN).map((e) => e.google_account))).toEqual(new Set(['bob@example.net']));
      const guarded = entries.filter((e) => e.tool === 'delete_sitemap' && ['asked', 'approved', 'executed'].includes(e.event));
      expect(guarded.map((e) => e.event).sort()).toEqual(['approved', 'asked', 'executed']);
      for (const entry of guarded) {
        expect(entry).toMatchObject({ principal: ANN, google_account: 'alice@example.com' });
      }
      expect(entries.find((e) => e.event === 'connect_asked' && e.principal === ANN)).toMatchObject({ path: 'dialog', reason: 'none' });
      expect(entries.find((e) => e.event === 'permission_missing' && e.principal === BEN)).toMatchObject({
        google_account: 'bob@example.net',
      });
    } finally {
      await ann.close();
      await ben.close();
    }
  });
});
