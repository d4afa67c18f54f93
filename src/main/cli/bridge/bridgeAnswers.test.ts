// The answers the bridge writes itself: a tool error for a tool call, an error for anything else; the id of a line
// too long to read, from where clients write it; a refusal in the Core's own words.
import { describe, expect, it } from 'vitest';
import { failureAnswer, idOfCut, refusalAnswer } from './bridgeAnswers.js';

describe('bridge answers', () => {
  it('a tool call fails as a tool error (the model reads it), anything else as an error', () => {
    expect(failureAnswer({ id: 1, method: 'tools/call' }, 'no_core: x')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'no_core: x' }], isError: true },
    });
    expect(failureAnswer({ id: 'i', method: 'initialize' }, 'no_core: x')).toEqual({
      jsonrpc: '2.0',
      id: 'i',
      error: { code: -32000, message: 'no_core: x' },
    });
  });

  it.each([
    ['first', '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"c":"xxx', '', 7],
    ['first, before jsonrpc', '{"id":"s","jsonrpc":"2.0","method":"m","params":{"c":"xx', '', 's'],
    ['last', '{"method":"tools/call","params":{"c":"xxx', 'xxxx"}},"jsonrpc":"2.0","id":9}', 9],
    ['an escaped string id', '{"jsonrpc":"2.0","id":"a\\"b","method":"m"', '', 'a"b'],
    ['an id inside params only', '{"method":"m","params":{"id":3,"c":"xx', 'x"}}}', null],
    ['none', 'xxxxxxxx', 'xxxx', null],
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"m"', '', null],
  ])('the id of a cut line: %s', (_, head, tail, id) => {
    expect(idOfCut(head, tail)).toEqual(id);
  });

  it('a refusal is the Core error with the request id, or its status and first line', () => {
    const asked = { id: 4, method: 'tools/call' };
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: v' } });
    expect(refusalAnswer(asked, 400, body)).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32000, message: 'Bad Request: v' },
    });
    expect(refusalAnswer(asked, 404, 'not found\nmore')).toEqual(
      failureAnswer(asked, 'no_core: the Core refused the request (HTTP 404: not found) — update or restart the Core'),
    );
    expect(refusalAnswer({ id: 5, method: 'ping' }, 502, '')).toEqual(
      failureAnswer(
        { id: 5, method: 'ping' },
        'no_core: the Core refused the request (HTTP 502) — update or restart the Core',
      ),
    );
  });
});
