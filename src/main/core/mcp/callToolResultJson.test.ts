// A result's MCP JSON written field by field is the text the SDK's JSON.stringify gives for toCallToolResult.
import { describe, expect, it } from 'vitest';
import { callToolResultJson, jsonBytes } from './callToolResultJson.js';
import { toCallToolResult } from './mcpServer.js';
import type { ToolResult } from '../../../shared/tools.js';

const output = Array.from({ length: 4000 }, (_, i) => `line ${i} "quoted" \\ back\ttab é€ 😀 \u0001\n`).join('');

describe('callToolResultJson', () => {
  it.each<[string, ToolResult]>([
    ['an empty result', {}],
    ['a terminal result', { execution_target: 'a', generation: 'g1', output: 'hi\n', exit_code: 0, cwd: '/tmp' }],
    ['a big output with escapes and multi-byte chars', { execution_target: 'a', output, truncated: false }],
    ['a lone surrogate', { output: 'a\ud800b' }],
    ['a lone surrogate in a big output', { output: `${output}\udc00${output}`, exit_code: 1 }],
    ['only a big output', { output }],
    [
      'nested objects and arrays',
      {
        targets: [
          { name: 'a', tags: [] },
          { name: 'b', info: { x: { y: [1, 2] } } },
        ],
      },
    ],
    ['empty containers', { a: {}, b: [], c: [[]], d: [{}] }],
    ['undefined and null fields', { a: undefined, b: null, c: 1, d: undefined }],
    ['numbers and booleans', { a: 0, b: -1.5, c: 1e21, d: true, e: false }],
    ['keys that need escaping', { 'a"b': 1, 'c\nd': 'e', '': 2 }],
  ])('%s: the same text as JSON.stringify', (_, result) => {
    const pieces = callToolResultJson(result);
    // A big result is built in pieces, a small one as one.
    expect(pieces.length > 1).toBe(JSON.stringify(result).length > 64 * 1024);
    expect(pieces.join('')).toBe(JSON.stringify(toCallToolResult(result)));
    expect(jsonBytes(pieces).equals(Buffer.from(JSON.stringify(toCallToolResult(result))))).toBe(true);
  });
});
