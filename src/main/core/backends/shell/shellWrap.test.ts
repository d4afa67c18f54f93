import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  mkdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  exportsDiff,
  exportsDiffVariables,
  exportsFileHeader,
  markerLineSeen,
  parseWrapped,
  shellQuote,
  wrapCommand,
} from './shellWrap.js';
import { SecretExports } from './secretExports.js';

function run(shell: string, command: string, cwd: string, envFile?: string) {
  const { script, marker } = wrapCommand(command, { cwd, envFile });
  const r = spawnSync(shell, ['-c', script], { encoding: 'utf8' });
  return { ...parseWrapped(r.stdout, marker), status: r.status };
}

describe('wrapCommand', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-wrap-'));
  for (const shell of ['/bin/bash', '/bin/sh']) {
    describe(shell, () => {
      it('reports the cwd after cd and keeps the exit code', () => {
        mkdirSync(join(dir, 'sub'), { recursive: true });
        const r = run(shell, 'cd sub && echo hi; exit 3', dir);
        expect(r.output).toBe('hi\n');
        expect(r.cwd).toBe(join(dir, 'sub'));
        expect(r.status).toBe(3);
      });
      it('reports a cwd the command removed as the path it was, without an error line, under set -eu too', () => {
        for (const opts of ['', 'set -eu; ']) {
          const r = run(shell, `${opts}mkdir -p doomed && cd doomed && rmdir ../doomed && echo left`, dir);
          expect(r).toMatchObject({ output: 'left\n', cwd: join(dir, 'doomed'), status: 0 });
        }
      });
      it('merges stderr and survives quotes', () => {
        const r = run(shell, `echo "it's" >&2; echo 'a"b'`, dir);
        expect(r.output).toBe(`it's\na"b\n`);
      });
      it('falls back to the nearest existing parent of a deleted cwd', () => {
        const r = run(shell, 'pwd', join(dir, 'gone', 'deeper'));
        expect(r.output).toBe(`[the cwd ${join(dir, 'gone', 'deeper')} no longer exists; running in ${dir}]\n${dir}\n`);
        expect(r.cwd).toBe(dir);
      });
      it('refuses a missing directory the caller named: nothing runs', () => {
        const { script, marker } = wrapCommand('touch ran', { cwd: join(dir, 'typo'), cwdMustExist: true });
        const out = spawnSync(shell, ['-c', script], { encoding: 'utf8', cwd: dir });
        expect(parseWrapped(out.stdout, marker)).toEqual({ output: '', cwd: undefined, missingCwd: true, secrets: [] });
        expect(markerLineSeen(out.stdout, marker)).toBe(true);
        expect(statSync(join(dir, 'ran'), { throwIfNoEntry: false })).toBeUndefined();
        expect(run(shell, 'pwd', dir).output).toBe(`${dir}\n`);
      });
      it('never reads an env file another user owns', () => {
        const envFile = join(dir, `planted-${shell.replace(/\W/g, '')}.sh`);
        writeFileSync(envFile, 'export PLANTED=yes\n');
        chownSync(envFile, 65534, 65534);
        expect(run(shell, 'echo "[$PLANTED]"', dir, envFile).output).toBe('[]\n');
      });
      it("a command that turns on set -x gets its own lines traced, not the wrapper's, and its cwd", () => {
        const envFile = join(dir, `xtrace-${shell.replace(/\W/g, '')}.sh`);
        const r = run(shell, 'set -x; cd /usr; true', dir, envFile);
        expect(r.output).not.toContain('__sb_');
        expect(r.output).toMatch(/^\++ cd \/usr\n\++ true\n$/);
        expect(r.cwd).toBe('/usr');
      });
      it('keeps exported variables in the env file', () => {
        const envFile = join(dir, `env-${shell.replace(/\W/g, '')}.sh`);
        run(shell, 'export SB_TEST_VAR="x y"', dir, envFile);
        expect(run(shell, 'echo "$SB_TEST_VAR"', dir, envFile).output).toBe('x y\n');
      });
    });
  }
  it("concurrent calls that export nothing do not undo another call's export", async () => {
    const envFile = join(dir, 'env-concurrent.sh');
    run('/bin/bash', 'export KEEPME=1', dir, envFile);
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        Array.from(
          { length: 8 },
          () =>
            new Promise<void>((resolve) => {
              const { script } = wrapCommand('true', { cwd: dir, envFile });
              spawn('/bin/bash', ['-c', script]).on('close', () => resolve());
            }),
        ),
      );
      expect(run('/bin/bash', 'echo "[$KEEPME]"', dir, envFile).output).toBe('[1]\n');
    }
  });
  it('puts ~/ env files under the home directory, creating it private', () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    const { script, marker } = wrapCommand('export X=2', { cwd: dir, envFile: '~/.cache/sb/env.sh' });
    spawnSync('/bin/sh', ['-c', script], { env: { ...process.env, HOME: home } });
    expect(statSync(join(home, '.cache/sb')).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, '.cache/sb/env.sh')).mode & 0o777).toBe(0o600);
    const w = wrapCommand('echo "$X"', { cwd: dir, envFile: '~/.cache/sb/env.sh' });
    expect(
      parseWrapped(
        spawnSync('/bin/sh', ['-c', w.script], { env: { ...process.env, HOME: home }, encoding: 'utf8' }).stdout,
        w.marker,
      ).output,
    ).toBe('2\n');
    expect(marker).toMatch(/^__SB_CWD_/);
  });
  it('quotes', () => {
    expect(shellQuote(`a'b`)).toBe(`'a'\\''b'`);
  });
  it('cleans up', () => rmSync(dir, { recursive: true, force: true }));
});

/** The shells an exports file must work in: bash (local), dash (Debian's sh), busybox ash (small images). */
const shells: Array<[string, string, string[]]> = [
  ['bash', '/bin/bash', []],
  ['dash', '/bin/dash', []],
  ['busybox ash', '/usr/bin/busybox', ['sh']],
];

describe('the exports file keeps only what calls set or unset', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-exports-'));
  const start = {
    PATH: '/usr/bin:/bin',
    HOME: dir,
    LANG: 'C.UTF-8',
    AWS_SECRET_ACCESS_KEY: 'old-secret-0001',
    KEEP_ME: 'inherited',
  };
  for (const [label, bin, pre] of shells) {
    describe(label, () => {
      const envFile = join(dir, `env-${label.replace(/\W/g, '')}.sh`);
      const call = (command: string, env: Record<string, string> = start): string => {
        const { script, marker } = wrapCommand(command, { cwd: dir, envFile });
        return parseWrapped(spawnSync(bin, [...pre, '-c', script], { encoding: 'utf8', env }).stdout, marker).output;
      };
      it('an inherited secret is never written, so a rotated one is seen after a restart', () => {
        rmSync(envFile, { force: true });
        call('export FOO=1');
        const file = readFileSync(envFile, 'utf8');
        expect(file.split('\n')[0]).toBe(exportsFileHeader);
        expect(file).toContain('FOO');
        for (const inherited of ['old-secret-0001', 'AWS_SECRET_ACCESS_KEY', 'KEEP_ME', 'PATH', 'HOME', 'LANG'])
          expect(file).not.toContain(inherited);
        // The Core restarts with the key rotated: the call sees the new value and still the call's own export.
        expect(call('echo "$FOO $AWS_SECRET_ACCESS_KEY"', { ...start, AWS_SECRET_ACCESS_KEY: 'new-secret-0002' })).toBe(
          '1 new-secret-0002\n',
        );
      });
      it('an unset survives the next call and a restart', () => {
        rmSync(envFile, { force: true });
        call('unset KEEP_ME; export BAR=2');
        expect(readFileSync(envFile, 'utf8')).toMatch(/^unset KEEP_ME$/m);
        expect(call('echo "[${KEEP_ME-gone}] $BAR"')).toBe('[gone] 2\n');
        expect(call('echo "[${KEEP_ME-gone}]"', { ...start, KEEP_ME: 'changed' })).toBe('[gone]\n');
      });
      it("PATH is not frozen: a later environment's PATH is seen unless a call changed it", () => {
        rmSync(envFile, { force: true });
        call('export FOO=1');
        expect(call('echo "$PATH"', { ...start, PATH: '/opt/new/bin:/usr/bin:/bin' })).toBe(
          '/opt/new/bin:/usr/bin:/bin\n',
        );
        // A call that changes PATH is kept, as it set it.
        call('export PATH="/mine:$PATH"');
        expect(call('echo "$PATH"')).toBe('/mine:/usr/bin:/bin\n');
      });
      it('values with quotes, backslashes and lines that look like exports come back exactly', () => {
        rmSync(envFile, { force: true });
        const tricky = `it's "q" $HOME \\ \`x\`\nexport EVIL=1\n  declare -x WORSE=2`;
        call(`export TRICKY=${shellQuote(tricky)}`);
        expect(call('printf "%s|%s|%s" "$TRICKY" "${EVIL-no}" "${WORSE-no}"')).toBe(`${tricky}|no|no`);
        expect(readFileSync(envFile, 'utf8')).not.toMatch(/^unset (EVIL|WORSE)/m);
      });
      it('a call that changes a variable back to what it inherited leaves nothing for it', () => {
        rmSync(envFile, { force: true });
        call('export KEEP_ME=mine; export X=1');
        call('export KEEP_ME=inherited');
        expect(readFileSync(envFile, 'utf8')).not.toContain('KEEP_ME');
        expect(call('echo "$KEEP_ME $X"', { ...start, KEEP_ME: 'rotated' })).toBe('rotated 1\n');
      });
      it("never keeps a process's own marks (SB_CORE_*) or session variables", () => {
        rmSync(envFile, { force: true });
        call('export SB_CORE_CALL=changed; unset SB_CORE_RUN; export SSH_CONNECTION=x; export K=1', {
          ...start,
          SB_CORE_RUN: 'r1',
          SB_CORE_CALL: 'c1',
        });
        expect(readFileSync(envFile, 'utf8')).not.toMatch(/SB_CORE|SSH_CONNECTION/);
        expect(call('echo "$SB_CORE_RUN $SB_CORE_CALL $K"', { ...start, SB_CORE_RUN: 'r2', SB_CORE_CALL: 'c2' })).toBe(
          'r2 c2 1\n',
        );
      });
      it('a call that defines its own printf, rm, mv or awk keeps its export, and the next call its PATH', () => {
        rmSync(envFile, { force: true });
        call('printf() { :; }; rm() { :; }; mv() { :; }; awk() { :; }; export OWN_FNS=1');
        expect(call('echo "$OWN_FNS|$PATH|$HOME"')).toBe(`1|/usr/bin:/bin|${dir}\n`);
      });
      it('a call that only changes directory leaves the file as it is', () => {
        rmSync(envFile, { force: true });
        mkdirSync(join(dir, 'sub'), { recursive: true });
        call('export FOO=1');
        const before = statSync(envFile).ino;
        call('cd sub');
        expect(statSync(envFile).ino).toBe(before);
      });
      // (busybox ash always has awk: its applets run as builtins whatever PATH says.)
      if (label !== 'busybox ash')
        it('on a target without awk the exports are not kept, the file is untouched and no temp file is left', () => {
          rmSync(envFile, { force: true });
          call('export FOO=1');
          const tools = mkdtempSync(join(dir, 'noawk-'));
          for (const t of ['mkdir', 'mv', 'rm', 'cmp', 'dirname', 'cat']) symlinkSync(`/usr/bin/${t}`, join(tools, t));
          expect(call('export BAR=2; echo ran', { ...start, PATH: tools })).toBe('ran\n');
          expect(readFileSync(envFile, 'utf8')).not.toContain('BAR');
          expect(readdirSync(dir).filter((f) => f.startsWith(`env-${label.replace(/\W/g, '')}.sh.`))).toEqual([]);
          expect(call('echo "$FOO"')).toBe('1\n');
        });
      it('a file in the old format (the whole export -p) is deleted unread', () => {
        writeFileSync(envFile, "export AWS_SECRET_ACCESS_KEY='stale'\nexport PATH='/frozen'\n", { mode: 0o600 });
        expect(call('echo "$AWS_SECRET_ACCESS_KEY $PATH"')).toBe('old-secret-0001 /usr/bin:/bin\n');
        expect(existsSync(envFile)).toBe(false);
      });
    });
  }
  it('the diff writes nothing, and fails, when the current exports never came after the starting ones', () => {
    const r = spawnSync('awk', ['-v', 'divert=', exportsDiff], {
      input: 'declare -x PATH="/usr/bin"\n',
      encoding: 'utf8',
    });
    expect(r).toMatchObject({ status: 1, stdout: '' });
  });
  it('hands the diff EREs without a backslash (awk -v would take one as an escape)', () => {
    expect(exportsDiffVariables.slice(exportsDiffVariables.indexOf('__sb_nre='))).not.toContain('\\');
  });
  it('cleans up', () => rmSync(dir, { recursive: true, force: true }));
});

describe('exports that look like credentials stay out of the file (secretsInMemory)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-secret-exports-'));
  const start = { PATH: '/usr/bin:/bin', HOME: dir, LANG: 'C.UTF-8' };
  /** By name, and by value under innocent names: each shape the value rule knows. */
  const secrets: Record<string, string> = {
    MY_TOKEN: 'tok-0001 with "quotes", \'single\' and $dollar\nand a second line ✓',
    GH_PAT: 'pat0002',
    MY_THING: 'ghp_abcdefghijklmnop0003',
    DB: 'postgres://u:pw0004@h/db',
    KEYID: 'AKIAABCDEFGHIJKL0005',
    SESSION: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig0006',
    KEYFILE: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl0007\n-----END OPENSSH PRIVATE KEY-----',
  };
  const ordinary = {
    MODE: 'desk-standing-0008',
    SITE: 'https://example.com/0009',
    EDITOR: 'vim',
    npm_config_cache: '/tmp/npm-0010',
  };
  for (const [label, bin, pre] of shells) {
    describe(label, () => {
      const envFile = join(dir, `env-${label.replace(/\W/g, '')}.sh`);
      const kept = new SecretExports();
      const call = (command: string): string => {
        const { script, marker } = wrapCommand(command, { cwd: dir, envFile, secretsInMemory: true });
        const parsed = parseWrapped(
          spawnSync(bin, [...pre, '-c', script], { encoding: 'utf8', env: { ...start, ...kept.env() } }).stdout,
          marker,
        );
        kept.apply(parsed.secrets);
        return parsed.output;
      };
      it('reports them to the Core, writes only the others, and the next call gets them back', () => {
        rmSync(envFile, { force: true });
        const all = { ...secrets, ...ordinary };
        const out = call(
          `export ${Object.entries(all)
            .map(([k, v]) => `${k}=${shellQuote(v)}`)
            .join(' ')}; echo done`,
        );
        expect(out).toBe('done\n');
        expect(kept.env()).toEqual(secrets);
        const file = readFileSync(envFile, 'utf8');
        for (const value of Object.values(secrets)) expect(file).not.toContain(value.slice(0, 7));
        for (const value of Object.values(ordinary)) expect(file).toContain(value);
        const names = Object.keys(all);
        expect(call(`printf '%s|' ${names.map((n) => `"$${n}"`).join(' ')}`)).toBe(`${Object.values(all).join('|')}|`);
      });
      it('a change and an unset reach the Core; an untouched one is not reported again', () => {
        expect(call('export GH_PAT=pat0010; unset MY_THING; export OTHER=1')).toBe('');
        expect(kept.env().GH_PAT).toBe('pat0010');
        expect(kept.env().MY_THING).toBeUndefined();
        expect(kept.env().DB).toBe(secrets.DB);
        expect(call('echo "[${MY_THING-gone}] $GH_PAT $OTHER"')).toBe('[gone] pat0010 1\n');
      });
      it('a file an older Switchboard wrote (v2: it could hold a secret) is deleted unread', () => {
        writeFileSync(envFile, "# switchboard exports v2\nexport MY_TOKEN='written-0011'\n", { mode: 0o600 });
        expect(call('echo "[${MY_TOKEN-none}]"')).toBe(`[${kept.env().MY_TOKEN ?? 'none'}]\n`);
        expect(existsSync(envFile)).toBe(false);
      });
    });
  }
  it('cleans up', () => rmSync(dir, { recursive: true, force: true }));
});
