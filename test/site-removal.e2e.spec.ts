// delete_site says only what Google documents about removing a property
// (src/sites/sites.tools.ts cites the Help pages): the account stops seeing it,
// and it can be added back. The emulator agrees: a property removed and added
// back by its verified owner is owned again and shows the same performance
// data, so no answer claims a re-added property "starts empty".
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, text, type TestClient } from './support/clients.js';
import { useStack } from './support/stack.js';

const SITE = SEED_PROPERTIES.blog;
const { server } = useStack();

let person: TestClient;
beforeAll(async () => {
  person = await connectHttp(server.url, { revision: '2025-11-25', elicit: () => ({ action: 'accept', content: { confirm: true } }) });
});
afterAll(async () => {
  await person?.close();
});

const report = { site_url: SITE, period: 'last28days', dimensions: ['page'] };

describe('delete_site, then add_site', () => {
  it('removes the property for this account, says it can be added back, and re-adding shows the same data', async () => {
    const before = await person.call('query_search_analytics', report);
    expect(before.isError).toBeFalsy();
    const rows = before.structuredContent!.rows as unknown[];
    expect(rows.length).toBeGreaterThan(0);

    const removed = await person.call('delete_site', { site_url: SITE });
    expect(removed.isError).toBeFalsy();
    const said = text(removed);
    expect(said).toContain(`Removed ${SITE} from this account's Search Console properties.`);
    expect(said).toMatch(/can be added back \(add_site\), without verifying again while the property keeps a verified owner/);
    expect(said).not.toMatch(/16 months|starts empty|history (is )?(lost|deleted|gone)/i);
    expect(person.dialogs[0]).toMatch(/does not say its data is deleted/);

    const sites = (await person.call('list_sites')).structuredContent!.sites as { site_url: string }[];
    expect(sites.map((s) => s.site_url)).not.toContain(SITE);

    const added = await person.call('add_site', { site_url: SITE });
    expect(added.structuredContent).toMatchObject({ site_url: SITE, permission_level: 'siteOwner', added: true });
    const after = await person.call('query_search_analytics', report);
    expect(after.structuredContent!.rows).toEqual(rows);
    expect(after.structuredContent!.totals).toEqual(before.structuredContent!.totals);
  });
});
