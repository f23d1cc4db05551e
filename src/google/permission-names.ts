// The permission each Google scope is, in the words of Google's consent screen
// ("OAuth 2.0 Scopes for Google APIs",
// https://developers.google.com/identity/protocols/oauth2/scopes), so a person
// recognises the box they left unticked. Shared by the tools' answers and the
// connect pages.

const PERMISSIONS: Readonly<Record<string, string>> = {
  'https://www.googleapis.com/auth/webmasters': 'View and manage Search Console data for your verified sites',
  'https://www.googleapis.com/auth/webmasters.readonly': 'View Search Console data for your verified sites',
  'https://www.googleapis.com/auth/indexing': 'Submit data to Google for indexing',
  'https://www.googleapis.com/auth/siteverification': 'Manage the list of sites and domains you control',
  'https://www.googleapis.com/auth/siteverification.verify_only': 'Manage your new site verifications with Google',
};

/** Google's words for a scope, or undefined for one this server does not ask for (openid, email, …). */
export function permissionWords(scope: string): string | undefined {
  return Object.hasOwn(PERMISSIONS, scope) ? PERMISSIONS[scope] : undefined;
}

/** `“View and manage Search Console data for your verified sites” (https://www.googleapis.com/auth/webmasters)`. */
export function permissionName(scope: string): string {
  const words = permissionWords(scope);
  return words ? `“${words}” (${scope})` : scope;
}
