// Walks the bash syntax tree of a command: every simple command in lists, pipelines, subshells, `$( )`,
// backticks, brace groups, process substitutions, loops and function bodies is unwrapped and judged by
// the rules; nested shell text (`bash -c`, `eval`, decoded payloads) is parsed and walked the same way.
import type { CodeParsers } from './code/codeParsers.js';
import { normalizeCommandText } from './normalizeText.js';
import { isBlockDevice, profileFinding, resolvePath, sensitiveWrite, vitalPath } from './paths.js';
import { commandName, type RuleExamples, type RuleKit } from './ruleKit.js';
import { rules, wrappers } from './rules/index.js';
import {
  ARGS_SEP,
  DESCRIBED,
  isKnown,
  shown,
  UNKNOWN,
  type FunctionDef,
  type Arg,
  type CommandContext,
  type Finding,
  type Produces,
  type ScanScope,
  type ScanState,
  describe,
} from './scanTypes.js';
import type { ShellNode, ShellParser } from './shellParser.js';
import { evalAssignedValue, evalWord, type WordEnv } from './words.js';
import { checkArgsForMetadata } from './rules/networkRules.js';
import { checkSecretReads } from './rules/secretRules.js';
import { commandVariable, floodLoop } from './rules/escapeRules.js';
import { clobber, emptiesOutput, printsForever } from './rules/writeRules.js';
import { carriedFile, checkSinks, secretOutput } from './rules/leakRules.js';
import { gitKey, MAX_PROBED_FILE_BYTES, type FileFact, type ProbeFacts, type ProbeNeeds } from './probeFacts.js';
import {
  gitKeyRuns,
  gitRunsHooks,
  gitShellEntries,
  languageOf,
  makeRecipes,
  type MakeCall,
  type ScriptLanguage,
} from './runFiles.js';
import { codeFindings } from './codeRules.js';
import { posix } from 'node:path';
import type { RuleId } from './ruleIds.js';

/** The scanner's own checks (not a command's rule): their examples, run with the rules' by ruleExamples.test.ts. */
export const scannerExamples: RuleExamples = {
  'command.computed': { match: ['$(echo $CMD) -rf x', '"$TOOL" build'], notMatch: ['$(echo rm) notes.txt'] },
  'network.devtcp': {
    match: ['cat < /dev/tcp/203.0.113.7/80', 'echo hi > /dev/udp/10.0.0.1/53'],
    notMatch: ['cat /dev/null'],
  },
  'parse.failed': { match: ['echo "unclosed'], notMatch: ['echo "closed"'] },
  'power.sysrq': { match: ['echo b > /proc/sysrq-trigger'], notMatch: ['cat /proc/loadavg'] },
  'profile.read': {
    match: ['cat ~/.switchboard/core.json', 'tar czf x.tgz ~/.switchboard'],
    notMatch: ['cat ~/.switchboard/config.yaml', 'ls ~/.switchboard'],
  },
  'profile.tree': { match: ['grep -r token ~', 'tar czf home.tgz ~'], notMatch: ['grep -r token src'] },
  'profile.write': {
    match: ["echo '{}' > ~/.switchboard/approvals.json", 'rm -rf ~/.switchboard'],
    notMatch: ['echo x > notes/.switchboard/config.yaml'],
  },
  'git.exec-path': { match: ['git --exec-path=/tmp/git status'], notMatch: ['git --exec-path'] },
  'disk.fill': { match: ['yes > big.txt', 'cat /dev/zero > fill.bin'], notMatch: ['yes | head -3 > y.txt'] },
  // Indirect targets: a function's $1, `sh -c '…' _ ARG`, find -exec's {} and xargs -I's input, resolved or said.
  'delete.vital': {
    match: [
      'f() { rm -rf "$1"; }; f ~',
      'run() { "$@"; }; run rm -rf /',
      'sh -c \'rm -rf "$1"\' _ ~',
      'find ~ -maxdepth 0 -exec sh -c \'rm -rf "$0"\' {} \\;',
      "echo / | xargs -I{} sh -c 'rm -rf {}'",
    ],
    notMatch: ['f() { rm -rf "$1"; }; f dist', "echo dist | xargs -I{} sh -c 'rm -rf {}'"],
  },
  'delete.xargs': {
    match: ['git ls-files | xargs -I{} sh -c \'rm "{}"\''],
    notMatch: ["ls | xargs -I{} sh -c 'wc -l {}'"],
  },
  forkbomb: {
    match: ['while true; do sleep 1 & done', 'for i in $(seq 1 100000); do sleep 9 & done'],
    notMatch: ['while true; do sleep 1; done'],
  },
};

const MAX_DEPTH = 6;
const NODE_BUDGET = 50_000;

/** Commands that copy, pack, send or search everything under a directory they are given. */
const treeReaders = new Set([
  'tar',
  'gtar',
  'bsdtar',
  '7z',
  '7za',
  'cpio',
  'pax',
  'rgrep',
  'rg',
  'ag',
  'ack',
  'git',
  'duplicity',
  'restic',
  'borg',
  'rclone',
]);
/** … and those that do only when told to recurse (`cp -r`, `grep -R`, `zip -r`, `rsync -a`), or find with an action. */
const treeReadersWhenRecursive = new Set(['cp', 'gcp', 'scp', 'rsync', 'zip', 'grep', 'egrep', 'fgrep']);
const recursiveFlag = /^(-[a-zA-Z]*[rRa][a-zA-Z]*|--recursive|--archive|--dereference-recursive)$/;
const findAction = /^-(exec|execdir|ok|okdir|delete|fprint0?|fprintf|fls)$/;
/** Commands that name a file without reading what is in it (is a Core running: `test -f …/core.json`). */
const namesOnly = new Set([
  'ls',
  'stat',
  'test',
  '[',
  '[[',
  'echo',
  'printf',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'file',
]);
/** Commands that act on a link itself, not where it leads (`rm -rf link` removes the link). */
const ownLinks = new Set(['rm', 'unlink', 'rmdir', 'mv', 'rimraf', 'find', 'trash', 'trash-put', 'gio']);
/** Commands whose path argument only moves where later paths are looked up. */
const nameLinks = new Set(['cd', 'pushd']);
/** Paths that are never links worth a look. */
const notProbed = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+|full|random|urandom)$/;

/** What a scan may be given besides the text: the target's home, cwd, profile, probed facts, and a shell's state. */
export interface ScanOptions {
  home: string;
  cwd?: string;
  profile?: string;
  facts?: ProbeFacts;
  /** Filled with what the scan wanted to look up on the target. */
  needs?: ProbeNeeds;
  /** A long-lived shell's variables and cwd (a background shell's stdin): read, and changed by what the text does. */
  session?: { vars: Map<string, string>; cwd?: string };
}

/**
 * What a heredoc feeds its command: the body without its closing delimiter line. Cut at the last newline rather than
 * by a regex anchored at the end, which tries every start of a long last line (seconds for one of 64 KiB).
 */
function heredocText(body: string): string {
  const end = body.lastIndexOf('\n');
  return end < 0 ? '\n' : `${body.slice(0, end)}\n`;
}

export class ShellScanner implements RuleKit {
  /** What each `$(…)` and `<(…)` produced, by its start offset in the text being walked. */
  private subs = new WeakMap<ScanScope, Map<number, Produces>>();

  constructor(
    private readonly parser: ShellParser,
    readonly codeParsers?: CodeParsers,
  ) {}

  scan(command: string, opts: ScanOptions): ScanState {
    // The workspace is where the command starts, unless that is `/` or a system directory: an agent that picks
    // `workdir: /` does not make the whole machine its own.
    const workspace = opts.cwd === undefined ? undefined : resolvePath(opts.cwd, undefined, opts.home);
    const owned = workspace !== undefined && !['root', 'system'].includes(vitalPath(workspace, opts.home)?.kind ?? '');
    const state: ScanState = {
      home: opts.home,
      ...(owned ? { workspace } : {}),
      ...(opts.profile ? { profile: opts.profile } : {}),
      findings: [],
      downloaded: new Set(),
      written: new Map(),
      madeExecutable: new Set(),
      budget: NODE_BUDGET,
      ...(opts.facts ? { facts: opts.facts } : {}),
      ...(opts.needs ? { needs: opts.needs } : {}),
    };
    const norm = normalizeCommandText(command);
    const cwd = opts.session ? (opts.session.cwd ?? opts.cwd) : opts.cwd;
    const scope: ScanScope = {
      state,
      cwd,
      vars: opts.session?.vars ?? new Map(),
      functions: new Map(),
      depth: 0,
      span: (s, e) => [norm.map[s] ?? command.length, norm.map[e] ?? command.length],
    };
    this.text(norm.text, scope);
    if (opts.session) opts.session.cwd = scope.cwd;
    return state;
  }

  private text(text: string, scope: ScanScope): Produces | undefined {
    const tree = this.parser.parse(text);
    try {
      const root = tree.rootNode;
      // tree-sitter-bash rejects a brace expansion in command position (`{rm,-rf,/}`); bash runs it as words.
      const braced = root.hasError
        ? text.replace(
            /(^|[\s;&|(])\{([^{}\s'"]*,[^{}\s'"]*)\}(?=$|[\s;&|)])/g,
            (_, pre: string, items: string) => pre + items.split(',').join(' '),
          )
        : text;
      if (braced !== text && scope.depth < MAX_DEPTH) {
        const at = { value: braced, source: text, start: 0, end: text.length };
        const c: CommandContext = { scope, at: scope.span(0, text.length) };
        this.payload(c, braced, at);
      }
      if (root.hasError) {
        const bad = firstError(root);
        const near = bad ? JSON.stringify(text.slice(bad.startIndex, Math.min(bad.endIndex, bad.startIndex + 20))) : '';
        scope.state.parseFailed ??= near;
        this.findingAt(
          scope,
          'dangerous',
          'parse.failed',
          `could not be parsed as shell${bad?.isMissing ? `: missing ${bad.type}` : near ? ` near ${near}` : ''}`,
          bad ? scope.span(bad.startIndex, bad.endIndex) : undefined,
        );
      }
      scope.defined = [];
      const out = this.walk(root, scope, undefined);
      // A function never called here may be called later (a background shell's next line): its body is judged as it
      // stands, its arguments unknown.
      for (const f of scope.defined)
        if (!f.called) this.walk(f.body, { ...scope, vars: withPositional(scope.vars, []) }, undefined);
      return out;
    } finally {
      tree.delete();
    }
  }

  private findingAt(
    scope: ScanScope,
    severity: Finding['severity'],
    rule: RuleId,
    said: string,
    span: [number, number] | undefined,
  ): void {
    const f = scope.state.findings;
    // A value known only at run time never shows as an invisible mark: a rule that did not name it says `…`, or what it
    // will hold.
    const text = describe(scope.origin ? `${said} in ${scope.origin}` : said);
    if (f.some((x) => x.text === text && x.rule === rule)) return;
    f.push(span ? { severity, rule, text, span } : { severity, rule, text });
  }

  /** `consumed`: what the node prints feeds another command (a pipeline stage before the last, or `$(…)`). */
  private walk(
    node: ShellNode,
    scope: ScanScope,
    pipeIn: Produces | undefined,
    consumed = false,
  ): Produces | undefined {
    if (--scope.state.budget < 0) {
      if (scope.state.budget === -1)
        this.findingAt(scope, 'dangerous', 'parse.too_large', 'too large to check', undefined);
      return undefined;
    }
    switch (node.type) {
      case 'command':
        return this.command(node, scope, pipeIn, [], consumed);
      case 'redirected_statement': {
        const body = node.childForFieldName('body');
        const redirects = node.namedChildren.filter((c) => c !== body && c.type.endsWith('redirect'));
        if (body?.type === 'command')
          return this.afterHeredocs(redirects, scope, this.command(body, scope, pipeIn, redirects, consumed));
        const c: CommandContext = { scope, at: scope.span(node.startIndex, node.endIndex) };
        let overwrites: Arg[] = [];
        const stdin = this.redirects(redirects, c, [], overwrites);
        const before = scope.cwd;
        const out = body ? this.walk(body, scope, stdin ?? pipeIn, consumed) : undefined;
        // tree-sitter hangs `cd x && echo > f`'s redirect on the whole list; bash opens f after the cd.
        if (scope.cwd !== before) this.redirects(redirects, c, [], (overwrites = []));
        for (const w of overwrites) clobber(this, c, w, '>', !body);
        return this.afterHeredocs(redirects, scope, out);
      }
      case 'pipeline': {
        let prev = pipeIn;
        const stages = node.namedChildren;
        stages.forEach((stage, i) => {
          prev = this.walk(stage, scope, prev, consumed || i < stages.length - 1) ?? {};
        });
        return prev;
      }
      case 'variable_assignment':
        this.assign(node, scope);
        return undefined;
      case 'declaration_command': {
        const children = node.namedChildren;
        for (const child of children) this.walk(child, scope, undefined);
        // `export -p`, `declare -x`, `typeset` with no names print the variables, secrets too.
        if (!consumed || children.some((n) => n.type === 'variable_assignment' || n.type === 'variable_name'))
          return undefined;
        const words = children;
        const secret = secretOutput([
          { value: node.children[0]?.type ?? 'export', source: '', start: 0, end: 0 },
          ...words.map((n) => ({ value: n.text, source: n.text, start: n.startIndex, end: n.endIndex })),
        ]);
        return secret === undefined ? {} : { by: 'export', secret };
      }
      case 'function_definition':
        this.functionDefinition(node, scope);
        return undefined;
      case 'for_statement':
        return this.forLoop(node, scope);
      case 'while_statement':
      case 'c_style_for_statement':
        // A loop that never ends and starts a background process each time floods the machine.
        if (floodLoop(node))
          this.findingAt(
            scope,
            'hardline',
            'forkbomb',
            'process flood: an endless loop starts a background process on every pass',
            scope.span(node.startIndex, node.endIndex),
          );
        for (const child of node.namedChildren) this.walk(child, scope, undefined);
        return undefined;
      case 'comment':
      case 'heredoc_body':
      case 'heredoc_start':
      case 'heredoc_end':
        return undefined;
      case 'command_substitution':
      case 'process_substitution': {
        let last: Produces | undefined;
        for (const child of node.namedChildren) last = this.walk(child, scope, undefined, true) ?? last;
        const out = last ?? {};
        this.subsOf(scope).set(node.startIndex, out);
        return out;
      }
      default: {
        let last: Produces | undefined;
        // A group's output is all its commands' (`{ cat .env; echo; } | nc …` sends the .env too).
        let secret: string | undefined;
        const group = node.type === 'subshell' || node.type === 'compound_statement';
        for (const child of node.namedChildren) {
          last = this.walk(child, scope, undefined, group && consumed);
          secret ??= last?.secret;
        }
        if (!group) return undefined;
        return secret !== undefined ? { ...last, secret } : (last ?? {});
      }
    }
  }

  private subsOf(scope: ScanScope): Map<number, Produces> {
    let m = this.subs.get(scope);
    if (!m) this.subs.set(scope, (m = new Map()));
    return m;
  }

  private wordEnv(scope: ScanScope): WordEnv {
    return {
      home: scope.state.home,
      ...(scope.state.profile ? { profile: scope.state.profile } : {}),
      cwd: scope.cwd,
      vars: scope.vars,
      staticOutput: (n) => this.subsOf(scope).get(n.startIndex)?.text?.replace(/\n+$/, ''),
    };
  }

  private wordsOf(node: ShellNode, scope: ScanScope): Arg[] {
    return evalWord(node, this.wordEnv(scope));
  }

  private assign(node: ShellNode, scope: ScanScope): void {
    const name = node.childForFieldName('name')?.text ?? '';
    this.walkSubstitutions(node, scope);
    const value = evalAssignedValue(node.childForFieldName('value'), this.wordEnv(scope));
    if (value === undefined) scope.vars.delete(name);
    else scope.vars.set(name, value);
    this.checkAssignment(name, value, scope, node);
  }

  private checkAssignment(name: string, value: string | undefined, scope: ScanScope, node: ShellNode): void {
    if (name === 'DOCKER_HOST' || name === 'DOCKER_CONTEXT') {
      this.findingAt(
        scope,
        'dangerous',
        'docker.host',
        `points docker at another daemon (${name}=${value ?? '…'})`,
        scope.span(node.startIndex, node.endIndex),
      );
    }
    if ((name === 'LD_PRELOAD' || name === 'LD_LIBRARY_PATH') && value !== '') {
      this.findingAt(
        scope,
        'dangerous',
        'env.preload',
        `loads a library into every program (${name})`,
        scope.span(node.startIndex, node.endIndex),
      );
    }
    const v = node.childForFieldName('value');
    if (v && value !== undefined)
      commandVariable(
        name,
        { value, source: v.text, start: v.startIndex, end: v.endIndex },
        { scope, at: scope.span(node.startIndex, node.endIndex) },
        this,
      );
  }

  private functionDefinition(node: ShellNode, scope: ScanScope): void {
    const name = node.childForFieldName('name')?.text ?? '';
    const body = node.childForFieldName('body');
    if (body) {
      const calls = commandsNamed(body, name);
      const viaPipe = calls.some((c) => c.parent?.type === 'pipeline');
      if (calls.length >= 2 || (calls.length === 1 && (viaPipe || /&\s*(;|\}|$)/.test(body.text)))) {
        this.findingAt(
          scope,
          'hardline',
          'forkbomb',
          `fork bomb: function ${name} starts copies of itself`,
          scope.span(node.startIndex, node.endIndex),
        );
      }
      // Judged where it is called, with the arguments it is given (`f ~` runs `rm -rf "$1"` on the home).
      const def = { body, called: false, span: scope.span };
      (scope.functions ??= new Map()).set(name, def);
      scope.defined?.push(def);
    }
  }

  /** A call of a shell function defined earlier: its body judged with `$1`, `$2`, `$@` … bound to the call's words. */
  private callFunction(c: CommandContext, argv: Arg[], def: FunctionDef): Produces | undefined {
    const name = argv[0]!.value;
    def.called = true;
    if (c.scope.calling?.has(name)) return {};
    const scope: ScanScope = {
      ...c.scope,
      vars: withPositional(c.scope.vars, argv.slice(1), name),
      calling: new Set([...(c.scope.calling ?? []), name]),
      span: def.span,
    };
    const out = this.walk(def.body, scope, c.stdin);
    // A function runs in the caller's shell: a `cd` in it moves the caller.
    c.scope.cwd = scope.cwd;
    return out;
  }

  private forLoop(node: ShellNode, scope: ScanScope): Produces | undefined {
    if (floodLoop(node))
      this.findingAt(
        scope,
        'hardline',
        'forkbomb',
        'process flood: a loop starts ten thousand background processes or more',
        scope.span(node.startIndex, node.endIndex),
      );
    const variable = node.childForFieldName('variable')?.text ?? '';
    for (const v of node.childrenForFieldName('value')) this.walkSubstitutions(v, scope);
    const values = node.childrenForFieldName('value').flatMap((v) => this.wordsOf(v, scope));
    const body = node.childForFieldName('body');
    if (!body) return undefined;
    // A loop over a few literals runs its body with each: `for c in rm; do $c -rf /; done`.
    if (values.length > 0 && values.length <= 4 && values.every(isKnown)) {
      for (const v of values) {
        scope.vars.set(variable, v.value);
        this.walk(body, scope, undefined);
      }
    } else {
      scope.vars.delete(variable);
      this.walk(body, scope, undefined);
    }
    return undefined;
  }

  /** Walks every `$(…)`, backtick and `<(…)` inside a command's words, outside-in. */
  private walkSubstitutions(node: ShellNode, scope: ScanScope): void {
    if (node.type === 'command_substitution' || node.type === 'process_substitution') {
      this.walk(node, scope, undefined);
      return;
    }
    for (const child of node.namedChildren) if (child.namedChildCount > 0) this.walkSubstitutions(child, scope);
  }

  private command(
    node: ShellNode,
    scope: ScanScope,
    pipeIn: Produces | undefined,
    outer: ShellNode[],
    consumed: boolean,
  ): Produces | undefined {
    this.walkSubstitutions(node, scope);
    const argv: Arg[] = [];
    const inner: ShellNode[] = [];
    let env: Map<string, string> | undefined;
    for (const child of node.namedChildren) {
      if (child.type === 'variable_assignment') {
        const name = child.childForFieldName('name')?.text ?? '';
        const value = evalAssignedValue(child.childForFieldName('value'), this.wordEnv(scope));
        if (value !== undefined) (env ??= new Map()).set(name, value);
        this.checkAssignment(name, value, scope, child);
      } else if (child.type.endsWith('redirect')) inner.push(child);
      else if (child.type === 'command_name') argv.push(...this.wordsOf(child.namedChildren[0] ?? child, scope));
      else if (child.type !== 'comment') argv.push(...this.wordsOf(child, scope));
    }
    const c: CommandContext = {
      scope,
      at: scope.span(node.startIndex, node.endIndex),
      ...(env ? { env } : {}),
      ...(consumed ? { consumed: true } : {}),
    };
    const writes: Arg[] = [];
    const overwrites: Arg[] = [];
    const stdin = this.redirects([...inner, ...outer], c, writes, overwrites);
    c.stdin = stdin ?? pipeIn;
    if (argv.length === 0) {
      for (const w of overwrites) clobber(this, c, w, '>', true);
      return undefined;
    }
    checkArgsForMetadata(argv, c, this);
    this.checkProfileReads(c, argv);
    checkSecretReads(argv, c, this);
    const out = this.run(c, argv);
    for (const w of overwrites) clobber(this, c, w, '>', emptiesOutput(argv, out));
    if (printsForever(argv))
      for (const w of writes)
        if (!/^\/dev\/(null|zero)$/.test(this.path(c, w)))
          this.emit(
            c,
            'dangerous',
            'disk.fill',
            `fills the disk: ${argv[0]!.value} never stops writing to ${shown(w)}`,
            w,
          );
    // `curl … > install.sh` downloads as surely as `curl -o install.sh`.
    if (out?.fetched) for (const w of writes) scope.state.downloaded.add(this.path(c, w));
    // Known text written to a file is what running that file later runs.
    if (out?.text !== undefined)
      for (const w of writes)
        scope.state.written.set(this.path(c, w), (scope.state.written.get(this.path(c, w)) ?? '') + out.text);
    return out;
  }

  isWrapper(name: string): boolean {
    return wrappers.get(name) !== undefined;
  }

  /**
   * What follows a heredoc's start on its line: tree-sitter hangs it inside the heredoc redirect (`cat <<EOF | sh`,
   * `cat <<EOF && rm -rf /`), not beside the command, so it is walked here — a pipeline fed by what the command
   * produced, the right side of `&&`/`||` on its own. Returns what the statement as a whole produces.
   */
  private afterHeredocs(redirects: ShellNode[], scope: ScanScope, out: Produces | undefined): Produces | undefined {
    let produced = out;
    for (const r of redirects) {
      if (r.type !== 'heredoc_redirect') continue;
      const right = r.childForFieldName('right');
      for (const child of r.namedChildren) {
        if (/^heredoc_(start|body|end)$/.test(child.type) || child.type.endsWith('redirect')) continue;
        produced =
          right && child.id === right.id ? this.walk(child, scope, undefined) : this.walk(child, scope, produced);
      }
    }
    return produced;
  }

  /** Checks where redirects write, and returns what a heredoc, here-string or `< file` feeds the command. */
  private redirects(
    nodes: ShellNode[],
    c: CommandContext,
    writes: Arg[] = [],
    overwrites: Arg[] = [],
  ): Produces | undefined {
    let stdin: Produces | undefined;
    for (const r of nodes) {
      this.walkSubstitutions(r, c.scope);
      if (r.type === 'heredoc_redirect') {
        const body = r.namedChildren.find((n) => n.type === 'heredoc_body');
        stdin = { text: body ? heredocText(body.text) : '' };
        const nested = r.namedChildren.filter((n) => n.type === 'file_redirect');
        if (nested.length) this.redirects(nested, c, writes, overwrites);
        continue;
      }
      if (r.type === 'herestring_redirect') {
        const word = r.namedChildren.find((n) => n.type !== 'file_descriptor');
        const args = word ? this.wordsOf(word, c.scope) : [];
        const text = args.map((a) => a.value).join(' ');
        stdin = isKnown(text) ? { text: text + '\n' } : ((word && this.produced(c, args[0]!)) ?? {});
        continue;
      }
      if (r.type !== 'file_redirect') continue;
      const op = r.children.find((n) => !n.isNamed && /[<>]/.test(n.type))?.type ?? '>';
      const dest = r.childForFieldName('destination');
      if (!dest || dest.type === 'number' || dest.text === '-') continue;
      const args = this.wordsOf(dest, c.scope);
      const a = args[0] ?? { value: UNKNOWN, source: dest.text, start: dest.startIndex, end: dest.endIndex };
      if (/^\/dev\/(tcp|udp)\//.test(a.value)) {
        this.emit(c, 'dangerous', 'network.devtcp', `opens a network connection from the shell (${shown(a)})`, a);
        continue;
      }
      if (op === '<' || op === '<&') {
        if (!this.profileRead(c, a, '<')) checkSecretReads([{ ...a, value: '<' }, a], c, this);
        stdin =
          dest.type === 'process_substitution'
            ? (this.subsOf(c.scope).get(dest.startIndex) ?? {})
            : { file: this.path(c, a) };
        continue;
      }
      writes.push(a);
      if (!op.includes('>>')) overwrites.push(a);
      this.write(c, a, op);
    }
    return stdin;
  }

  run(c: CommandContext, input: Arg[]): Produces | undefined {
    let argv = input;
    let ctx = c;
    for (let guard = 0; guard < 16 && argv.length > 0; guard++) {
      const head = argv[0]!;
      if (!isKnown(head)) {
        const p = this.produced(ctx, head);
        const from = p?.fetched ? ' from downloaded text' : p?.decoded ? ' from decoded text' : '';
        this.emit(
          ctx,
          'dangerous',
          'command.computed',
          `command name computed at run time${from} (${head.source})`,
          head,
        );
        return {};
      }
      const fn = ctx.scope.functions?.get(head.value);
      if (fn) return this.callFunction(ctx, argv, fn);
      // A program named by its URL (`uv run https://…/x.py`, `npx https://…`) is code fetched as it runs.
      if (/^(https?|ftp):\/\//i.test(head.value)) {
        this.emit(ctx, 'dangerous', 'remote.run-downloaded', `runs code fetched from ${head.value} as it runs`, head);
        return {};
      }
      const name = commandName(head.value);
      ctx = ownLinks.has(name)
        ? { ...ctx, links: 'own' }
        : nameLinks.has(name)
          ? { ...ctx, links: 'name' }
          : ctx.links
            ? { ...ctx, links: 'follow' }
            : ctx;
      const wrapper = wrappers.get(name);
      if (wrapper) {
        const next = wrapper(argv, ctx, this);
        // A wrapper left with nothing to run may print (`env` alone prints the environment).
        if (!next || next.argv.length === 0) {
          const secret = secretOutput(argv);
          return secret === undefined ? {} : { by: name, secret };
        }
        argv = next.argv;
        ctx = next.c ?? ctx;
        continue;
      }
      if (head.value.includes('/')) this.checkRunsFile(ctx, head);
      if (name === 'git') this.gitRuns(ctx, argv);
      if (name === 'make' || name === 'gmake') this.makeRuns(ctx, argv);
      checkSinks(argv, ctx, this);
      const rule = rules.get(name);
      const found = ctx.scope.state.findings.length;
      const out = (rule ? rule(argv, ctx, this) : undefined) ?? { by: name };
      // What it prints carries a secret on: its input's, one it prints itself, or one its rule found it reads. Looked
      // for only where the output feeds another command.
      if (!ctx.consumed) return out;
      const printed = ctx.scope.state.findings
        .slice(found)
        .find((f) => f.rule === 'secret.read' && f.text.startsWith('prints '));
      const secret =
        ctx.stdin?.secret ??
        secretOutput(argv) ??
        carriedFile(argv, ctx, this) ??
        printed?.text.slice('prints '.length);
      return secret === undefined ? out : { ...out, secret };
    }
    return {};
  }

  private checkRunsFile(c: CommandContext, head: Arg): void {
    const p = this.path(c, head);
    const text = c.scope.state.written.get(p);
    if (text !== undefined) this.payload(c, text, head);
    else this.runsFile(c, head, 'auto', shown(head));
    if (c.scope.state.downloaded.has(p))
      this.emit(c, 'dangerous', 'remote.run-downloaded', `runs a file it just downloaded (${shown(head)})`, head);
    else if (c.scope.state.madeExecutable.has(p))
      this.emit(
        c,
        'dangerous',
        'chmod.then-run',
        `runs a file right after making it executable (chmod +x, then ${shown(head)})`,
        head,
      );
  }

  emit(c: CommandContext, severity: Finding['severity'], rule: RuleId, text: string, at?: Arg): void {
    this.findingAt(c.scope, severity, rule, text, at ? c.scope.span(at.start, at.end) : c.at);
  }

  payload(c: CommandContext, text: string, at: Arg, positional?: Arg[]): void {
    const parent = c.scope;
    if (parent.depth >= MAX_DEPTH) {
      this.emit(c, 'dangerous', 'parse.depth', 'nested shell commands too deep to check', at);
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
      span: inQuotes ? (s, e) => parent.span(at.start + 1 + s, at.start + 1 + e) : () => parent.span(at.start, at.end),
    };
    this.text(norm.text, scope);
  }

  /**
   * Where the command will find the path: made absolute, then (when the target was probed) with its links followed
   * as the command follows them; without facts, the path as written, and the scan notes it wants a look.
   */
  path(c: CommandContext, a: Arg): string {
    const lexical = resolvePath(a.value, c.scope.cwd, c.scope.state.home);
    if (c.links === 'name' || !isKnown(lexical) || !lexical.startsWith('/') || notProbed.test(lexical)) return lexical;
    // A trailing slash makes even rm and mv go through the link to the directory it names.
    if (c.links === 'own' && !/\/\.?$/.test(a.value) && lexical !== '/') {
      const parent = this.realOf(c.scope.state, posix.dirname(lexical));
      return parent === '/' ? `/${posix.basename(lexical)}` : `${parent}/${posix.basename(lexical)}`;
    }
    return this.realOf(c.scope.state, lexical);
  }

  private realOf(state: ScanState, lexical: string): string {
    state.needs?.paths.add(lexical);
    return state.facts?.real.get(lexical) ?? lexical;
  }

  /**
   * A file the command runs (`bash F`, `python3 F`, `./F`, `. F`) is judged by what is in it on the target. Without
   * probed facts (a check with no target) nothing is said; with them, a file that could not be read asks.
   */
  runsFile(c: CommandContext, file: Arg, language: ScriptLanguage | 'auto', label: string): void {
    // `bash /dev/stdin <<EOF`: the file is the command's stdin, judged as what feeds it.
    if (isKnown(file) && /^(\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/.test(file.value))
      return this.runsStdin(c, file, language, label);
    if (!isKnown(file) || file.value === '-' || file.value.startsWith('/dev/')) return;
    const lexical = resolvePath(file.value, c.scope.cwd, c.scope.state.home);
    if (c.scope.state.written.has(this.path(c, file))) return;
    c.scope.state.needs?.files.add(lexical);
    const facts = c.scope.state.facts;
    if (!facts) return;
    // What was looked at is what the file held before this command: an earlier part of it wrote the file.
    if (c.scope.state.changed?.has(this.path(c, file))) {
      return this.emit(
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
    this.judgeFile(c, fact, where, language, label, file);
  }

  /** A program told to run its stdin as a file: a heredoc or known text is judged, a file fed with `<` is read. */
  private runsStdin(c: CommandContext, file: Arg, language: ScriptLanguage | 'auto', label: string): void {
    const stdin = c.stdin;
    if (stdin?.text !== undefined)
      return this.judgeText(c, stdin.text, language === 'auto' ? 'shell' : language, 'stdin', file);
    if (stdin?.file !== undefined) return this.runsFile(c, { ...file, value: stdin.file }, language, label);
    this.emit(c, 'dangerous', 'run.unchecked', `runs what it reads on stdin, which is not known here (${label})`, file);
  }

  private judgeFile(
    c: CommandContext,
    fact: FileFact | undefined,
    where: string,
    language: ScriptLanguage | 'auto',
    label: string,
    at: Arg | undefined,
  ): void {
    const ask = (why: string): void =>
      this.emit(c, 'dangerous', 'run.unchecked', `runs ${where}, ${why} (${label})`, at);
    if (!fact) return ask('whose content could not be looked up');
    if (fact.kind === 'missing')
      return language === 'make' ? undefined : ask('which is not there to be checked before it runs');
    if (fact.kind === 'too_large')
      return ask(`too large to check (${fact.size} bytes; at most ${MAX_PROBED_FILE_BYTES} are read)`);
    if (fact.kind === 'unreadable') return ask(`whose content could not be read to check it: ${fact.problem}`);
    const how = languageOf(fact.text, language);
    if ('binary' in how) return;
    if ('unknown' in how) return ask(`through ${how.unknown}, a language not checked here`);
    this.judgeText(c, fact.text, how.lang, where, at);
  }

  /** Text run in a language (a script's content, a hook, a git config value) judged as that language. */
  private judgeText(c: CommandContext, text: string, lang: ScriptLanguage, origin: string, at: Arg | undefined): void {
    const parent = c.scope;
    if (parent.depth >= MAX_DEPTH) {
      this.emit(c, 'dangerous', 'parse.depth', 'scripts run by scripts too deep to check', at);
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
      this.text(normalizeCommandText(shellText).text, scope);
      // A Makefile's `$(CC)`-style words make many command names unknown; only what they clearly run counts there.
      if (lang === 'make')
        scope.state.findings.splice(
          before,
          Infinity,
          ...scope.state.findings
            .slice(before)
            .filter((f) => f.rule !== 'command.computed' && f.rule !== 'parse.failed'),
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
    for (const f of codeFindings(text, lang, place, this.codeParsers)) {
      if (f.shell !== undefined) this.payload(cc, f.shell, at ?? { value: f.shell, source: '', start: 0, end: 0 });
      else this.emit(cc, f.severity, f.rule, f.text);
    }
  }

  /**
   * git runs more than its arguments: `-c` values, the config of the repository it runs in (fsmonitor, pager, `!`
   * aliases, filters), and for commands that change the repository its hooks. Each is judged as what it runs.
   */
  private gitRuns(c: CommandContext, argv: Arg[]): void {
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
        this.emit(c, 'dangerous', 'git.exec-path', `runs git's commands from another directory (${v})`, argv[i]);
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
      this.payload(
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
      return this.emit(
        c,
        'dangerous',
        'run.unchecked',
        `runs git after changing its config earlier in the same command, so what it will run is not known`,
        argv[0],
      );
    if (!git)
      return this.emit(
        c,
        'dangerous',
        'run.unchecked',
        `runs git in ${dir}, whose config and hooks could not be looked up`,
        argv[0],
      );
    if (git.kind === 'no_git') return;
    if (git.kind === 'unreadable')
      return this.emit(
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
      this.judgeText(c, e.text, 'shell', `git config ${e.key}`, argv[0]);
    }
    if (!gitRunsHooks(sub)) return;
    for (const [name, fact] of git.hooks)
      this.judgeFile(c, fact, `${git.hooksDir}/${name}`, 'auto', `git ${sub} runs its ${name} hook`, argv[0]);
  }

  /** make runs its Makefile's recipes: `-f F`, else GNUmakefile, makefile or Makefile in `-C DIR` or the cwd. */
  private makeRuns(c: CommandContext, argv: Arg[]): void {
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
      for (const f of files)
        this.runsFile({ ...mc, scope: { ...c.scope, cwd: dir } }, f, 'make', `make -f ${shown(f)}`);
      return;
    }
    // The first of these that exists is the one make reads.
    const candidates = ['GNUmakefile', 'makefile', 'Makefile'].map(inDir);
    const facts = c.scope.state.facts;
    const found =
      facts &&
      candidates.find((f) => facts.files.get(resolvePath(f.value, dir, c.scope.state.home))?.kind !== 'missing');
    if (!facts) for (const f of candidates) this.runsFile(mc, f, 'make', 'make');
    else if (found) this.runsFile(mc, found, 'make', 'make');
  }

  /**
   * Any argument naming a file that holds the agent token is refused, whatever the command (cat, less, grep, cp,
   * base64, an interpreter's script argument, `if=`): nothing an agent runs needs it. So is handing the whole profile
   * to a command that copies, packs or searches what is under it; handing it a directory above the profile (`grep -r
   * x ~`, `tar czf - ~`) asks, since core.json goes with it.
   */
  private checkProfileReads(c: CommandContext, argv: Arg[]): void {
    const home = c.scope.state.profile;
    const names = argv.map((a) => (isKnown(a) ? commandName(a.value) : ''));
    if (!home || namesOnly.has(names[0]!)) return;
    const recursive = argv.some((a) => recursiveFlag.test(a.value));
    const tree = names.find(
      (n) =>
        treeReaders.has(n) ||
        (treeReadersWhenRecursive.has(n) && recursive) ||
        (n === 'find' && argv.some((a) => findAction.test(a.value))),
    );
    for (const a of argv.slice(1)) {
      // `if=FILE` and `--file=FILE` name a file after their prefix.
      const eq = /^(?:-[-\w]*=|[a-z]+=)(.+)$/.exec(a.value);
      for (const value of eq ? [a.value, eq[1]!] : [a.value]) {
        if (this.profileRead(c, { ...a, value }, names[0] || 'a command')) break;
        if (!tree || !isKnown(value)) continue;
        const p = resolvePath(value, c.scope.cwd, c.scope.state.home);
        if (p === home) {
          this.emit(
            c,
            'hardline',
            'profile.read',
            `reads the Switchboard profile ${home}, where core.json holds the agent token (${tree})`,
            a,
          );
          break;
        }
        if (home.startsWith(p === '/' ? '/' : `${p}/`)) {
          this.emit(
            c,
            'dangerous',
            'profile.tree',
            `reads everything under ${p}, the Switchboard profile's core.json with the agent token too (${tree})`,
            a,
          );
          break;
        }
      }
    }
  }

  /** Refuses a read of a file that holds the agent token; true when `a` names one. */
  private profileRead(c: CommandContext, a: Arg, how: string): boolean {
    // As written: every argument of every command is looked at here, and a look-up on the target for each would cost.
    const f = profileFinding(resolvePath(a.value, c.scope.cwd, c.scope.state.home), c.scope.state.profile, false, how);
    if (f) this.emit(c, f.severity, f.rule, f.text, a);
    return f !== undefined;
  }

  profileChange(c: CommandContext, a: Arg, how: string): boolean {
    const f = profileFinding(this.path(c, a), c.scope.state.profile, true, how);
    if (f) this.emit(c, f.severity, f.rule, f.text, a);
    return f !== undefined;
  }

  write(c: CommandContext, a: Arg, how: string): void {
    if (this.profileChange(c, a, how)) return;
    const p = this.path(c, a);
    (c.scope.state.changed ??= new Set()).add(p);
    if (isBlockDevice(p))
      return this.emit(c, 'hardline', 'disk.overwrite', `overwrites the disk device ${p} (${how})`, a);
    if (p === '/proc/sysrq-trigger')
      return this.emit(
        c,
        'hardline',
        'power.sysrq',
        `triggers a kernel reboot or crash (${how} /proc/sysrq-trigger)`,
        a,
      );
    const why = sensitiveWrite(p);
    if (why)
      this.emit(
        c,
        'dangerous',
        'write.sensitive',
        `writes to ${shown(a) === a.value ? p : shown(a)}: ${why} (${how})`,
        a,
      );
  }

  produced(c: CommandContext, a: Arg): Produces | undefined {
    const subs = this.subsOf(c.scope);
    let found: Produces | undefined;
    for (const [start, p] of subs) if (start >= a.start && start < a.end) found = merge(found, p);
    return found;
  }
}

/**
 * Variables with the positional parameters bound: `$0` (when given), `$1` … `$9`, and `$@`/`$*`, each known or, when
 * known only at run time, unset (or described, when what it will hold can be said).
 */
function withPositional(vars: ReadonlyMap<string, string>, args: Arg[], zero?: string): Map<string, string> {
  const out = new Map(vars);
  for (const k of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '@', '*', '#']) out.delete(k);
  if (zero !== undefined && (isKnown(zero) || zero.includes(DESCRIBED))) out.set('0', zero);
  args.slice(0, 9).forEach((a, i) => {
    if (isKnown(a) || a.value.includes(DESCRIBED)) out.set(String(i + 1), a.value);
  });
  out.set('#', String(args.length));
  if (args.every((a) => isKnown(a) || a.value.includes(DESCRIBED)))
    out.set('@', args.map((a) => a.value).join(ARGS_SEP));
  return out;
}

function merge(a: Produces | undefined, b: Produces): Produces {
  if (!a) return b;
  const secret = a.secret ?? b.secret;
  const from = a.from ?? b.from;
  return {
    fetched: a.fetched || b.fetched,
    decoded: a.decoded || b.decoded,
    by: a.by ?? b.by,
    ...(secret !== undefined ? { secret } : {}),
    ...(from !== undefined ? { from } : {}),
  };
}

function firstError(node: ShellNode): ShellNode | undefined {
  if (node.type === 'ERROR' || node.isMissing) return node;
  for (const child of node.children) {
    if (child.hasError || child.isMissing || child.type === 'ERROR') {
      const found = firstError(child);
      if (found) return found;
    }
  }
  return undefined;
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
