// The bridge's stand-in for the MCP SDK's types.js answers as the SDK's own functions do, on the messages a bridge
// meets, and its parse fails with the answer the line gets (-32600 with the line's id).
import { describe, expect, it } from 'vitest';
import * as sdk from '@modelcontextprotocol/sdk/types.js';
import * as ours from './sdkTypes.js';

const messages: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } },
  { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 't', _meta: { progressToken: 'p' } } },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: { a: 1 } } },
  { jsonrpc: '2.0', method: 'notifications/initialized', params: 'x' },
  { method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } },
  { jsonrpc: '2.0', id: 1, result: { content: [] } },
  { jsonrpc: '2.0', id: 1, result: 'x' },
  { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'no' } },
  { jsonrpc: '2.0', id: 1, method: 'm', extra: true },
  null,
  [],
];

describe('sdkTypes, the stand-in for the SDK types the transports use', () => {
  it.each(messages.map((m) => [JSON.stringify(m), m]))('%s', (_, m) => {
    expect(ours.isJSONRPCRequest(m)).toBe(sdk.isJSONRPCRequest(m));
    expect(ours.isJSONRPCResultResponse(m)).toBe(sdk.isJSONRPCResultResponse(m));
    expect(ours.isInitializedNotification(m)).toBe(sdk.isInitializedNotification(m));
    const valid = sdk.JSONRPCMessageSchema.safeParse(m).success;
    if (valid) expect(ours.JSONRPCMessageSchema.parse(m)).toBe(m);
    else expect(() => ours.JSONRPCMessageSchema.parse(m)).toThrow(ours.InvalidMessage);
  });

  it('fails with the answer of the line: its id, -32600, what is wrong', () => {
    try {
      ours.JSONRPCMessageSchema.parse({ jsonrpc: '2.0', id: 8, method: 3 });
      expect.unreachable();
    } catch (err) {
      expect((err as ours.InvalidMessage).answer).toEqual({
        id: 8,
        code: -32600,
        message: 'Invalid Request: method must be a string',
      });
    }
  });
});
