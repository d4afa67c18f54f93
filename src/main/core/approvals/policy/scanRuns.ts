// What a command runs besides its own text: shell text it hands to a shell (`bash -c`, `eval`, `sh -c '…' NAME ARG`),
// a shell function's body where it is called, and, judged by what they hold on the target (probeFacts), the file it
// hands to a shell or an interpreter (`bash F`, `./F`, `. F`), a Makefile's recipes, and the config-named programs and
// hooks git starts. Without probed facts (a check with no target) no file is read and nothing more asks.
import { codeFindings } from './codeRules.js';
import { normalizeCommandText } from './normalizeText.js';
import { resolvePath } from './paths.js';
import { gitKey, MAX_PROBED_FILE_BYTES, type FileFact } from './probeFacts.js';
import type { RuleKit } from './ruleKit.js';
import {
  gitKeyRuns,
  gitRunsHooks,
  gitShellEntries,
  languageOf,
  makeRecipes,
  type MakeCall,
  type ScriptLanguage,
} from './runFiles.js';
import {
  isKnown,
  shown,
  withPositional,
  type Arg,
  type CommandContext,
  type FunctionDef,
  type Produces,
  type ScanScope,
  type ScanState,
} from './scanTypes.js';
import type { ShellNode } from './shellParser.js';

/** How deep scripts that run scripts are read. */
export const MAX_DEPTH = 6;

/**
 * What these judgements need of the scanner besides the rules' kit: reading text at a level, walking a node of it, and
 * where a path leads.
 */
export interface ScanHost extends RuleKit {
  text(text: string, scope: ScanScope): Produces | undefined;
  walk(node: ShellNode, scope: ScanScope, pipeIn: Produces | undefined): Produces | undefined;
  realOf(state: ScanState, lexical: string): string;
}

/** Shell text found inside the command (`bash -c '…'`, `eval …`), parsed and walked one level down. */
export function payload(s: ScanHost, c: CommandContext, text: string, at: Arg, positional?: Arg[]): void {
  const parent = c.scope;
  if (parent.depth >= MAX_DEPTH) {
    s.emit(c, 'dangerous', 'parse.depth', 'nested shell commands too deep to check', at);
    return;
  }
  // A described run-time part (`xargs -I{} sh -c 'rm -rf {}'` fed unknown lines) is read as a variable holding it.
  const described: string[] = [];
  const plain = text.replace(/\uE000\uE006[^\uE006]*\uE006/g, (m) => `\${__sb_described_${described.push(m) - 1}}`);
  const norm = normalizeCommandText(plain);
  const inQuotes = /^(['"])[\s\S]*\1$/.test(at.source) && at.source.slice(1, -1) === text && norm.text === text;
  const vars = positional
    ? withPositional(parent.vars, positional.slice(1), positional[0]?.value)
    : new Map(parent.vars);
  described.forEach((v, i) => vars.set(`__sb_described_${i}`, v));
  const scope: ScanScope = {
    state: parent.state,
    cwd: parent.cwd,
    vars,
    ...(parent.functions ? { functions: parent.functions } : {}),
    depth: parent.depth + 1,
    ...(parent.origin ? { origin: parent.origin } : {}),
    span: inQuotes
      ? (from, to) => parent.span(at.start + 1 + from, at.start + 1 + to)
      : () => parent.span(at.start, at.end),
  };
  s.text(norm.text, scope);
}

/** A function definition: a fork bomb is said at once; the body is kept, to be judged where it is called. */
export function functionDefinition(s: ScanHost, node: ShellNode, scope: ScanScope): void {
  const name = node.childForFieldName('name')?.text ?? '';
  const body = node.childForFieldName('body');
  if (body) {
    const calls = commandsNamed(body, name);
    const viaPipe = calls.some((c) => c.parent?.type === 'pipeline');
    if (calls.length >= 2 || (calls.length === 1 && (viaPipe || /&\s*(;|\}|$)/.test(body.text)))) {
      const c: CommandContext = { scope, at: scope.span(node.startIndex, node.endIndex) };
      s.emit(c, 'hardline', 'forkbomb', `fork bomb: function ${name} starts copies of itself`);
    }
    // Judged where it is called, with the arguments it is given (`f ~` runs `rm -rf "$1"` on the home).
    const def = { body, called: false, span: scope.span };
    (scope.functions ??= new Map()).set(name, def);
    scope.defined?.push(def);
  }
}

/** A call of a shell function defined earlier: its body judged with `$1`, `$2`, `$@` … bound to the call's words. */
export function callFunction(s: ScanHost, c: CommandContext, argv: Arg[], def: FunctionDef): Produces | undefined {
  const name = argv[0]!.value;
  def.called = true;
  if (c.scope.calling?.has(name)) return {};
  const scope: ScanScope = {
    ...c.scope,
    vars: withPositional(c.scope.vars, argv.slice(1), name),
    calling: new Set([...(c.scope.calling ?? []), name]),
    span: def.span,
  };
  const out = s.walk(def.body, scope, c.stdin);
  // A function runs in the caller's shell: a `cd` in it moves the caller.
  c.scope.cwd = scope.cwd;
  return out;
}

function commandsNamed(node: ShellNode, name: string): ShellNode[] {
  const out: ShellNode[] = [];
  const visit = (n: ShellNode): void => {
    if (n.type === 'command' && n.childForFieldName('name')?.text === name) out.push(n);
    for (const child of n.namedChildren) visit(child);
  };
  visit(node);
  return out;
}

export function checkRunsFile(s: ScanHost, c: CommandContext, head: Arg): void {
  const p = s.path(c, head);
  const text = c.scope.state.written.get(p);
  if (text !== undefined) s.payload(c, text, head);
  else runsFile(s, c, head, 'auto', shown(head));
  if (c.scope.state.downloaded.has(p))
    s.emit(c, 'dangerous', 'remote.run-downloaded', `runs a file it just downloaded (${shown(head)})`, head);
  else if (c.scope.state.madeExecutable.has(p))
    s.emit(
      c,
      'dangerous',
      'chmod.then-run',
      `runs a file right after making it executable (chmod +x, then ${shown(head)})`,
      head,
    );
}

/**
 * A file the command runs (`bash F`, `python3 F`, `./F`, `. F`) is judged by what is in it on the target. Without
 * probed facts (a check with no target) nothing is said; with them, a file that could not be read asks.
 */
export function runsFile(
  s: ScanHost,
  c: CommandContext,
  file: Arg,
  language: ScriptLanguage | 'auto',
  label: string,
): void {
  // `bash /dev/stdin <<EOF`: the file is the command's stdin, judged as what feeds it.
  if (isKnown(file) && /^(\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/.test(file.value))
    return runsStdin(s, c, file, language, label);
  if (!isKnown(file) || file.value === '-' || file.value.startsWith('/dev/')) return;
  const lexical = resolvePath(file.value, c.scope.cwd, c.scope.state.home);
  if (c.scope.state.written.has(s.path(c, file))) return;
  c.scope.state.needs?.files.add(lexical);
  const facts = c.scope.state.facts;
  if (!facts) return;
  // What was looked at is what the file held before this command: an earlier part of it wrote the file.
  if (c.scope.state.changed?.has(s.path(c, file))) {
    return s.emit(
      c,
      'dangerous',
      'run.unchecked',
      `runs ${facts.real.get(lexical) ?? lexical} after changing it earlier in the same command, ` +
        `so what it will hold is not known (${label})`,
      file,
    );
  }
  const fact = facts.files.get(lexical);
  const where = facts.real.get(lexical) ?? lexical;
  judgeFile(s, c, fact, where, language, label, file);
}

/** A program told to run its stdin as a file: a heredoc or known text is judged, a file fed with `<` is read. */
function runsStdin(s: ScanHost, c: CommandContext, file: Arg, language: ScriptLanguage | 'auto', label: string): void {
  const stdin = c.stdin;
  if (stdin?.text !== undefined)
    return judgeText(s, c, stdin.text, language === 'auto' ? 'shell' : language, 'stdin', file);
  if (stdin?.file !== undefined) return runsFile(s, c, { ...file, value: stdin.file }, language, label);
  s.emit(c, 'dangerous', 'run.unchecked', `runs what it reads on stdin, which is not known here (${label})`, file);
}

function judgeFile(
  s: ScanHost,
  c: CommandContext,
  fact: FileFact | undefined,
  where: string,
  language: ScriptLanguage | 'auto',
  label: string,
  at: Arg | undefined,
): void {
  const ask = (why: string): void => s.emit(c, 'dangerous', 'run.unchecked', `runs ${where}, ${why} (${label})`, at);
  if (!fact) return ask('whose content could not be looked up');
  if (fact.kind === 'missing')
    return language === 'make' ? undefined : ask('which is not there to be checked before it runs');
  if (fact.kind === 'too_large')
    return ask(`too large to check (${fact.size} bytes; at most ${MAX_PROBED_FILE_BYTES} are read)`);
  if (fact.kind === 'unreadable') return ask(`whose content could not be read to check it: ${fact.problem}`);
  const how = languageOf(fact.text, language);
  if ('binary' in how) return;
  if ('unknown' in how) return ask(`through ${how.unknown}, a language not checked here`);
  judgeText(s, c, fact.text, how.lang, where, at);
}

/** Text run in a language (a script's content, a hook, a git config value) judged as that language. */
function judgeText(
  s: ScanHost,
  c: CommandContext,
  text: string,
  lang: ScriptLanguage,
  origin: string,
  at: Arg | undefined,
): void {
  const parent = c.scope;
  if (parent.depth >= MAX_DEPTH) {
    s.emit(c, 'dangerous', 'parse.depth', 'scripts run by scripts too deep to check', at);
    return;
  }
  const scope: ScanScope = {
    state: parent.state,
    cwd: parent.cwd,
    vars: new Map(),
    depth: parent.depth + 1,
    origin,
    span: () => c.at,
  };
  if (lang === 'shell' || lang === 'make') {
    const shellText = lang === 'make' ? makeRecipes(text, c.make) : text;
    const before = scope.state.findings.length;
    s.text(normalizeCommandText(shellText).text, scope);
    // A Makefile's `$(CC)`-style words make many command names unknown; only what they clearly run counts there.
    if (lang === 'make')
      scope.state.findings.splice(
        before,
        Infinity,
        ...scope.state.findings.slice(before).filter((f) => f.rule !== 'command.computed' && f.rule !== 'parse.failed'),
      );
    return;
  }
  const cc: CommandContext = { scope, at: c.at };
  const { home, profile } = scope.state;
  const place = {
    home,
    ...(scope.cwd ? { cwd: scope.cwd } : {}),
    ...(profile ? { profile } : {}),
    how: `${lang} code`,
  };
  for (const f of codeFindings(text, lang, place, s.codeParsers)) {
    if (f.shell !== undefined) s.payload(cc, f.shell, at ?? { value: f.shell, source: '', start: 0, end: 0 });
    else s.emit(cc, f.severity, f.rule, f.text);
  }
}

/**
 * git runs more than its arguments: `-c` values, the config of the repository it runs in (fsmonitor, pager, `!`
 * aliases, filters), and for commands that change the repository its hooks. Each is judged as what it runs.
 */
export function gitRuns(s: ScanHost, c: CommandContext, argv: Arg[]): void {
  let i = 1;
  let dir = c.scope.cwd;
  const inline: [string, string][] = [];
  for (; i < argv.length && argv[i]!.value.startsWith('-'); i++) {
    const v = argv[i]!.value;
    if (v === '-c' && argv[i + 1]) {
      const m = /^([^=]+)=?([\s\S]*)$/.exec(argv[++i]!.value);
      if (m) inline.push([m[1]!, m[2]!]);
    } else if (v === '-C' && argv[i + 1])
      dir = isKnown(argv[i + 1]!) ? resolvePath(argv[++i]!.value, dir, c.scope.state.home) : (i++, undefined);
    else if (/^--(git-dir|work-tree|namespace|exec-path|config-env)$/.test(v)) i++;
    else if (/^--exec-path=/.test(v))
      s.emit(c, 'dangerous', 'git.exec-path', `runs git's commands from another directory (${v})`, argv[i]);
  }
  const sub = argv[i]?.value;
  const before = c.scope.state.gitConfigChanged === true;
  // `git config k v` for a key that runs something changes what later git commands in the same command run.
  if (sub === 'config') {
    const words = argv.slice(i + 1).filter((a) => !a.value.startsWith('-'));
    const reads = argv
      .slice(i + 1)
      .some((a) => /^(--get|--get-all|--get-regexp|-l|--list|--show-origin|--name-only)$/.test(a.value));
    if (!reads && words.length >= 2 && (!isKnown(words[0]!) || gitKeyRuns(words[0]!.value)))
      c.scope.state.gitConfigChanged = true;
  }
  for (const e of gitShellEntries(inline, sub))
    s.payload(
      { ...c, scope: { ...c.scope, origin: `git -c ${e.key}` } },
      e.text,
      argv.find((a) => a.value.startsWith(`${e.key}=`)) ?? argv[0]!,
    );
  if (!dir || !isKnown(dir)) return;
  const key = gitKey(dir, gitRunsHooks(sub));
  c.scope.state.needs?.git.add(key);
  const git = c.scope.state.facts?.git.get(key);
  if (!c.scope.state.facts) return;
  if (before)
    return s.emit(
      c,
      'dangerous',
      'run.unchecked',
      `runs git after changing its config earlier in the same command, so what it will run is not known`,
      argv[0],
    );
  if (!git)
    return s.emit(
      c,
      'dangerous',
      'run.unchecked',
      `runs git in ${dir}, whose config and hooks could not be looked up`,
      argv[0],
    );
  if (git.kind === 'no_git') return;
  if (git.kind === 'unreadable')
    return s.emit(
      c,
      'dangerous',
      'run.unchecked',
      `runs git in ${dir}, whose config and hooks could not be read: ${git.problem}`,
      argv[0],
    );
  // `-c` given on the command line wins over the file for the same key.
  const given = new Set(inline.map(([k]) => k.toLowerCase()));
  for (const e of gitShellEntries(
    git.config.filter(([k]) => !given.has(k.toLowerCase())),
    sub,
  )) {
    judgeText(s, c, e.text, 'shell', `git config ${e.key}`, argv[0]);
  }
  if (!gitRunsHooks(sub)) return;
  for (const [name, fact] of git.hooks)
    judgeFile(s, c, fact, `${git.hooksDir}/${name}`, 'auto', `git ${sub} runs its ${name} hook`, argv[0]);
}

/** make runs its Makefile's recipes: `-f F`, else GNUmakefile, makefile or Makefile in `-C DIR` or the cwd. */
export function makeRuns(s: ScanHost, c: CommandContext, argv: Arg[]): void {
  let dir = c.scope.cwd;
  const files: Arg[] = [];
  const call: MakeCall = { targets: [], overrides: {} };
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value;
    if ((v === '-f' || v === '--file' || v === '--makefile') && argv[i + 1]) files.push(argv[++i]!);
    else if (/^(-f|--file=|--makefile=)./.test(v))
      files.push({ ...argv[i]!, value: v.replace(/^(-f|--file=|--makefile=)/, '') });
    else if (v === '-C' && argv[i + 1]) {
      const d = argv[++i]!;
      dir = isKnown(d) ? resolvePath(d.value, dir, c.scope.state.home) : undefined;
    } else if (/^-[IoW]$/.test(v) || (/^-[jl]$/.test(v) && /^\d+$/.test(argv[i + 1]?.value ?? ''))) i++;
    else if (v.startsWith('-')) continue;
    else if (/^[A-Za-z_][\w.-]*:?=/.test(v)) {
      const eq = v.indexOf('=');
      call.overrides[v.slice(0, eq).replace(/:$/, '')] = v.slice(eq + 1);
    } else call.targets.push(v);
  }
  if (!dir) return;
  const mc: CommandContext = { ...c, make: call };
  const inDir = (name: string): Arg => ({ ...argv[0]!, value: `${dir}/${name}` });
  if (files.length) {
    for (const f of files) runsFile(s, { ...mc, scope: { ...c.scope, cwd: dir } }, f, 'make', `make -f ${shown(f)}`);
    return;
  }
  // The first of these that exists is the one make reads.
  const candidates = ['GNUmakefile', 'makefile', 'Makefile'].map(inDir);
  const facts = c.scope.state.facts;
  const found =
    facts && candidates.find((f) => facts.files.get(resolvePath(f.value, dir, c.scope.state.home))?.kind !== 'missing');
  if (!facts) for (const f of candidates) runsFile(s, mc, f, 'make', 'make');
  else if (found) runsFile(s, mc, found, 'make', 'make');
}
