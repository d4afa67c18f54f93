// Which POSTs /mcp answers on its own: exactly the requests the SDK's schemas accept as a plain tools/call, tools/list
// or ping; every other message (and every message the schemas refuse) is left to the SDK, which answers it its way.
import { describe, expect, it } from 'vitest';
import { CallToolRequestSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { hotRequest } from './hotRequest.js';

const call = (params: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params,
  ...extra,
});
const args = { command: 'true' };

describe('hotRequest', () => {
  it.each([
    ['a call', call({ name: 'terminal', arguments: args }), { name: 'terminal', args, id: 7 }],
    ['a call without arguments', call({ name: 'list_targets' }), { name: 'list_targets', args: {} }],
    ['a string id', { ...call({ name: 't' }), id: 'x' }, { id: 'x' }],
    ['a progress token', call({ name: 't', _meta: { progressToken: 'p' } }), { progressToken: 'p' }],
    ['a numeric progress token', call({ name: 't', _meta: { progressToken: 3 } }), { progressToken: 3 }],
    ['other _meta keys', call({ name: 't', _meta: { 'x.y/z': 1 } }), { name: 't' }],
    ['other params keys (the SDK drops them)', call({ name: 't', extra: 1 }), { name: 't' }],
    ['tools/list', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { method: 'tools/list' }],
    ['ping', { jsonrpc: '2.0', id: 1, method: 'ping' }, { method: 'ping' }],
  ])('answers %s itself', (_, raw, expected) => {
    expect(hotRequest(raw)).toMatchObject(expected);
    // What it answers, the SDK's schemas accept as the same request.
    expect(JSONRPCRequestSchema.safeParse(raw).success).toBe(true);
  });

  it.each([
    ['a batch', [call({ name: 't' })]],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }],
    ['initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }],
    ['another method', { jsonrpc: '2.0', id: 1, method: 'resources/list' }],
    ['an extra top-level key', call({ name: 't' }, { extra: 1 })],
    ['a wrong jsonrpc version', { ...call({ name: 't' }), jsonrpc: '1.0' }],
    ['no id', { jsonrpc: '2.0', method: 'tools/call', params: { name: 't' } }],
    ['a fractional id', { ...call({ name: 't' }), id: 1.5 }],
    ['a null id', { ...call({ name: 't' }), id: null }],
    ['an id past 2^53', { ...call({ name: 't' }), id: 2 ** 60 }],
    ['no params', { jsonrpc: '2.0', id: 1, method: 'tools/call' }],
    ['a name that is not a string', call({ name: 5 })],
    ['arguments that are an array', call({ name: 't', arguments: [1] })],
    ['arguments that are null', call({ name: 't', arguments: null })],
    ['arguments that name __proto__', call({ name: 't', arguments: JSON.parse('{"__proto__": {"x": 1}}') })],
    ['a task-augmented call', call({ name: 't', task: { ttl: 1 } })],
    ['a call that belongs to a task', call({ name: 't', _meta: { 'io.modelcontextprotocol/related-task': {} } })],
    ['a progress token of another type', call({ name: 't', _meta: { progressToken: true } })],
    ['a _meta that is not an object', call({ name: 't', _meta: 'x' })],
    ['tools/list with a cursor', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'c' } }],
    ['a string', 'tools/call'],
    ['null', null],
  ])('leaves %s to the SDK', (_, raw) => {
    expect(hotRequest(raw)).toBeUndefined();
  });

  it('takes the arguments the SDK takes, key for key', () => {
    const raw = call({ name: 'terminal', arguments: { command: 'x', nested: { a: [1, 'b'] } } });
    const sdk = CallToolRequestSchema.parse(raw);
    expect(hotRequest(raw)).toMatchObject({ name: sdk.params.name, args: sdk.params.arguments });
  });
});
