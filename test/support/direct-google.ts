import { searchconsole, type searchconsole_v1 } from '@googleapis/searchconsole';
import { emulatorJwtClient } from '../../src/emulator/emulator-clients.js';
import type { TestGoogle } from './google.js';

/**
 * The real Search Console client library aimed at the test's emulator with the
 * test's own service-account key: what "the rows Google returned" are, asked
 * without the server in between.
 */
export function directSearchConsole(google: TestGoogle): searchconsole_v1.Searchconsole {
  const key = JSON.parse(google.env.GSC_SERVICE_ACCOUNT_KEY);
  const auth = emulatorJwtClient(google.emulator.url, key, ['https://www.googleapis.com/auth/webmasters.readonly']);
  return searchconsole({ version: 'v1', auth, rootUrl: `${google.emulator.url}/` });
}

export interface DirectRow {
  keys: string[];
  clicks: number;
  impressions: number;
  ctr: number;
  position: number;
}

/** One searchanalytics.query answer's rows, as the client library hands them over. */
export async function directRows(
  sc: searchconsole_v1.Searchconsole,
  siteUrl: string,
  requestBody: Record<string, unknown>,
): Promise<DirectRow[]> {
  const { data } = await sc.searchanalytics.query({ siteUrl, requestBody });
  return (data.rows ?? []).map((r) => ({
    keys: r.keys ?? [],
    clicks: r.clicks!,
    impressions: r.impressions!,
    ctr: r.ctr!,
    position: r.position!,
  }));
}
