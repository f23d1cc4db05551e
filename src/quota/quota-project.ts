import type { Credential } from '../config/credentials.js';

/**
 * The Google Cloud project whose Indexing API quota a credential spends.
 * A service account's project is the key's project_id (else the one in its
 * e-mail, name@<project>.iam.gserviceaccount.com). A user's OAuth token spends
 * the quota of the project that owns the OAuth client (this server sends no
 * x-goog-user-project header), and a client id starts with that project's
 * number (123456789012-….apps.googleusercontent.com).
 */
export interface QuotaProject {
  /** Stable key part: "demo-project", or "number:123456789012". */
  readonly id: string;
  /** For sentences: "Google Cloud project demo-project". */
  readonly label: string;
}

/**
 * `connectedClientId`: connected accounts (PRODUCT §8d), where there is no
 * shared credential and every person's token spends the quota of the project
 * owning the server's OAuth client — one project, so Indexing's 200 a day is
 * shared by everyone.
 */
export function quotaProjectOf(credential: Credential, connectedClientId?: string): QuotaProject | undefined {
  if (credential.kind === 'none' && connectedClientId) {
    return oauthClientProject(connectedClientId);
  }
  switch (credential.kind) {
    case 'service_account': {
      const project = credential.key.project_id ?? /@([a-z][a-z0-9-]*)\.iam\.gserviceaccount\.com$/i.exec(credential.key.client_email)?.[1];
      return project
        ? { id: project, label: `Google Cloud project ${project}` }
        : { id: `account:${credential.key.client_email}`, label: `the Google Cloud project of ${credential.key.client_email}` };
    }
    case 'oauth':
      return oauthClientProject(credential.clientId);
    case 'none':
      return undefined;
  }
}

function oauthClientProject(clientId: string): QuotaProject {
  const number = /^(\d+)-/.exec(clientId)?.[1];
  return number
    ? { id: `number:${number}`, label: `Google Cloud project number ${number} (the project of OAuth client ${clientId})` }
    : { id: `client:${clientId}`, label: `the Google Cloud project of OAuth client ${clientId}` };
}
