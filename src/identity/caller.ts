import type { AuthInfo } from '@modelcontextprotocol/server';
import { canonicalPrincipal } from '../common/principal-name.js';

/**
 * Who is calling: the principal the transport authenticated (the host app's
 * user, an OAuth subject, `token` for the shared bearer token, `local` for a
 * loopback or stdio client) and their groups. Approvals, confirm tokens,
 * sessions, exports and the audit trail are bound to it.
 */
export interface Caller {
  readonly principal: string;
  readonly groups: readonly string[];
}

/** The principal of a caller nothing authenticated: stdio, or HTTP on loopback without a token. */
export const LOCAL_PRINCIPAL = 'local';

/** Carries a caller through the SDK, which knows only AuthInfo: clientId is the principal, extra.groups the groups. */
export function authInfoFor(caller: Caller, expiresAt: number, token = 'redacted', scopes: string[] = []): AuthInfo {
  return { token, clientId: caller.principal, scopes, expiresAt, extra: { groups: [...caller.groups] } };
}

/**
 * The caller the SDK hands over, its principal in the one canonical spelling
 * (common/principal-name.ts) that sessions, approvals, exports and policy all
 * compare. HTTP refuses a principal that is not plain, or that Unicode
 * normalisation would change, before it gets here; one that still is (a host
 * app building servers itself) is kept exactly as written, so it is never
 * folded onto the principal it resembles.
 */
export function callerOf(authInfo: AuthInfo | undefined): Caller {
  const groups = authInfo?.extra?.groups;
  const principal = authInfo?.clientId || LOCAL_PRINCIPAL;
  return {
    principal: canonicalPrincipal(principal) ?? principal,
    groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [],
  };
}
