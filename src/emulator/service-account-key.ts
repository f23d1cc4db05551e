// A service-account key file in Google's exact JSON layout, with a fresh RSA
// key pair, so the product's credential loading runs unmodified against the emulator.

import { generateKeyPairSync, randomBytes } from 'node:crypto';

export interface ServiceAccountKeyFile {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
  auth_provider_x509_cert_url: string;
  client_x509_cert_url: string;
  universe_domain: string;
}

export const DEFAULT_SERVICE_ACCOUNT_EMAIL = 'gsc-emulator@emulator-project.iam.gserviceaccount.com';

export function generateServiceAccountKey(clientEmail: string = DEFAULT_SERVICE_ACCOUNT_EMAIL): {
  key: ServiceAccountKeyFile;
  publicKeyPem: string;
} {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const project = /@([^.]+)\.iam\.gserviceaccount\.com$/.exec(clientEmail)?.[1] ?? 'emulator-project';
  const clientId = `1${BigInt(`0x${randomBytes(9).toString('hex')}`)
    .toString()
    .padStart(20, '0')
    .slice(0, 20)}`;
  return {
    key: {
      type: 'service_account',
      project_id: project,
      private_key_id: randomBytes(20).toString('hex'),
      private_key: privateKey,
      client_email: clientEmail,
      client_id: clientId,
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      // What Google writes; google-auth-library ignores it and always uses this URL.
      token_uri: 'https://oauth2.googleapis.com/token',
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
      universe_domain: 'googleapis.com',
    },
    publicKeyPem: publicKey,
  };
}
