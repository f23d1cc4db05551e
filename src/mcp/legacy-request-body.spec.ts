import { describe, expect, it } from '@jest/globals';
import { cancelledRequestId, dropRetryFields, isNotification } from './legacy-request-body.js';

describe('legacy request bodies', () => {
  it('reads the request a cancellation names, and nothing from other messages', () => {
    expect(cancelledRequestId({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })).toBe(7);
    expect(cancelledRequestId({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } })).toBe('a');
    expect(cancelledRequestId({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } })).toBeUndefined();
    expect(cancelledRequestId({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { requestId: 7 } })).toBeUndefined();
    expect(cancelledRequestId(undefined)).toBeUndefined();
  });

  it("drops a tools/call's retry fields and leaves its arguments and other methods alone", () => {
    const call = { method: 'tools/call', params: { name: 'list_sites', arguments: { a: 1 }, requestState: 's', inputResponses: {} } };
    dropRetryFields(call);
    expect(call.params).toEqual({ name: 'list_sites', arguments: { a: 1 } });
    const other = { method: 'tools/list', params: { requestState: 's' } };
    dropRetryFields(other);
    expect(other.params).toEqual({ requestState: 's' });
  });

  it('tells notifications from requests', () => {
    expect(isNotification({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(true);
    expect(isNotification({ jsonrpc: '2.0', id: 0, method: 'ping' })).toBe(false);
    expect(isNotification({ jsonrpc: '2.0', id: 0, result: {} })).toBe(false);
  });
});
