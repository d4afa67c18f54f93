import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endGroupScript } from '../../platform/index.js';
import {
  enterDir,
  exportLines,
  groupCommand,
  loginShellCommand,
  sourceStaged,
  takeGroupLine,
} from './remoteCommand.js';

const M = '__SB_PGID_abc__';

describe('takeGroupLine', () => {
  it.each([
    ['', undefined],
    ['__SB_PG', undefined],
    [`${M}123`, undefined],
    [`${M}123\nhello`, { pgid: 123, rest: 'hello' }],
    [`${M}123\n`, { pgid: 123, rest: '' }],
    [`${M}x\nhello`, { pgid: undefined, rest: 'hello' }],
    ['sh: error here\n', { pgid: undefined, rest: 'sh: error here\n' }],
    ['something long without newline', { pgid: undefined, rest: 'something long without newline' }],
  ])('%j', (input, want) => expect(takeGroupLine(input, M)).toEqual(want));
});

describe('exportLines', () => {
  it.each([
    [undefined, ''],
    [{ A: 'x y' }, "export A='x y'\n"],
    [{ A: "it's" }, "export A='it'\\''s'\n"],
    [{ 'bad-name': '1' }, ''],
  ])('%j', (env, want) => expect(exportLines(env)).toBe(want));
});

/** Runs text as sshd would: through a login shell's `-c`, optionally as a session leader. */
const sh = (text: string, leader = false) =>
  leader
    ? spawnSync('setsid', ['-w', '/bin/bash', '-c', text], { encoding: 'utf8' })
    : spawnSync('/bin/bash', ['-c', text], { encoding: 'utf8' });

describe('shell text (run locally with dash and bash)', () => {
  it('enterDir falls back to the nearest existing parent', () => {
    expect(spawnSync('/bin/sh', ['-c', enterDir('/usr/lib/no/such/dir') + 'pwd'], { encoding: 'utf8' }).stdout).toBe(
      '/usr/lib\n',
    );
  });

  it.each([
    ['not a group leader (setsid -w path)', false],
    ['already a session leader, as under sshd', true],
  ])(
    'groupCommand, %s: prints its own process group id first, then runs the body with env and cwd',
    (_name, leader) => {
      const r = sh(
        groupCommand('echo "$A $(pwd)"; ps -o pgid= -p $$; exit 7', { marker: M, cwd: '/tmp', env: { A: 'hi' } }),
        leader,
      );
      const got = takeGroupLine(r.stdout, M);
      expect(got?.pgid).toBeGreaterThan(1);
      const [line1, line2] = (got?.rest ?? '').split('\n');
      expect(line1).toBe('hi /tmp');
      expect(Number(line2?.trim())).toBe(got?.pgid);
      expect(r.status).toBe(7);
    },
  );

  it('a staged file of passed-through values is read, deleted, and never on the command line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-staged-'));
    const staged = join(dir, 'pass-1.sh');
    writeFileSync(staged, exportLines({ PASSED_KEY: 'passed-v1' }), { mode: 0o600 });
    const text = groupCommand('echo "$PASSED_KEY"', { marker: M, env: { A: 'x' }, staged });
    expect(text).not.toContain('passed-v1');
    const r = sh(text);
    expect(takeGroupLine(r.stdout, M)?.rest).toBe('passed-v1\n');
    expect(existsSync(staged)).toBe(false);
    expect(sourceStaged(undefined)).toBe('');
  });

  it('endGroupScript ends the whole group, children included', async () => {
    const child = spawn('/bin/bash', ['-c', groupCommand('sleep 300 & sleep 301 & wait', { marker: M })], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const first = await new Promise<string>((resolve) =>
      child.stdout.once('data', (d: Buffer) => resolve(d.toString())),
    );
    const pgid = takeGroupLine(first, M)?.pgid as number;
    expect(pgid).toBeGreaterThan(1);
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    expect(sh(endGroupScript(pgid)).status).toBe(0);
    await exited;
    // Only zombies (state Z) may remain: this container's init does not reap orphans.
    const live = spawnSync('ps', ['-o', 'stat=', '-g', String(pgid)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((s) => s.trim() && !s.startsWith('Z'));
    expect(live).toEqual([]);
    // And killing a group that is gone is not an error.
    expect(sh(endGroupScript(pgid)).status).toBe(0);
  });

  it('loginShellCommand enters the directory and execs the login shell with -l', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-login-'));
    const fakeShell = join(dir, 'fake-shell');
    writeFileSync(fakeShell, '#!/bin/sh\necho "$(pwd) $1 $X $TERM_PROGRAM"\n', { mode: 0o755 });
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const r = spawnSync('/bin/bash', ['-c', loginShellCommand('/tmp/no/such', { X: '1' })], {
      encoding: 'utf8',
      env: { ...process.env, SHELL: fakeShell, TMPDIR: tmp },
    });
    expect(r.stdout).toBe('/tmp -l 1 Switchboard\n');
    // A shell not known to read ENV gets no ENV file (nothing would delete it).
    expect(readdirSync(tmp)).toEqual([]);
  });

  /** A login shell started by loginShellCommand in a pty, `cd /usr` typed into it: what it printed, what it left. */
  function cdInLoginShell(shell: string): { out: string; left: string[] } {
    const dir = mkdtempSync(join(tmpdir(), 'sb-login-osc7-'));
    const [home, tmp] = [join(dir, 'home'), join(dir, 'tmp')];
    for (const d of [home, tmp]) mkdirSync(d);
    const r = spawnSync('script', ['-qfec', loginShellCommand('/tmp', {}), '/dev/null'], {
      input: 'cd /usr\nexit\n',
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: tmp, SHELL: shell, TERM: 'xterm' },
      timeout: 10_000,
    });
    const left = readdirSync(tmp);
    rmSync(dir, { recursive: true, force: true });
    return { out: r.stdout, left };
  }

  it.each([
    ['/bin/dash', '\x07'],
    ['/bin/bash', '\x1b\\'],
  ])('a %s login shell reports its cwd with OSC 7 after cd, and leaves no file behind', (shell, end) => {
    const { out, left } = cdInLoginShell(shell);
    // The directory it moved to, as the pane's header reads it (the host part may be empty).
    expect(out).toMatch(/\x1b\]7;file:\/\/[^/\x07\x1b]*\/usr(\x07|\x1b\\)/);
    expect(out).toContain(`/usr${end}`);
    expect(left).toEqual([]);
  });

  it("loginShellCommand runs the target's shell words instead, and says in one line when the host lacks it", () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-login-'));
    const fakeShell = join(dir, 'my shell');
    writeFileSync(fakeShell, '#!/bin/sh\necho "[$1] [$2] $X"\n', { mode: 0o755 });
    const words: [string, ...string[]] = [fakeShell, '-i', 'two words'];
    const ran = spawnSync(
      '/bin/bash',
      ['-c', loginShellCommand('/', { X: '1' }, undefined, { words, target: 'box' })],
      {
        encoding: 'utf8',
      },
    );
    expect(ran.stdout).toBe('[-i] [two words] 1\n');
    const gone = spawnSync(
      '/bin/bash',
      ['-c', loginShellCommand('/', {}, undefined, { words: ['/usr/bin/no-such-fish'], target: 'box' })],
      { encoding: 'utf8' },
    );
    expect(gone.status).toBe(127);
    expect(gone.stderr).toBe('shell /usr/bin/no-such-fish not found on box\n');
    // A leading ~/ is the remote home; a name with a quote or a $ stays one word, never code.
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', "it's $x"), '#!/bin/sh\necho "home shell [$1]"\n', { mode: 0o755 });
    const home = spawnSync(
      '/bin/bash',
      ['-c', loginShellCommand('/', {}, undefined, { words: ["~/bin/it's $x", '$(id)'], target: 'box' })],
      { encoding: 'utf8', env: { ...process.env, HOME: dir } },
    );
    expect(home.stdout).toBe('home shell [$(id)]\n');
  });
});
