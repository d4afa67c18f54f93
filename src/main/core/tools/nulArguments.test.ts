// A NUL byte in a command or a path, through a real Core on a local target: one clear error line, nothing asked, run
// or written. bash would cut the command short at the NUL (a command other than the one judged), and a path with one
// was refused deep inside the backend with Node's words ("args[49] must be a string without null bytes").
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import type { SwitchboardError } from '../../../shared/errors.js';
import { makeTestCore, type TestCore } from './testCore.js';

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const thrown = (p: Promise<unknown>): Promise<SwitchboardError> =>
  p.then(
    () => Promise.reject(new Error('expected the call to fail')),
    (err: unknown) => err as SwitchboardError,
  );

describe('a NUL byte in a tool argument', () => {
  it('is refused in one line naming the argument, before anything is asked, run or written', async () => {
    t = await makeTestCore(['a'], { extra: 'approvals:\n  mode: ask\n  timeout: 600\n' });
    const calls: [string, Record<string, unknown>, string][] = [
      ['terminal', { command: 'touch ran\0; rm -rf x' }, 'terminal: command: the command'],
      ['terminal', { command: 'touch ran', workdir: 'sub\0dir' }, 'terminal: workdir: the workdir'],
      ['write_file', { path: 'x\0y', content: 'z' }, 'write_file: path: the path'],
      ['read_file', { path: 'x\0y' }, 'read_file: path: the path'],
      ['patch', { path: 'x\0y', old_string: 'a', new_string: 'b' }, 'patch: path: the path'],
      ['search_files', { pattern: 'a\0b', target: 'content' }, 'search_files: pattern: the pattern'],
    ];
    for (const [tool, args, start] of calls) {
      const err = await thrown(t.core.callTool(tool, args, 'mcp'));
      expect(err.code).toBe('bad_request');
      expect(err.message).toBe(`${start} contains a NUL byte, which no shell or path can hold`);
    }
    expect(t.core.approvals.list()).toEqual([]);
    expect(readdirSync(t.dirs.a!)).toEqual([]);
  });
});
