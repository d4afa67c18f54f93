// jsonRpcMessage.ts takes exactly the messages the MCP SDK's JSONRPCMessageSchema takes (the bridge gives the SDK's
// transports this check in place of the schema), and words a refusal with the message's own id.
import { describe, expect, it } from 'vitest';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { invalidRequest, messageProblem } from './jsonRpcMessage.js';

const cases: Array<[string, unknown]> = [
  ['a request', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
  ['a request with a string id and params', { jsonrpc: '2.0', id: 'a', method: 'm', params: { x: [1] } }],
  ['a progress token', { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { progressToken: 'p' } } }],
  ['an integer progress token', { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { progressToken: 3 } } }],
  ['a fractional progress token', { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { progressToken: 1.5 } } }],
  ['a _meta that is not an object', { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: 'x' } }],
  ['a _meta that is an array', { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: [] } }],
  ['other _meta keys', { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { 'a.b/c': 1 } } }],
  [
    'a related task',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'm',
      params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } },
    },
  ],
  [
    'a related task without its id',
    { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { 'io.modelcontextprotocol/related-task': {} } } },
  ],
  ['params that are an array', { jsonrpc: '2.0', id: 1, method: 'm', params: [1] }],
  ['params that are null', { jsonrpc: '2.0', id: 1, method: 'm', params: null }],
  ['a method that is a number', { jsonrpc: '2.0', id: 1, method: 3 }],
  ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'm' }],
  ['an id past 2^53', { jsonrpc: '2.0', id: 2 ** 60, method: 'm' }],
  ['a null id', { jsonrpc: '2.0', id: null, method: 'm' }],
  ['an id that is an object', { jsonrpc: '2.0', id: {}, method: 'm' }],
  ['an extra key', { jsonrpc: '2.0', id: 1, method: 'm', extra: 1 }],
  ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'm' }],
  ['no jsonrpc', { id: 1, method: 'm' }],
  ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['a notification with params', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }],
  ['a result', { jsonrpc: '2.0', id: 1, result: {} }],
  ['a result with _meta', { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 'x' }, a: 1 } }],
  ['a result that is not an object', { jsonrpc: '2.0', id: 1, result: 5 }],
  ['a result without an id', { jsonrpc: '2.0', result: {} }],
  ['an error', { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } }],
  ['an error without an id', { jsonrpc: '2.0', error: { code: -32000, message: 'x', data: [1] } }],
  ['an error with extra keys', { jsonrpc: '2.0', id: 'e', error: { code: 1, message: 'x', more: 1 } }],
  ['an error with a fractional code', { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } }],
  ['an error without a message', { jsonrpc: '2.0', id: 1, error: { code: 1 } }],
  ['an error whose id is null', { jsonrpc: '2.0', id: null, error: { code: 1, message: 'x' } }],
  ['both result and error', { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }],
  ['a method and a result', { jsonrpc: '2.0', id: 1, method: 'm', result: {} }],
  ['an empty object', {}],
  ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'm' }]],
  ['an empty batch', []],
  ['a string', 'tools/call'],
  ['a number', 5],
  ['null', null],
];

describe('messageProblem', () => {
  it.each(cases)('%s: as the SDK judges it', (_, value) => {
    const sdk = JSONRPCMessageSchema.safeParse(value).success;
    expect(messageProblem(value) === undefined).toBe(sdk);
  });

  it('names what is wrong', () => {
    expect(messageProblem({ jsonrpc: '2.0', id: 1, method: 3 })).toBe('method must be a string');
    expect(messageProblem({ jsonrpc: '2.0', id: 1, method: 'm', x: 1 })).toBe('a request has no key "x"');
    expect(messageProblem({ jsonrpc: '2.0', id: 1.5, method: 'm' })).toBe('id must be a string or an integer');
    expect(messageProblem({ hello: 1 })).toBe('a result has no key "hello"');
  });
});

describe('invalidRequest', () => {
  it.each([
    [{ jsonrpc: '2.0', id: 8, method: 3 }, 8],
    [{ jsonrpc: '2.0', id: 'x', method: 'm', extra: 1 }, 'x'],
    [{ jsonrpc: '2.0', id: 1.5, method: 'm' }, null],
    [{ jsonrpc: '2.0', method: 7 }, null],
    [[{ id: 1 }], null],
    ['text', null],
  ])('%j is answered with id %j', (value, id) => {
    expect(invalidRequest(value, 'p')).toEqual({ id, code: -32600, message: 'Invalid Request: p' });
  });
});
