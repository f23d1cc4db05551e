import { createHash } from 'node:crypto';
import type { ToolCall } from './tool-call.js';

/**
 * One tool call across its rounds (PRODUCT.md §6, §8d): its principal, tool and
 * arguments, key order aside. A 2026-07-28 client retries a call with the same
 * arguments and its answers, possibly on another replica; the 2025-11-25 shim
 * re-enters the handler with them. What a round leaves for the next one (the
 * account a person chose, the connect link a call was given) is kept in the
 * state store under this fingerprint. `confirm_token` is left out: it changes
 * between rounds of the same call.
 */
export function callFingerprint(call: Pick<ToolCall, 'principal' | 'tool'>, args: Record<string, unknown>): string {
  const { confirm_token: _token, ...rest } = args;
  const canonical = JSON.stringify(sortedKeys(rest));
  return createHash('sha256').update(`${call.principal}\n${call.tool.spec.name}\n${canonical}`).digest('base64url');
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(sortedKeys);
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, sortedKeys(record[k])]),
    );
  }
  return value;
}
