/**
 * Every name this server gives a record or stream in the state store, in one
 * table (PRODUCT.md §8c). A key is `<family>:v<version>:<parts joined by ":">`,
 * or the family's whole name for the few single records and streams. No
 * prefix here is a prefix of another (keys.spec.ts checks it), so two families
 * can never write the same key, and no file of src/ spells a prefix itself
 * (the same spec greps for it): a family's format changes by bumping its
 * version here, never by a second spelling somewhere else.
 *
 * `upgrade` says what happens to a family's records written by a build from
 * before the table (the `legacy` spelling): `copied` ones (grants, notes, the
 * audit trail: what a person made and would miss) are copied once to the new
 * names when a process starts (key-migration.ts); `read-once` ones are read
 * under the old name when the new one is missing (a remembered account, the
 * approval secret); `claimed-twice` single-use marks are claimed under both
 * names, so an approval used before the upgrade, or by a replica not yet
 * upgraded, is never redeemed again; `dropped` ones are short-lived (seconds
 * to a day) and left to expire, so an upgrade ends pending connects, account
 * and approval dialogs, exports and stream resumption; `unchanged` families
 * were versioned already. README, "Upgrading the state store".
 */
export const STATE_KEYS = {
  // Connected accounts (src/accounts/): grants at rest and their indexes.
  grant: { prefix: 'grant:v1:', holds: 'one sealed grant of (principal, Google account)', upgrade: 'copied', legacy: 'grant:' },
  grantIndex: { prefix: 'grant-index:v1:', holds: "a principal's stream of Google account ids", upgrade: 'copied', legacy: 'grant-index:' },
  grantPrincipals: {
    prefix: 'grant-principals:v1',
    holds: 'the stream of principals with grants (+p / -p)',
    upgrade: 'copied',
    legacy: 'grant-principals',
  },
  grantUsed: { prefix: 'grant-used:v1:', holds: "a grant's last use (ISO time)", upgrade: 'copied', legacy: 'grant-used:' },
  grantToken: {
    prefix: 'grant-token:v1:',
    holds: "a grant's shared, sealed access token (≤ 1 h)",
    upgrade: 'dropped',
    legacy: 'grant-token:',
  },
  grantRefresh: {
    prefix: 'grant-refresh:v1:',
    holds: 'the cross-process lock of one refresh (seconds)',
    upgrade: 'dropped',
    legacy: 'grant-refresh:',
  },
  grantSites: { prefix: 'grant-sites:v1:', holds: "an account's property list (10 min)", upgrade: 'dropped', legacy: 'grant-sites:' },
  // The connect flow: pending links, OAuth state, single use of each.
  connectRequest: { prefix: 'connect-request:v1:', holds: 'one connect link (10 min)', upgrade: 'dropped', legacy: 'connect-request:' },
  connectRequestUsed: {
    prefix: 'connect-request-used:v1:',
    holds: 'single use of a connect link',
    upgrade: 'dropped',
    legacy: 'connect-request-used:',
  },
  connectLinks: {
    prefix: 'connect-links:v1:',
    holds: "a principal's stream of live connect links",
    upgrade: 'dropped',
    legacy: 'connect-links:',
  },
  connectWaiting: {
    prefix: 'connect-waiting:v1:',
    holds: 'the one call waiting on a connect, per place',
    upgrade: 'dropped',
    legacy: 'connect-waiting:',
  },
  connectState: {
    prefix: 'connect-state:v1:',
    holds: 'the OAuth state of one consent (10 min)',
    upgrade: 'dropped',
    legacy: 'connect-state:',
  },
  connectStateUsed: {
    prefix: 'connect-state-used:v1:',
    holds: 'single use of an OAuth state',
    upgrade: 'dropped',
    legacy: 'connect-state-used:',
  },
  // Asking a person during a call (src/mcp/): rounds, the remembered account.
  callRound: {
    prefix: 'call-round:v1:',
    holds: "an input-required round's record and its single use (10 min)",
    upgrade: 'dropped',
    legacy: 'call-round:',
  },
  accountChoice: {
    prefix: 'account-used:v1:',
    holds: 'the account a principal acted as on a property or host (180 days)',
    upgrade: 'read-once',
    legacy: 'account-used:',
  },
  // Approvals and the audit trail.
  approvalUsed: {
    prefix: 'approval-used:v1:',
    holds: 'single use of an approval nonce (≤ 11 min)',
    upgrade: 'claimed-twice',
    legacy: 'approval:used:',
  },
  approvalSecret: {
    prefix: 'secret:v1:approval',
    holds: 'the generated approval secret (Redis only; SQLite keeps a file)',
    upgrade: 'read-once',
    legacy: 'secret:approval',
  },
  audit: { prefix: 'audit:v1', holds: 'the audit trail stream (10 000 newest)', upgrade: 'copied', legacy: 'audit' },
  // Domains.
  quota: { prefix: 'quota:v1:', holds: 'the quota ledger: counters, refusals, day indexes', upgrade: 'unchanged' },
  indexing: { prefix: 'indexing:v1:sent:', holds: 'notifications sent for a URL (180 days)', upgrade: 'unchanged' },
  exportRecord: { prefix: 'export:v1:', holds: 'one analytics export (24 h)', upgrade: 'dropped', legacy: 'analytics:export:' },
  exportRows: { prefix: 'export-rows:v1:', holds: "an export's row stream (24 h)", upgrade: 'dropped', legacy: 'analytics:export:' },
  exportIndex: {
    prefix: 'exports:v1:',
    holds: "a principal's stream of export ids (24 h)",
    upgrade: 'dropped',
    legacy: 'analytics:exports:',
  },
  annotations: { prefix: 'annotations:v1:', holds: "a property's stream of notes", upgrade: 'copied', legacy: 'annotations:' },
  annotationProperties: {
    prefix: 'annotation-properties:v1',
    holds: 'the stream of properties with notes',
    upgrade: 'copied',
    legacy: 'annotation-properties',
  },
  // Transport: 2025-11-25 stream resumption.
  sessionEvents: { prefix: 'mcp-events:v1:', holds: "a session stream's events (10 min)", upgrade: 'dropped', legacy: 'mcp:events:' },
  session: {
    prefix: 'mcp-session:v1:',
    holds: 'an idle 2025-11-25 session: principal and initialize parameters (30 min after last use)',
    upgrade: 'dropped',
    legacy: 'mcp:session:',
  },
  // The table's own bookkeeping.
  migration: { prefix: 'migration:v1:', holds: 'which key migrations ran, and their lock', upgrade: 'unchanged' },
} as const satisfies Record<string, StateKeyFamily>;

export interface StateKeyFamily {
  /** Ends in ":" for families of many keys; the whole name of a single record or stream. */
  readonly prefix: string;
  readonly holds: string;
  readonly upgrade: 'copied' | 'read-once' | 'claimed-twice' | 'dropped' | 'unchanged';
  /** The spelling before the table, for the migration and the README's note. */
  readonly legacy?: string;
}

export type StateKeyName = keyof typeof STATE_KEYS;

/** Families of many keys, which take parts. */
type Many = { [K in StateKeyName]: (typeof STATE_KEYS)[K]['prefix'] extends `${string}:` ? K : never }[StateKeyName];
/** Single records and streams, whose prefix is the whole name. */
type One = Exclude<StateKeyName, Many>;

/**
 * The key of one record of a family: its prefix and the parts joined by ":".
 * Parts that may hold ":" or anything a person typed are the caller's to
 * encode (encodeURIComponent), so a key reads back into the parts it was made of.
 */
export function stateKey(family: Many, ...parts: readonly [string, ...string[]]): string {
  return STATE_KEYS[family].prefix + parts.join(':');
}

/** The name of a single record or stream (the approval secret, the audit trail, an index of principals). */
export function stateName(family: One): string {
  return STATE_KEYS[family].prefix;
}

/**
 * The name a record had before the table (the families whose upgrade is not
 * `dropped`): for the one-time copy and the read-once fallbacks, nothing else.
 */
export function legacyStateKey(family: StateKeyName, ...parts: readonly string[]): string {
  const spelling = (STATE_KEYS[family] as StateKeyFamily).legacy;
  if (spelling === undefined) {
    throw new Error(`state key family ${family} has no name from before the table`);
  }
  return spelling + parts.join(':');
}
