// What the connect pages record in the audit trail (PRODUCT.md §8d: "the
// connect pages' events (started, completed, denied, wrong browser, wrong
// person) go to the audit trail"). The trail lives in mcp/, which this folder
// may not import (LAYERS in eslint.config.js), so the pages report to a sink
// that mcp/ hands them (mcp/connect-page-audit.ts), the way ConnectRequests
// is handed who serves its pages. Without one (a graph without the MCP
// module) the events are only on stderr, as before.

/** The events, in the order a person meets them. Names only; never a code, token, state or cookie. */
export const CONNECT_PAGE_EVENTS = [
  // The person's browser was proven to be the link's principal and sent to Google's consent page.
  'connect_started',
  // Google's answer was exchanged and the grant stored (`google_account` names it).
  'connect_completed',
  // Google answered error=access_denied: the person clicked Cancel on the consent page (Google's one way to say no).
  'connect_denied',
  // The company IdP answered error=access_denied: the person cancelled the sign-in before Google was reached.
  'connect_sign_in_cancelled',
  // An answer (Google's or the IdP's) came back to another browser than the one that opened the link (the cookie does not match its state).
  'connect_wrong_browser',
  // The browser belongs to another principal than the link's (the 403 page); `principal` is the browser's, `target_principal` the link's.
  'connect_wrong_person',
] as const;
export type ConnectPageEvent = (typeof CONNECT_PAGE_EVENTS)[number];

export interface ConnectPageRecord {
  readonly event: ConnectPageEvent;
  /** Who acted: the link's principal; the browser's for a wrong person (null when it is not plain text); null for a wrong browser (unknown). */
  readonly principal: string | null;
  /** Whose link it was, when that is not who acted. */
  readonly target_principal?: string;
  /** The Google account connected (connect_completed). */
  readonly google_account?: string;
  /** The tool whose call made the link, when it was made by one. */
  readonly tool?: string;
}

/** Where the pages' events go; resolves once recorded and never rejects (the audit trail's own promise). */
export type ConnectEventSink = (record: ConnectPageRecord) => Promise<void>;
