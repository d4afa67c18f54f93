// write_file and patch on a full disk (a real 2 MB tmpfs), on local targets sandboxed and not: the original file is
// left whole with its mode and owner, no temp file is left, and the error names the file.
import { chmodSync, chownSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxAvailability } from '../sandbox/sandboxAvailability.js';
import { canMountTmpfs, fullDisk, type FullDisk } from './fullDisk.js';
import { makeTestCore, type TestCore } from './testCore.js';

const sandboxed = sandboxAvailability();
const live = canMountTmpfs() ? describe : describe.skip;
const isRoot = process.getuid?.() === 0;
const ENOSPC_LINE = (file: string): RegExp => new RegExp(`^cannot write \\S*${file.replace('.', '\\.')}: no space left on the device \\(ENOSPC\\); the file is unchanged$`);

for (const mode of ['sandboxed', 'unsandboxed'] as const) {
  const run = mode === 'sandboxed' && !(sandboxed.ok && sandboxed.kind === 'bubblewrap') ? describe.skip : live;
  run(`atomic writes on a full disk, local ${mode}`, () => {
    let t: TestCore;
    let disk: FullDisk;
    let home = '';
    const oldHome = process.env.HOME;
    const call = (tool: string, args: Record<string, unknown>) => t.core.callTool(tool, { execution_target: 'box', ...args }, 'test');

    beforeAll(async () => {
      home = realpathSync(mkdtempSync('/var/tmp/sb-atomic-home-'));
      process.env.HOME = home;
      disk = fullDisk();
      t = await makeTestCore(['box'], { specs: { box: `{ backend: local, cwd: ${disk.dir}${mode === 'unsandboxed' ? ', sandbox: off' : ''} }` } });
    }, 30_000);
    afterAll(async () => {
      await t?.close();
      disk?.unmount();
      process.env.HOME = oldHome;
      rmSync(home, { recursive: true, force: true });
    });

    it('write_file and patch over an existing file on a full disk leave it whole, with its mode and owner, and no temp file', async () => {
      const file = join(disk.dir, 'keep.txt');
      writeFileSync(file, 'original text\n');
      chmodSync(file, 0o640);
      if (isRoot) chownSync(file, 1234, 2345);
      disk.fill();
      const big = 'n'.repeat(20 * 1024);
      await expect(call('write_file', { path: file, content: big })).rejects.toMatchObject({ message: expect.stringMatching(ENOSPC_LINE('keep.txt')) });
      await expect(call('patch', { path: file, old_string: 'original', new_string: big })).rejects.toMatchObject({ message: expect.stringMatching(ENOSPC_LINE('keep.txt')) });
      // A new file that does not fit is not left behind either.
      await expect(call('write_file', { path: join(disk.dir, 'sub', 'new.txt'), content: big })).rejects.toMatchObject({ message: expect.stringMatching(/cannot write \S*new\.txt: no space left on the device \(ENOSPC\)|cannot write \S*new\.txt: .*ENOSPC/) });
      expect(readFileSync(file, 'utf8')).toBe('original text\n');
      expect(statSync(file).mode & 0o7777).toBe(0o640);
      expect(readdirSync(disk.dir).filter((n) => n !== 'sub').sort()).toEqual(['fill', 'keep.txt']);

      disk.free();
      await call('patch', { path: file, old_string: 'original', new_string: 'patched' });
      expect(readFileSync(file, 'utf8')).toBe('patched text\n');
      const st = statSync(file);
      expect(st.mode & 0o7777).toBe(0o640);
      if (isRoot) expect([st.uid, st.gid]).toEqual([1234, 2345]);
      expect(readdirSync(disk.dir).filter((n) => n.includes('.sb-'))).toEqual([]);
    }, 60_000);

    it('a write through a symlink replaces the file it names and keeps the link', async () => {
      const file = join(disk.dir, 'real.txt');
      writeFileSync(file, 'one\n');
      symlinkSync('real.txt', join(disk.dir, 'link.txt'));
      await call('write_file', { path: join(disk.dir, 'link.txt'), content: 'two\n' });
      expect(lstatSync(join(disk.dir, 'link.txt')).isSymbolicLink()).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe('two\n');
    });
  });
}
