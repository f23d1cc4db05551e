import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The built entry point, as `npx google-search-console-mcp` runs it. */
export const MAIN = resolve(import.meta.dirname, '../../dist/main.js');

/** An environment with nothing ambient: no ADC file, no inherited GSC_* settings. */
export function isolatedEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(GSC_|GOOGLE_|ELICITATION$|CLOUDSDK_)/.test(name)) {
      continue;
    }
    env[name] = value;
  }
  env.CLOUDSDK_CONFIG = mkdtempSync(join(tmpdir(), 'gsc-no-gcloud-'));
  env.METADATA_SERVER_DETECTION = 'none';
  // Each server gets a state folder of its own unless a test shares one on purpose; never the real home's.
  env.GSC_STATE_DIR = mkdtempSync(join(tmpdir(), 'gsc-state-'));
  for (const [name, value] of Object.entries(extra)) {
    if (value !== undefined) {
      env[name] = value;
    }
  }
  return env;
}
