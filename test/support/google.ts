import { type EmulatorOptions, generateServiceAccountKey, GoogleEmulator } from '../../src/emulator/google-emulator.js';

export interface TestGoogle {
  readonly emulator: GoogleEmulator;
  readonly clientEmail: string;
  /** Environment pointing the server at the emulator with a registered service-account key. */
  readonly env: Record<string, string>;
}

/** Starts the emulator with a freshly generated service-account key (no key is ever committed). */
export async function startGoogle(
  options: EmulatorOptions = {},
  clientEmail = 'gsc-test@demo-project.iam.gserviceaccount.com',
): Promise<TestGoogle> {
  const emulator = await GoogleEmulator.start(options);
  const { key, publicKeyPem } = generateServiceAccountKey(clientEmail);
  emulator.registerServiceAccount({
    clientEmail,
    publicKeyPem,
    delegation: { 'delegate@example.com': ['https://www.googleapis.com/auth/webmasters.readonly'] },
  });
  return { emulator, clientEmail, env: { ...baseEnv(emulator), GSC_SERVICE_ACCOUNT_KEY: JSON.stringify(key) } };
}

function baseEnv(emulator: GoogleEmulator): Record<string, string> {
  return { GSC_API_ROOT_URL: emulator.url, GSC_OAUTH_TOKEN_URL: emulator.tokenUrl };
}
