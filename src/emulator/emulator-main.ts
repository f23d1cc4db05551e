// `npm run emulator`: a standalone Google emulator for manual runs of the
// server. A dev tool, so it reports on stdout what to paste into `npm start`.

import { GoogleEmulator, generateServiceAccountKey } from './google-emulator.js';
import { SCOPES } from './emulator-routing.js';
import { SEED_OWNER_EMAIL } from './emulator-seed.js';

const ALL_SCOPES = Object.values(SCOPES);

async function main(): Promise<void> {
  const port = Number(process.env.EMULATOR_PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`EMULATOR_PORT must be a port number (0-65535), got "${process.env.EMULATOR_PORT}"`);
    process.exit(1);
  }
  const emulator = await GoogleEmulator.start({ host: '127.0.0.1', port });

  const { key, publicKeyPem } = generateServiceAccountKey('gsc-demo@emulator-project.iam.gserviceaccount.com');
  emulator.registerServiceAccount({
    clientEmail: key.client_email,
    publicKeyPem,
    delegation: { [SEED_OWNER_EMAIL]: ALL_SCOPES },
  });
  const refresh = {
    clientId: '123456789012-emulatoremulatoremulatoremulator.apps.googleusercontent.com',
    clientSecret: 'emulator-secret',
    refreshToken: '1//emulator-refresh-token',
    user: SEED_OWNER_EMAIL,
    scopes: ALL_SCOPES,
  };
  emulator.registerRefreshToken(refresh);
  const keyBase64 = Buffer.from(JSON.stringify(key)).toString('base64');

  const lines = [
    `Google emulator listening on ${emulator.url}`,
    `  token endpoint:   ${emulator.tokenUrl}`,
    `  control:          ${emulator.url}/__emulator/requests (also /token-grants, /state, /reset, /faults, /latency, /place-token,
                    /services, /indexing, /project-number, /analytics/anonymized-share, /analytics/rows-available; see src/emulator/README.md)`,
    '',
    `Service account:    ${key.client_email} (may impersonate ${SEED_OWNER_EMAIL})`,
    `GSC_SERVICE_ACCOUNT_KEY=${keyBase64}`,
    '',
    'Run the server against it with the service account:',
    `  GSC_API_ROOT_URL=${emulator.url}/ GSC_OAUTH_TOKEN_URL=${emulator.tokenUrl} GSC_SERVICE_ACCOUNT_KEY=${keyBase64} npm start`,
    '',
    'or with the OAuth user credential:',
    `  GSC_API_ROOT_URL=${emulator.url}/ GSC_OAUTH_TOKEN_URL=${emulator.tokenUrl} GSC_CLIENT_ID=${refresh.clientId} GSC_CLIENT_SECRET=${refresh.clientSecret} GSC_REFRESH_TOKEN=${refresh.refreshToken} npm start`,
    '',
    'Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const stop = () => {
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`emulator: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
