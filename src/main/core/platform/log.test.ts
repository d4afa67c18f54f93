import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLog, logLine } from './log.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function logFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-log-'));
  dirs.push(dir);
  return join(dir, 'profile', 'switchboard.log');
}
const at = new Date('2026-01-02T03:04:05.000Z');
const lines = (file: string): string[] => readFileSync(file, 'utf8').trimEnd().split('\n');

describe('the Core log', () => {
  it('writes a line per entry with time, level and the noun that logged it; debug only when asked', () => {
    const file = logFile();
    const log = fileLog({ file, debug: false, now: () => at, stderr: () => undefined });
    log.for('plugins').warn('host of "box" would not start', new Error('spawn ENOENT'));
    log.for('ssh').debug('not kept without SWITCHBOARD_DEBUG');
    log.error('plain');
    log.info('started');
    expect(lines(file)).toEqual([
      '2026-01-02T03:04:05.000Z warn  plugins: host of "box" would not start: spawn ENOENT',
      '2026-01-02T03:04:05.000Z error core: plain',
      '2026-01-02T03:04:05.000Z info  core: started',
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('never writes a credential, and keeps an entry on one line', () => {
    const file = logFile();
    const log = fileLog({ file, debug: false, now: () => at });
    log.warn('cleanup failed', new Error('curl -H "Authorization: Bearer abcdefgh12345678" failed\nsecond line'));
    log.warn('export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 went wrong');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('abcdefgh12345678');
    expect(text).not.toContain('ghp_abcdefghijklmnop');
    expect(text).toContain('[redacted]');
    expect(lines(file)).toHaveLength(2);
    expect(lines(file)[0]).toContain('failed | second line');
  });

  it('rotates at its size, keeping three old files and dropping the oldest', () => {
    const file = logFile();
    const log = fileLog({ file, debug: false, rotateBytes: 300, keepFiles: 3, now: () => at });
    for (let i = 0; i < 40; i++) log.info(`entry ${String(i).padStart(2, '0')} ${'x'.repeat(40)}`);
    for (const f of [file, `${file}.1`, `${file}.2`, `${file}.3`]) {
      expect(existsSync(f)).toBe(true);
      expect(statSync(f).size).toBeLessThanOrEqual(300);
    }
    expect(existsSync(`${file}.4`)).toBe(false);
    // The newest entry is in the file itself, older ones in .1, .2, .3 in order; the first ones are gone.
    expect(lines(file).at(-1)).toContain('entry 39');
    const first = (f: string): number => Number(/entry (\d+)/.exec(lines(f)[0]!)![1]);
    expect(first(`${file}.3`)).toBeLessThan(first(`${file}.2`));
    expect(first(`${file}.2`)).toBeLessThan(first(`${file}.1`));
    expect(first(`${file}.3`)).toBeGreaterThan(0);
  });

  it('continues an existing file, rotating by its size on disk', () => {
    const file = logFile();
    fileLog({ file, debug: false }).info('make the folder');
    writeFileSync(file, `${'old line\n'.repeat(40)}`);
    fileLog({ file, debug: false, rotateBytes: 400 }).info('new');
    expect(readFileSync(`${file}.1`, 'utf8')).toContain('old line');
    expect(lines(file)).toHaveLength(1);
  });

  it('under SWITCHBOARD_DEBUG writes every line to stderr too, debug lines included', () => {
    const file = logFile();
    const seen: string[] = [];
    const before = process.env.SWITCHBOARD_DEBUG;
    process.env.SWITCHBOARD_DEBUG = '1';
    try {
      const log = fileLog({ file, now: () => at, stderr: (l) => seen.push(l) });
      log.for('docker').debug('warm shell reused', undefined);
      log.for('docker').warn('token=abcdefghijklmnop1234 leaked?');
    } finally {
      if (before === undefined) delete process.env.SWITCHBOARD_DEBUG;
      else process.env.SWITCHBOARD_DEBUG = before;
    }
    expect(seen).toEqual([
      '2026-01-02T03:04:05.000Z debug docker: warm shell reused',
      expect.stringMatching(/^2026-01-02T03:04:05.000Z warn {2}docker: token=\[redacted\]/),
    ]);
    expect(lines(file)).toEqual(seen);
  });

  it('a log whose file cannot be written does not throw', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-log-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'file'), '');
    const log = fileLog({ file: join(dir, 'file', 'switchboard.log'), debug: false });
    expect(() => log.error('nowhere to go')).not.toThrow();
  });

  it('says an error with its code', () => {
    const err = Object.assign(new Error('no space left on the device'), { code: 'ENOSPC' });
    expect(logLine(at, 'error', 'audit', 'write failed', err)).toBe(
      '2026-01-02T03:04:05.000Z error audit: write failed: no space left on the device (ENOSPC)',
    );
  });
});
