// The archives put to and read from the Engine, checked against GNU tar (the reference reader and writer).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { packArchive, readFirstFile } from './archive.js';

/** Longer than ustar can hold, yet every component fits a file system's 255-byte name limit. */
const veryLong = `${'d'.repeat(100)}/${'e'.repeat(100)}/${'f'.repeat(100)}`;

async function bytes(r: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe.skipIf(spawnSync('tar', ['--version']).status !== 0)('archives and GNU tar', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-archive-'));

  it('GNU tar extracts what packArchive writes: modes, long and UTF-8 names, binary data', async () => {
    const binary = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256));
    const file = join(dir, 'ours.tar');
    writeFileSync(
      file,
      await bytes(
        packArchive([
          { name: 'x', type: 'directory', mode: 0o750 },
          { name: `x/${veryLong}`, type: 'file', mode: 0o640, data: Buffer.from('long\n') },
          { name: 'x/répertoire/ファイル.bin', type: 'file', mode: 0o600, data: binary },
          { name: 'x/empty', type: 'file', mode: 0o644 },
        ]),
      ),
    );
    const out = join(dir, 'out');
    mkdirSync(out);
    const r = spawnSync('tar', ['-xf', file, '-C', out]);
    expect(r.status, r.stderr.toString()).toBe(0);
    expect(readFileSync(join(out, 'x', veryLong), 'utf8')).toBe('long\n');
    expect(readFileSync(join(out, 'x', 'répertoire', 'ファイル.bin')).equals(binary)).toBe(true);
    expect(readFileSync(join(out, 'x', 'empty'), 'utf8')).toBe('');
    expect(statSync(join(out, 'x')).mode & 0o777).toBe(0o750);
    expect(statSync(join(out, 'x', veryLong)).mode & 0o777).toBe(0o640);
  });

  it(
    'readFirstFile reads the file out of what GNU tar writes ' + '(pax and gnu formats), skipping directories',
    async () => {
      const src = join(dir, 'src');
      mkdirSync(join(src, 'd'.repeat(100), 'e'.repeat(100)), { recursive: true });
      writeFileSync(join(src, veryLong), 'content');
      for (const format of ['pax', 'gnu']) {
        const file = join(dir, `${format}.tar`);
        const r = spawnSync('tar', [`--format=${format}`, '-cf', file, '-C', src, '.']);
        expect(r.status, r.stderr.toString()).toBe(0);
        expect((await readFirstFile(createReadStream(file), 1000))?.toString(), format).toBe('content');
      }
    },
  );

  it('readFirstFile stops past its limit, and says when there is no file', async () => {
    const big = await bytes(packArchive([{ name: 'big', type: 'file', mode: 0o644, data: Buffer.alloc(100_000, 1) }]));
    const file = join(dir, 'big.tar');
    writeFileSync(file, big);
    await expect(readFirstFile(createReadStream(file), 10_000)).rejects.toBeInstanceOf(RangeError);
    const dirsOnly = join(dir, 'dirs.tar');
    writeFileSync(dirsOnly, await bytes(packArchive([{ name: 'only', type: 'directory', mode: 0o755 }])));
    expect(await readFirstFile(createReadStream(dirsOnly), 10)).toBeUndefined();
  });
});
