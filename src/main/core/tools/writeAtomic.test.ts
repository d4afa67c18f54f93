// write_file and patch on a full disk (a real 2 MB tmpfs), on local targets sandboxed and not: the original file is
// left whole with its mode and owner, no temp file is left, and the error names the file.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxAvailability } from '../sandbox/index.js';
import { canMountTmpfs, fullDisk, fullDiskCase, readOnlyCase, symlinkCase, type FullDisk } from './fullDisk.js';
import { makeTestCore, type TestCore } from './testCore.js';

const sandboxed = sandboxAvailability();
const live = canMountTmpfs() ? describe : describe.skip;
/**
 * Owned by someone else, to see the owner kept (only root can give a file away). Unsandboxed only: a sandbox has a user
 * namespace of its own where only the person's uid is mapped and no capability is kept, so root's agent work cannot
 * read or give away another user's private file (README's Sandbox section).
 */
const other = process.getuid?.() === 0 ? { uid: 1234, gid: 2345 } : undefined;

for (const mode of ['sandboxed', 'unsandboxed'] as const) {
  const run = mode === 'sandboxed' && !(sandboxed.ok && sandboxed.kind === 'bubblewrap') ? describe.skip : live;
  run(`atomic writes on a full disk, local ${mode}`, () => {
    let t: TestCore;
    let disk: FullDisk;
    let home = '';
    const oldHome = process.env.HOME;
    const call = (tool: string, args: Record<string, unknown>) =>
      t.core.callTool(tool, { execution_target: 'box', ...args }, 'test');
    const at = (name: string) => join(disk.dir, name);

    beforeAll(async () => {
      home = realpathSync(mkdtempSync('/var/tmp/sb-atomic-home-'));
      process.env.HOME = home;
      disk = fullDisk();
      // A single file listed writable, in a folder that is not: the sandbox binds the file alone.
      writeFileSync(join(home, 'listed.txt'), 'listed\n');
      const sandbox = mode === 'unsandboxed' ? 'off' : `{ writable: [${join(home, 'listed.txt')}] }`;
      t = await makeTestCore(['box'], { specs: { box: `{ backend: local, cwd: ${disk.dir}, sandbox: ${sandbox} }` } });
    }, 30_000);
    afterAll(async () => {
      await t?.close();
      disk?.unmount();
      process.env.HOME = oldHome;
      rmSync(home, { recursive: true, force: true });
    });

    it(
      'write_file and patch over an existing file on a full disk leave it whole, with its mode and owner, ' +
        'and no temp file',
      () => fullDiskCase(disk, call, at, mode === 'unsandboxed' ? other : undefined),
      60_000,
    );

    it('a new file that does not fit is not left behind', async () => {
      disk.fill();
      try {
        await expect(call('write_file', { path: at('new.txt'), content: 'n'.repeat(20 * 1024) })).rejects.toMatchObject(
          {
            message: expect.stringMatching(
              /^cannot write \S*new\.txt: no space left on the device \(ENOSPC\); the file is unchanged$/,
            ),
          },
        );
        expect(readdirSync(disk.dir)).toEqual(['fill', 'keep.txt']);
      } finally {
        disk.free();
      }
    });

    it('on a read-only mount the error names the file and says why', () => readOnlyCase(disk, call, at));

    if (mode === 'sandboxed') {
      it(
        'a file listed in sandbox.writable, in a folder that is not, ' + 'is written in place (the one way there is)',
        async () => {
          await call('patch', { path: join(home, 'listed.txt'), old_string: 'listed', new_string: 'patched' });
          expect(readFileSync(join(home, 'listed.txt'), 'utf8')).toBe('patched\n');
          await expect(call('write_file', { path: join(home, 'other.txt'), content: 'x' })).rejects.toMatchObject({
            message: expect.stringMatching(
              /^cannot write \S*other\.txt: read-only file system \(EROFS\); the file is unchanged \[sandbox: /,
            ),
          });
        },
      );
    }

    it('a write through a symlink replaces the file it names and keeps the link', () => symlinkCase(disk, call, at));
  });
}
