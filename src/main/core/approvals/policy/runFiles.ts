// What a command runs besides its own text: the script file it hands to a shell or an interpreter, a Makefile's
// recipes, and the hooks and config-named programs git starts. Pure: the content comes from the probe (probeFacts).
import type { Arg, MakeCall } from './scanTypes.js';

export type { MakeCall };

export type ScriptLanguage = 'shell' | 'python' | 'node' | 'perl' | 'ruby' | 'make';

/** How a file will be read: a language, a compiled program (not judged), or an interpreter nothing here reads. */
export type FileLanguage = { lang: ScriptLanguage } | { binary: true } | { unknown: string };

const byInterpreter: ReadonlyArray<readonly [RegExp, ScriptLanguage]> = [
  [/^(sh|bash|zsh|dash|ksh|mksh|ash|rbash|yash|busybox)$/, 'shell'],
  [/^(python[\d.]*|pypy[\d.]*)$/, 'python'],
  [/^(node|nodejs|deno|bun|tsx|ts-node)$/, 'node'],
  [/^perl[\d.]*$/, 'perl'],
  [/^ruby[\d.]*$/, 'ruby'],
  [/^g?make$/, 'make'],
];

/** The language of a program name (`python3.12` → python), if it is one read here. */
export function languageOfProgram(name: string): ScriptLanguage | undefined {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return byInterpreter.find(([re]) => re.test(base))?.[1];
}

/**
 * The language a file runs in: as the command says (`bash F`), or for a file run by its name (`./F`) by its `#!`
 * line; without one, a text file is run by the shell (execve fails, the shell reads it itself).
 */
export function languageOf(text: string, declared: ScriptLanguage | 'auto'): FileLanguage {
  if (declared !== 'auto') return { lang: declared };
  if (text.slice(0, 1024).includes('\0')) return { binary: true };
  const m = /^#!\s*(\S+)(?:[ \t]+(.*))?/.exec(text);
  if (!m) return { lang: 'shell' };
  const words = [m[1]!, ...(m[2] ?? '').trim().split(/\s+/).filter(Boolean)];
  // `#!/usr/bin/env [-S] python3 -u`: the program is the first word that is not env or one of its options.
  const program = /(^|\/)env$/.test(words[0]!)
    ? words.slice(1).find((w) => !w.startsWith('-') && !w.includes('='))
    : words[0];
  const lang = program ? languageOfProgram(program) : undefined;
  return lang ? { lang } : { unknown: program ?? m[1]! };
}

/** Options (per interpreter) whose value is the next word, so that word is not the script. */
const valueOptions: Record<'python' | 'node' | 'perl' | 'ruby', RegExp> = {
  python: /^-[WXQ]$/,
  node: new RegExp(
    '^(-r|--require|--import|--loader|--experimental-loader|-C|--conditions|--env-file|--input-type|' +
      '--title|--stack-size)$',
  ),
  perl: /^-[IMmx]$/,
  ruby: /^-[IrCEWx]$|^--(encoding|external-encoding|internal-encoding)$/,
};

/**
 * The script an interpreter runs from a file (`python3 -u x.py` → x.py); none when it runs a module, code from
 * an option, or stdin.
 */
export function scriptOperand(lang: 'python' | 'node' | 'perl' | 'ruby', argv: readonly Arg[]): Arg | undefined {
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value;
    if (v === '--') return argv[i + 1];
    if (v === '-') return undefined;
    if (
      (lang === 'python' && /^-[a-zA-Z]*[cm]$/.test(v)) ||
      (lang === 'node' && /^(-e|--eval|-p|--print)$/.test(v)) ||
      ((lang === 'perl' || lang === 'ruby') && /^-[a-zA-Z]*[eE]$/.test(v))
    )
      return undefined;
    if (valueOptions[lang].test(v)) {
      i++;
      continue;
    }
    if (!v.startsWith('-')) return argv[i];
  }
  return undefined;
}

/** Make's own variables as GNU make sets them, for recipes that use them (`$(RM) -r build`). */
const makeDefaults: Record<string, string> = {
  RM: 'rm -f',
  MAKE: 'make',
  CC: 'cc',
  CXX: 'g++',
  CPP: 'cc -E',
  AR: 'ar',
  AS: 'as',
  LD: 'ld',
  INSTALL: 'install',
  SHELL: '/bin/sh',
  MKDIR: 'mkdir',
  CP: 'cp',
  MV: 'mv',
};

interface MakeRule {
  targets: string[];
  prereqs: string[];
  recipes: string[];
}

/**
 * The recipes a make command will run, as shell text, one command a line: those of its goals and everything they
 * depend on (all of them when a goal has no rule of its own, and every pattern rule's, which may build anything).
 * Simple variables (`X = …`, `:=`, `?=`, `+=`), command-line overrides and make's defaults are expanded; automatic
 * variables and functions (`$@`, `$(shell …)`) stay a placeholder word; `$$` is `$`.
 */
export function makeRecipes(text: string, call: MakeCall = { targets: [], overrides: {} }): string {
  const vars = new Map(Object.entries(makeDefaults));
  const expand = (s: string, depth = 0): string =>
    s.replace(/\$\$|\$\(([^()]*)\)|\$\{([^{}]*)\}|\$([@<^*?%+|])/g, (all, a?: string, b?: string) => {
      if (all === '$$') return '\0DOLLAR\0';
      const name = a ?? b;
      if (name === undefined) return 'MAKE_AUTO';
      const known = vars.get(name.trim());
      if (known !== undefined && depth < 8) return expand(known, depth + 1);
      return 'MAKE_VALUE';
    });
  const rules: MakeRule[] = [];
  let current: MakeRule | undefined;
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    if (line.startsWith('\t')) {
      current?.recipes.push(line.slice(1).replace(/^[@+-]+/, ''));
      continue;
    }
    if (/^\s*(#|$)/.test(line)) continue;
    const assign = /^(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(\?=|:=|::=|\+=|=)\s*(.*)$/.exec(line);
    if (assign) {
      const [, name, op, value] = assign;
      current = undefined;
      if (name! in call.overrides || (op === '?=' && vars.has(name!) && !(name! in makeDefaults))) continue;
      vars.set(name!, op === '+=' ? `${vars.get(name!) ?? ''} ${value}`.trim() : value!.trim());
      continue;
    }
    const rule = /^([^:#=]+?)\s*::?\s*([^=]*)$/.exec(line);
    if (!rule) continue;
    const [deps, inline] = rule[2]!.split(';', 2) as [string, string | undefined];
    current = {
      targets: expand(rule[1]!).split(/\s+/).filter(Boolean),
      prereqs: expand(deps).split(/\s+/).filter(Boolean),
      recipes: inline?.trim() ? [inline.trim()] : [],
    };
    rules.push(current);
  }
  for (const [k, v] of Object.entries(call.overrides)) vars.set(k, v);
  const chosen = new Set<MakeRule>(rules.filter((r) => r.targets.some((t) => t.includes('%'))));
  const goals = call.targets.length
    ? call.targets
    : (rules.find((r) => r.targets.some((t) => !t.startsWith('.') && !t.includes('%')))?.targets.slice(0, 1) ?? []);
  const queue = [...goals];
  for (const seen = new Set<string>(); queue.length; ) {
    const goal = queue.shift()!;
    if (seen.has(goal)) continue;
    seen.add(goal);
    const own = rules.filter((r) => r.targets.includes(goal));
    // A goal with no rule of its own may be built by anything: every recipe is judged.
    if (own.length === 0 && call.targets.includes(goal)) rules.forEach((r) => chosen.add(r));
    for (const r of own) {
      chosen.add(r);
      queue.push(...r.prereqs);
    }
  }
  return rules
    .filter((r) => chosen.has(r))
    .flatMap((r) => r.recipes)
    .map((l) => expand(l).replaceAll('\0DOLLAR\0', '$'))
    .join('\n');
}

/** Git subcommands that read and show only: they run no hook (config-named programs, such as fsmonitor, still run). */
const gitReadOnly = new RegExp(
  '^(status|log|diff|show|ls-files|ls-tree|ls-remote|rev-parse|rev-list|blame|grep|describe|shortlog|' +
    'cat-file|config|help|version|--version|-v|whatchanged|reflog|show-ref|for-each-ref|var|' +
    'check-ignore|name-rev|count-objects)$',
);

/**
 * Does this git subcommand run hooks? (Any that changes refs or the work tree may: commit, merge, checkout, push, …)
 */
export function gitRunsHooks(sub: string | undefined): boolean {
  return sub !== undefined && !gitReadOnly.test(sub);
}

/** Config keys whose value git runs as a shell command (or a program) for some subcommand. */
const runsShell = new RegExp(
  String.raw`^(core\.(fsmonitor|pager|editor|sshcommand|askpass|gitproxy)|sequence\.editor|pager\.[^.]+|` +
    String.raw`diff\.external|diff\.[^.]+\.(textconv|command)|filter\.[^.]+\.(clean|smudge|process)|` +
    String.raw`merge\.[^.]+\.driver|mergetool\.[^.]+\.cmd|difftool\.[^.]+\.cmd|credential(\..+)?\.helper|` +
    String.raw`gpg(\.[^.]+)?\.program|uploadpack\.packobjectshook|interactive\.difffilter|sendemail\.(smtpserver|` +
    String.raw`tocmd|cccmd)|remote\.[^.]+\.(uploadpack|receivepack|proxy)|core\.hookspath)$`,
);

/** Does setting this config key change what git runs (a program it starts, an alias, where hooks are)? */
export function gitKeyRuns(key: string): boolean {
  const k = key.toLowerCase();
  return (
    runsShell.test(k) ||
    k.startsWith('alias.') ||
    k === 'core.hookspath' ||
    k.startsWith('include') ||
    k === 'core.worktree'
  );
}

/**
 * The shell text git config will run for a subcommand, with where it comes from: config-named programs (any git
 * command may start a pager, fsmonitor, a filter), and the `!` alias the subcommand names. A value that names a
 * built-in (`core.fsmonitor=true`, `credential.helper=store`) runs nothing of the config's own.
 */
export function gitShellEntries(
  config: ReadonlyArray<readonly [string, string]>,
  sub: string | undefined,
): { key: string; text: string }[] {
  const out: { key: string; text: string }[] = [];
  for (const [rawKey, value] of config) {
    const key = rawKey.toLowerCase();
    if (key === `alias.${sub?.toLowerCase()}`) {
      if (value.startsWith('!')) out.push({ key: rawKey, text: value.slice(1) });
      continue;
    }
    if (!runsShell.test(key) || key === 'core.hookspath' || value.trim() === '') continue;
    if (/^(true|false|yes|no|on|off|0|1)$/i.test(value.trim())) continue;
    if (/\.helper$/.test(key) && !value.startsWith('!') && !value.startsWith('/')) continue;
    out.push({ key: rawKey, text: value.startsWith('!') ? value.slice(1) : value });
  }
  return out;
}
