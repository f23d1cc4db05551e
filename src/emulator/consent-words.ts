// What Google's consent screen says for each scope this emulator knows, in
// Google's words ("OAuth 2.0 Scopes for Google APIs",
// https://developers.google.com/identity/protocols/oauth2/scopes, and the
// OpenID Connect scopes' lines on the consent screen). The emulator's own copy:
// it shares no code with the product it stands in for.

const WORDS: Readonly<Record<string, string>> = {
  openid: 'Associate you with your personal info on Google',
  email: 'See your primary Google Account email address',
  'https://www.googleapis.com/auth/userinfo.email': 'See your primary Google Account email address',
  profile: "See your personal info, including any personal info you've made publicly available",
  'https://www.googleapis.com/auth/userinfo.profile': "See your personal info, including any personal info you've made publicly available",
  'https://www.googleapis.com/auth/webmasters': 'View and manage Search Console data for your verified sites',
  'https://www.googleapis.com/auth/webmasters.readonly': 'View Search Console data for your verified sites',
  'https://www.googleapis.com/auth/indexing': 'Submit data to Google for indexing',
  'https://www.googleapis.com/auth/siteverification': 'Manage the list of sites and domains you control',
  'https://www.googleapis.com/auth/siteverification.verify_only': 'Manage your new site verifications with Google',
};

/** The consent screen's line for a scope; the scope itself for one without words. */
export function consentWords(scope: string): string {
  return Object.hasOwn(WORDS, scope) ? WORDS[scope] : scope;
}
