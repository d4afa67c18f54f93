// Which command line the launcher runs as the MCP bridge itself (the rest goes to the program, which answers help and
// mistakes), and which command a line names.
import { describe, expect, it } from 'vitest';
import { mcpBridgeArgs, namedCommand } from './commandNames.js';

const argv = (...args: string[]): string[] => ['node', 'switchboard.js', ...args];

describe('mcpBridgeArgs', () => {
  it.each([
    [['mcp'], {}],
    [['mcp', '--profile', '/p'], { profile: '/p' }],
    [['mcp', '--profile=/p'], { profile: '/p' }],
    [['mcp', '--profile=~/x y'], { profile: '~/x y' }],
    [['mcp', '--profile', '/a', '--profile', '/b'], { profile: '/b' }],
    [['mcp', '--profile'], undefined],
    [['mcp', '--help'], undefined],
    [['mcp', 'extra'], undefined],
    [['call', 'mcp'], undefined],
    [[], undefined],
  ])('%j', (args, expected) => {
    expect(mcpBridgeArgs(argv(...args))).toEqual(expected);
  });
});

describe('namedCommand', () => {
  it('is the first word that is not an option', () => {
    expect(namedCommand(argv('--version'))).toBeUndefined();
    expect(namedCommand(argv('mcp', '--profile', 'x'))).toBe('mcp');
    expect(namedCommand(argv('nope'))).toBeUndefined();
  });
});
