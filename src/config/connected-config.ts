/**
 * Connected accounts (PRODUCT.md §8d): each principal acts at Google with their
 * own grant instead of one shared credential. Present in Config only when
 * GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_GOOGLE_OAUTH_CLIENT_SECRET are set.
 */
export interface ConnectedConfig {
  /** The Google OAuth client (type "Web application") the connect flow and every refresh use. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** Google's authorization endpoint (GSC_OAUTH_AUTHORIZE_URL for testing). */
  readonly authorizeUrl: string;
  /** Google's token endpoint (GSC_OAUTH_TOKEN_URL for testing). */
  readonly tokenUrl: string;
  /** Google's revocation endpoint (GSC_OAUTH_REVOKE_URL for testing). */
  readonly revokeUrl: string;
  /** `<GSC_API_ROOT_URL, or https://www.googleapis.com>/oauth2/v3/userinfo`: which Google account a grant belongs to. */
  readonly userinfoUrl: string;
  /**
   * GSC_GRANT_ENCRYPTION_KEYS: the first encrypts, every one decrypts (rotation).
   * Undefined: a key generated once into a 0600 file in GSC_STATE_DIR (SQLite on loopback only).
   */
  readonly encryptionKeys?: readonly GrantKey[];
  /** GSC_AUTH_CLIENT_ID + GSC_AUTH_CLIENT_SECRET: the company IdP client the connect page logs a browser in with (resource-server mode). */
  readonly idpClient?: { readonly clientId: string; readonly clientSecret: string };
}

/** One grant-encryption key: its id (stored beside each record) and 32 bytes, base64. */
export interface GrantKey {
  readonly id: string;
  readonly key: string;
}
