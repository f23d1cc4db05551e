import { ConfigError } from './config-error.js';
import { isLoopback } from './urls.js';

const VARIABLE = 'GSC_CONFORMANCE_FIXTURES';

/**
 * GSC_CONFORMANCE_FIXTURES=true adds the official conformance suite's fixture
 * tools, resources and prompts (src/conformance/). They answer with canned
 * content, so they may only ever sit beside the Google emulator: the Google
 * API and token endpoints must both be on a loopback address (npm run demo
 * sets both). Anything else — a real credential talking to Google — stops
 * start-up naming the variable, so no production server can list a tool
 * called test_simple_text.
 */
export function conformanceFixtures(
  value: 'true' | 'false' | undefined,
  google: { readonly apiRootUrl?: string; readonly oauthTokenUrl?: string },
): boolean {
  if (value !== 'true') {
    return false;
  }
  const notLocal = [
    ['GSC_API_ROOT_URL', google.apiRootUrl],
    ['GSC_OAUTH_TOKEN_URL', google.oauthTokenUrl],
  ].filter(([, url]) => url === undefined || !isLoopback(new URL(url).hostname));
  if (notLocal.length > 0) {
    const names = notLocal.map(([name]) => name).join(' and ');
    throw new ConfigError(
      `${VARIABLE}=true is honoured only against the Google emulator, but ${names} ${notLocal.length > 1 ? 'are' : 'is'} not on a loopback address (unset means Google); run npm run demo, point GSC_API_ROOT_URL and GSC_OAUTH_TOKEN_URL at the emulator on 127.0.0.1, or unset ${VARIABLE}`,
    );
  }
  return true;
}

/** The embedded Nest module cannot load the fixtures (its configuration arrives after its modules are fixed). */
export function refuseFixturesInModule(fixtures: boolean): void {
  if (fixtures) {
    throw new ConfigError(
      `${VARIABLE} is honoured by the standalone server only (npm run demo, google-search-console-mcp --http), not inside a Nest app; remove it from the module's settings`,
    );
  }
}
