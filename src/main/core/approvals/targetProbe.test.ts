// The probe script run by a real sh on this machine, with GNU realpath and without it (as on busybox), read back.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROBED_FILE_BYTES, type ProbeNeeds } from './policy/probeFacts.js';
import { parseProbe, probeScript, realPathOf } from './targetProbe.js';

let root = '';
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-probe-')));
  mkdirSync(join(root, 'h/.ssh'), { recursive: true });
  symlinkSync('h/.ssh/authorized_keys', join(root, 'ak'));
  symlinkSync('/', join(root, 'top'));
  symlinkSync('h', join(root, 'hl'));
  writeFileSync(join(root, 'x.sh'), 'rm -rf ~\n');
  writeFileSync(join(root, 'big.sh'), 'x'.repeat(MAX_PROBED_FILE_BYTES + 1));
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'hooks'), { recursive: true });
  const git = (...args: string[]) => spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
  git('init', '-q');
  git('config', 'core.hooksPath', 'hooks');
  git('config', 'core.fsmonitor', 'echo hi');
  writeFileSync(join(repo, 'hooks/pre-commit'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(repo, 'hooks/pre-commit'), 0o755);
  writeFileSync(join(repo, 'hooks/post-merge'), 'not executable\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(needs: ProbeNeeds, withoutRealpath: boolean) {
  const mark = '__sb_probe_test__';
  const { script, ...asked } = probeScript(needs, mark);
  // Shell functions stand in for a system without realpath -m (busybox): the script's fallback has to do the work.
  const out = spawnSync(
    'sh',
    ['-c', (withoutRealpath ? 'command() { return 1; }\nrealpath() { return 1; }\n' : '') + script],
    { encoding: 'utf8' },
  );
  return parseProbe(out.stdout, mark, asked);
}

describe.each([false, true])('the probe script (realpath missing: %s)', (withoutRealpath) => {
  it('follows links, the last one too, and keeps what does not exist yet', () => {
    const facts = run(
      {
        paths: new Set([join(root, 'ak'), join(root, 'top/usr'), join(root, 'hl/new/file'), join(root, 'plain')]),
        files: new Set(),
        git: new Set(),
      },
      withoutRealpath,
    );
    expect(facts.real.get(join(root, 'ak'))).toBe(join(root, 'h/.ssh/authorized_keys'));
    expect(facts.real.get(join(root, 'top/usr'))).toBe('/usr');
    expect(facts.real.get(join(root, 'hl/new/file'))).toBe(join(root, 'h/new/file'));
    expect(facts.real.get(join(root, 'plain'))).toBe(join(root, 'plain'));
  });

  it('reads files, says what is missing, too large or not a file', (ctx) => {
    if (withoutRealpath) return ctx.skip();
    const facts = run(
      {
        paths: new Set(),
        files: new Set([join(root, 'x.sh'), join(root, 'none.sh'), join(root, 'big.sh'), join(root, 'h')]),
        git: new Set(),
      },
      withoutRealpath,
    );
    expect(facts.files.get(join(root, 'x.sh'))).toEqual({ kind: 'text', text: 'rm -rf ~\n' });
    expect(facts.files.get(join(root, 'none.sh'))).toEqual({ kind: 'missing' });
    expect(facts.files.get(join(root, 'big.sh'))).toEqual({ kind: 'too_large', size: MAX_PROBED_FILE_BYTES + 1 });
    expect(facts.files.get(join(root, 'h'))?.kind).toBe('unreadable');
  });

  it(
    'a large program (node, a compiled binary) is read as the ' + 'binary it is, not as a script too large to check',
    () => {
      const facts = run({ paths: new Set(), files: new Set([process.execPath]), git: new Set() }, withoutRealpath);
      const fact = facts.files.get(process.execPath);
      expect(fact?.kind).toBe('text');
      expect(fact?.kind === 'text' && fact.text.startsWith('\x7fELF')).toBe(true);
    },
  );

  it('reads git config and the executable hooks of core.hooksPath', (ctx) => {
    if (withoutRealpath) return ctx.skip();
    const facts = run(
      {
        paths: new Set(),
        files: new Set(),
        git: new Set([`hooks:${join(root, 'repo')}`, `config:${join(root, 'repo')}`]),
      },
      withoutRealpath,
    );
    const only = facts.git.get(`config:${join(root, 'repo')}`);
    expect(only?.kind === 'repo' && only.hooks.size === 0 && only.config.some(([k]) => k === 'core.fsmonitor')).toBe(
      true,
    );
    const g = facts.git.get(`hooks:${join(root, 'repo')}`);
    expect(g?.kind).toBe('repo');
    if (g?.kind !== 'repo') return;
    expect(g.config).toContainEqual(['core.fsmonitor', 'echo hi']);
    expect(g.hooksDir).toBe(join(root, 'repo/hooks'));
    expect([...g.hooks.keys()]).toEqual(['pre-commit']);
    expect(g.hooks.get('pre-commit')).toEqual({ kind: 'text', text: '#!/bin/sh\nexit 0\n' });
  });
});

it('says what a recursive delete would reach: tracked work, ignored or untracked output, a file, nothing', () => {
  const ws = join(root, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(ws, 'data'), { recursive: true });
  mkdirSync(join(ws, 'build/x'), { recursive: true });
  mkdirSync(join(root, 'plain-dir'), { recursive: true });
  writeFileSync(join(ws, 'src/a.ts'), 'x');
  writeFileSync(join(ws, 'data/big.csv'), 'x');
  writeFileSync(join(ws, 'build/x/out.js'), 'x');
  writeFileSync(join(ws, '.gitignore'), 'data/\n');
  const git = (...args: string[]) => spawnSync('git', ['-C', ws, ...args], { encoding: 'utf8' });
  git('init', '-q');
  git('add', 'src/a.ts', '.gitignore');
  // A config that runs a program when git reads the index must not run during the look.
  git('config', 'core.fsmonitor', `touch ${join(root, 'fsmonitor-ran')}`);
  const trees = [
    join(ws, 'src'),
    join(ws, 'data'),
    join(ws, 'build'),
    join(ws, 'src/a.ts'),
    join(ws, 'data/big.csv'),
    join(ws, 'gone'),
  ];
  const facts = run(
    { paths: new Set(), files: new Set(), git: new Set(), trees: new Set([...trees, join(root, 'plain-dir')]) },
    false,
  );
  expect(Object.fromEntries(facts.trees ?? [])).toEqual({
    [join(ws, 'src')]: { kind: 'dir', tracked: true, ignored: false },
    [join(ws, 'data')]: { kind: 'dir', tracked: false, ignored: true },
    [join(ws, 'build')]: { kind: 'dir', tracked: false, ignored: false },
    [join(ws, 'src/a.ts')]: { kind: 'file', tracked: true, ignored: false },
    [join(ws, 'data/big.csv')]: { kind: 'file', tracked: false, ignored: true },
    [join(ws, 'gone')]: { kind: 'missing' },
    [join(root, 'plain-dir')]: { kind: 'dir', tracked: false, ignored: false },
  });
  expect(spawnSync('test', ['-e', join(root, 'fsmonitor-ran')]).status).not.toBe(0);
});

it('a file holding the marker of another run cannot fake an answer (each look has its own)', () => {
  writeFileSync(join(root, 'fake.sh'), '__sb_probe_other__ R 0\n/\n');
  const facts = run({ paths: new Set(), files: new Set([join(root, 'fake.sh')]), git: new Set() }, false);
  expect(facts.files.get(join(root, 'fake.sh'))).toEqual({ kind: 'text', text: '__sb_probe_other__ R 0\n/\n' });
});

it('on this machine, a path is resolved without a process', () => {
  expect(realPathOf(join(root, 'ak'))).toBe(join(root, 'h/.ssh/authorized_keys'));
});
