// On a target whose agent work runs unsandboxed on this machine, a write to a path the command only builds as it runs
// asks (issue 36, item 7: P=$(ls -d …/prof*); echo x >> "$P/config.yaml" ran unasked there); a sandboxed target,
// where the sandbox holds such a write, is not asked.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCommandPolicy, type CommandPolicy } from './commandPolicy.js';

let policy: CommandPolicy;
beforeAll(async () => {
  policy = await loadCommandPolicy({ profile: '/home/agent/.switchboard' });
});

const ctx = { home: '/home/agent', cwd: '/home/agent/project' };
const unknownWrites = (command: string, unsandboxed: boolean): string[] =>
  policy
    .classify({ kind: 'command', command }, { ...ctx, ...(unsandboxed ? { unsandboxed } : {}) })
    .reasons.filter((r) => r.rule === 'write.unknown')
    .map((r) => r.text);

const table: Array<[string, string, boolean]> = [
  ['the profile found by a glob and appended to', 'P=$(ls -d ~/.sw*); echo x >> "$P/config.yaml"', true],
  ['a file named by a variable the command reads', 'printf "%s" "$DATA" > "$TARGET_FILE"', true],
  ['a copy to a place found at run time', 'cp evil.sh "$(dirname "$(command -v git)")/git"', true],
  ['tee to a path from a command', 'echo x | tee "$(cat where.txt)"', true],
  ['a file in the workspace named as written', 'echo x > notes.txt', false],
  ['a variable the command set to a known path', 'OUT=build/log.txt; echo x > "$OUT"', false],
  ['the home by its variable', 'echo x > "$HOME/notes.txt"', false],
  ['a read of a path built at run time', 'cat "$(ls -d ~/.sw*)/config.yaml" > /dev/null', false],
];

describe('writes to a path built as it runs', () => {
  it.each(table)('%s: %s (asks unsandboxed: %s)', (_name, command, asks) => {
    const found = unknownWrites(command, true);
    if (asks) expect(found, found.join(' | ')).toHaveLength(1);
    else expect(found).toEqual([]);
    // Sandboxed (or not known to be unsandboxed): the sandbox holds such a write, nothing asks for it here.
    expect(unknownWrites(command, false)).toEqual([]);
  });

  it('names the path as written and says why', () => {
    expect(unknownWrites('P=$(ls -d ~/.sw*); echo x >> "$P/config.yaml"', true)).toEqual([
      expect.stringMatching(/^writes to .*config\.yaml.*, a path known only as it runs, on an unsandboxed target \(/),
    ]);
  });
});
