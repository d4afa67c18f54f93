import { describe, expect, it } from 'vitest';
import { toolNames } from '../../../shared/tools.js';
import { mcpTools } from '../mcp/index.js';
import { scriptFunction, scriptTools } from './codeRunner/pythonBootstrap.js';
import { summarizeArgs } from '../dispatch/index.js';
import { toolDefs } from './toolDefs.js';

describe('tool declarations', () => {
  it('declare every tool of the contract exactly once', () => {
    expect(toolDefs.map((d) => d.name).sort()).toEqual([...toolNames].sort());
  });

  it('the MCP list is read from them: titles and annotations', () => {
    for (const d of toolDefs) {
      expect(mcpTools().find((t) => t.name === d.name)).toMatchObject({
        title: d.title,
        description: d.description,
        annotations: { title: d.title, ...d.annotations },
      });
    }
  });

  it('approval hooks say what the policy judges', () => {
    const hook = (name: string, args: Record<string, unknown>) => toolDefs.find((d) => d.name === name)!.approval(args);
    expect(hook('terminal', { command: 'rm -rf /tmp/x' })).toEqual({ kind: 'command', command: 'rm -rf /tmp/x' });
    expect(hook('write_file', { path: '~/.ssh/authorized_keys', content: '' })).toEqual({
      kind: 'path',
      path: '~/.ssh/authorized_keys',
      access: 'write',
    });
    expect(hook('execute_code', { code: 'print(1)' })).toEqual({ kind: 'code', code: 'print(1)', language: 'python' });
    expect(hook('list_targets', {})).toBeUndefined();
  });

  it('execute_code offers the tools that declare a script function, with parameters from their schemas', () => {
    expect(scriptTools(toolDefs).map((d) => d.name)).toEqual([
      'terminal',
      'read_file',
      'write_file',
      'patch',
      'search_files',
      'read_output',
    ]);
    const search = toolDefs.find((d) => d.name === 'search_files')!;
    expect(scriptFunction(search).split('\n')[0]).toBe(
      'def search_files(pattern, target="content", path=None, file_glob=None, limit=None, context=None, **kw):',
    );
  });

  it('the audit summary comes from the declaration, redacted', () => {
    const terminal = toolDefs.find((d) => d.name === 'terminal')!;
    expect(
      summarizeArgs(terminal, { command: 'curl -H "Authorization: Bearer abcdefghijkl" x', background: true }),
    ).toBe('[bg] curl -H "Authorization: Bearer [redacted]" x');
  });
});
