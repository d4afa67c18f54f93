import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packTar, paxRecord, splitUstarName, unpackTar, type TarInput } from './tar.js';

const long = 'd'.repeat(120) + '/' + 'f'.repeat(90);
/** Longer than ustar can hold, yet every component fits a file system's 255-byte name limit. */
const veryLong = `${'d'.repeat(100)}/${'e'.repeat(100)}/${'f'.repeat(100)}`;

describe('splitUstarName', () => {
  it.each([
    ['a.txt', { prefix: '', name: 'a.txt' }],
    ['a/'.repeat(50), { prefix: '', name: 'a/'.repeat(50) }],
    [long, { prefix: 'd'.repeat(120), name: 'f'.repeat(90) }],
    [veryLong, undefined],
    ['x'.repeat(300), undefined],
    ['p'.repeat(160) + '/f', undefined],
  ])('%#', (path, want) => expect(splitUstarName(path)).toEqual(want));
});

describe('paxRecord', () => {
  it.each([
    ['path', 'a', '9 path=a\n'],
    ['path', 'x'.repeat(90), `99 path=${'x'.repeat(90)}\n`],
    ['path', 'x'.repeat(91), `101 path=${'x'.repeat(91)}\n`],
  ])('%s=%#', (key, value, want) => {
    const rec = paxRecord(key, value);
    expect(rec).toBe(want);
    expect(Number(rec.split(' ')[0])).toBe(Buffer.byteLength(rec));
  });
});

describe('packTar / unpackTar round trip', () => {
  const cases: [string, TarInput[]][] = [
    ['empty file', [{ name: 'e', type: 'file', mode: 0o600, data: Buffer.alloc(0) }]],
    ['one block exactly', [{ name: 'b', type: 'file', mode: 0o644, data: Buffer.alloc(512, 7) }]],
    ['dirs and a file', [
      { name: 'a', type: 'directory', mode: 0o755 },
      { name: 'a/b/', type: 'directory', mode: 0o700 },
      { name: 'a/b/c.txt', type: 'file', mode: 0o755, data: Buffer.from('hello\n') },
    ]],
    ['ustar prefix name', [{ name: long, type: 'file', mode: 0o644, data: Buffer.from('x') }]],
    ['pax long name', [{ name: veryLong, type: 'file', mode: 0o644, data: Buffer.from('y') }]],
    ['utf-8 name', [{ name: 'répertoire/ファイル.txt', type: 'file', mode: 0o644, data: Buffer.from('z') }]],
    ['binary', [{ name: 'bin', type: 'file', mode: 0o644, data: Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256)) }]],
  ];
  it.each(cases)('%s', (_, input) => {
    const tar = packTar(input);
    expect(tar.length % 512).toBe(0);
    const out = unpackTar(tar);
    expect(out.map((e) => ({ name: e.name.replace(/\/$/, ''), type: e.type, mode: e.mode, data: e.data.toString('hex') }))).toEqual(
      input.map((e) => ({ name: e.name.replace(/\/$/, ''), type: e.type, mode: e.mode, data: (e.data ?? Buffer.alloc(0)).toString('hex') })),
    );
  });

  it('rejects a corrupt header', () => {
    const tar = packTar([{ name: 'a', type: 'file', mode: 0o644, data: Buffer.from('a') }]);
    tar[10] = 0x41;
    expect(() => unpackTar(tar)).toThrow(/checksum/);
  });

  it('rejects a truncated archive', () => {
    const tar = packTar([{ name: 'a', type: 'file', mode: 0o644, data: Buffer.alloc(2000) }]);
    expect(() => unpackTar(tar.subarray(0, 1024))).toThrow(/ends inside/);
  });
});

// GNU tar is the reference reader and writer.
describe.skipIf(spawnSync('tar', ['--version']).status !== 0)('interoperates with GNU tar', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-tar-'));
  it('GNU tar extracts what packTar writes', () => {
    const file = join(dir, 'ours.tar');
    writeFileSync(file, packTar([
      { name: 'x', type: 'directory', mode: 0o750 },
      { name: 'x/' + veryLong, type: 'file', mode: 0o640, data: Buffer.from('long\n') },
    ]));
    const out = join(dir, 'out');
    mkdirSync(out);
    const r = spawnSync('tar', ['-xf', file, '-C', out]);
    expect(r.status, r.stderr.toString()).toBe(0);
    expect(readFileSync(join(out, 'x', veryLong), 'utf8')).toBe('long\n');
    expect(statSync(join(out, 'x')).mode & 0o777).toBe(0o750);
  });
  it('unpackTar reads what GNU tar writes (pax and gnu formats, symlinks)', () => {
    const src = join(dir, 'src');
    mkdirSync(join(src, 'sub'), { recursive: true });
    mkdirSync(join(src, 'sub', 'd'.repeat(100), 'e'.repeat(100)), { recursive: true });
    writeFileSync(join(src, 'sub', veryLong), 'content');
    spawnSync('ln', ['-s', 'sub', join(src, 'link')]);
    for (const format of ['pax', 'gnu', 'ustar']) {
      const file = join(dir, `${format}.tar`);
      const r = spawnSync('tar', [`--format=${format}`, '-cf', file, '-C', src, '.']);
      if (format === 'ustar') {
        if (r.status !== 0) continue; // 300-byte names do not fit ustar
      }
      expect(r.status, r.stderr.toString()).toBe(0);
      const entries = unpackTar(readFileSync(file));
      const f = entries.find((e) => e.name.endsWith(veryLong));
      expect(f?.data.toString(), format).toBe('content');
      expect(entries.find((e) => e.name.replace(/^\.\//, '') === 'link')?.type).toBe('symlink');
    }
  });
});
