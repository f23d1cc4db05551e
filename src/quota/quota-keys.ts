import { stateKey } from '../state/keys.js';
import type { QuotaWindow } from './quota-windows.js';
import { type QuotaScope, scopeId } from './quota-types.js';

// Keys (all under quota:v1:):
//   <kind>:<scope>:minute:<epoch minute>   counter, expires 60 s after its minute ends
//   <kind>:<scope>:day:<Pacific date>      counter, expires 1 h after Pacific midnight
//   <kind>:<scope>:refused:<Pacific date>  {at, likely_limit} of Google's latest refusal that day
//   index:<Pacific date>                   stream of the scopes counted that day (for gsc://quota)
//   indexed:<Pacific date>:<kind>:<scope>  claim: the scope is in that day's index
//   <kind>:<scope>:account:<Pacific date>:<e-mail>  connected mode: that day's count made as one Google account
//   <kind>:<scope>:accounts:<Pacific date>          stream of the Google accounts counted for the scope that day

/** Day counters and records outlive Pacific midnight by an hour, minute counters their minute by a minute. */
export const DAY_GRACE_MS = 3_600_000;
export const MINUTE_GRACE_MS = 60_000;

export function quotaKey(scope: QuotaScope, what: string, id: string): string {
  return stateKey('quota', scope.kind, scopeId(scope), what, id);
}

export function accountKey(scope: QuotaScope, day: string, account: string): string {
  return quotaKey(scope, 'account', `${day}:${account}`);
}

export function dayIndexKey(day: string): string {
  return stateKey('quota', 'index', day);
}

export function indexedKey(memo: string): string {
  return stateKey('quota', 'indexed', memo);
}

export function ttl(window: QuotaWindow, now: Date, grace: number): number {
  return Math.max(1, window.endsAt.getTime() - now.getTime()) + grace;
}
