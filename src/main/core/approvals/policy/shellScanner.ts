// Walks the bash syntax tree of a command: every simple command in lists, pipelines, subshells, `$( )`,
// backticks, brace groups, process substitutions, loops and function bodies is unwrapped and judged by
// the rules; nested shell text (`bash -c`, `eval`, decoded payloads) is parsed and walked the same way.
// Over 380 lines: the walk is one recursion over the grammar's node types, kept whole; what a command runs besides
// its own text is in scanRuns.ts, the profile's checks in scanProfile.ts, the shared types in scanTypes.ts.
import type { CodeParsers } from './code/codeParsers.js';
import { normalizeCommandText } from './normalizeText.js';
import { resolvePath, vitalPath } from './paths.js';
import { commandName } from './ruleKit.js';
import { rules, wrappers } from './rules/index.js';
import {
  describe,
  isKnown,
  mergeProduces,
  shown,
  UNKNOWN,
  withPositional,
  type Arg,
  type CommandContext,
  type Finding,
  type Produces,
  type ScanOptions,
  type ScanScope,
  type ScanState,
} from './scanTypes.js';
import { firstError, type ShellNode, type ShellParser } from './shellParser.js';
import { evalAssignedValue, evalWord, type WordEnv } from './words.js';
import { checkArgsForMetadata } from './rules/networkRules.js';
import { checkSecretReads } from './rules/secretRules.js';
import { commandVariable, floodLoop } from './rules/escapeRules.js';
import { clobber, emptiesOutput, printsForever } from './rules/writeRules.js';
import { carriedFile, checkSinks, secretOutput } from './rules/leakRules.js';
import type { ScriptLanguage } from './runFiles.js';
import { posix } from 'node:path';
import type { RuleId } from './ruleIds.js';
import {
  callFunction,
  checkRunsFile,
  functionDefinition,
  gitRuns,
  makeRuns,
  MAX_DEPTH,
  payload,
  runsFile,
  type ScanHost,
} from './scanRuns.js';
import { checkProfileReads, profileChange, profileRead, write } from './scanProfile.js';

const NODE_BUDGET = 50_000;

/** Commands that act on a link itself, not where it leads (`rm -rf link` removes the link). */
const ownLinks = new Set(['rm', 'unlink', 'rmdir', 'mv', 'rimraf', 'find', 'trash', 'trash-put', 'gio']);
/** Commands whose path argument only moves where later paths are looked up. */
const nameLinks = new Set(['cd', 'pushd']);
/** Paths that are never links worth a look. */
const notProbed = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+|full|random|urandom)$/;

/**
 * What a heredoc feeds its command: the body without its closing delimiter line. Cut at the last newline rather than
 * by a regex anchored at the end, which tries every start of a long last line (seconds for one of 64 KiB).
 */
function heredocText(body: string): string {
  const end = body.lastIndexOf('\n');
  return end < 0 ? '\n' : `${body.slice(0, end)}\n`;
}

export class ShellScanner implements ScanHost {
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
      ...(opts.unsandboxed ? { unsandboxed: true } : {}),
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

  text(text: string, scope: ScanScope): Produces | undefined {
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
  walk(node: ShellNode, scope: ScanScope, pipeIn: Produces | undefined, consumed = false): Produces | undefined {
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
        functionDefinition(this, node, scope);
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
    checkProfileReads(this, c, argv);
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
        if (!profileRead(this, c, a, '<')) checkSecretReads([{ ...a, value: '<' }, a], c, this);
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
      if (fn) return callFunction(this, ctx, argv, fn);
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
      if (head.value.includes('/')) checkRunsFile(this, ctx, head);
      if (name === 'git') gitRuns(this, ctx, argv);
      if (name === 'make' || name === 'gmake') makeRuns(this, ctx, argv);
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

  emit(c: CommandContext, severity: Finding['severity'], rule: RuleId, text: string, at?: Arg): void {
    this.findingAt(c.scope, severity, rule, text, at ? c.scope.span(at.start, at.end) : c.at);
  }

  /** Shell text found inside the command, parsed and walked one level down (scanRuns.ts). */
  payload(c: CommandContext, text: string, at: Arg, positional?: Arg[]): void {
    payload(this, c, text, at, positional);
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

  realOf(state: ScanState, lexical: string): string {
    state.needs?.paths.add(lexical);
    return state.facts?.real.get(lexical) ?? lexical;
  }

  /** A file the command runs (`bash F`, `./F`, `. F`), judged by what is in it on the target (scanRuns.ts). */
  runsFile(c: CommandContext, file: Arg, language: ScriptLanguage | 'auto', label: string): void {
    runsFile(this, c, file, language, label);
  }

  /** The checks of scanProfile.ts: the Switchboard profile, devices, kernel triggers and sensitive files. */
  profileChange(c: CommandContext, a: Arg, how: string): boolean {
    return profileChange(this, c, a, how);
  }

  write(c: CommandContext, a: Arg, how: string): void {
    write(this, c, a, how);
  }

  produced(c: CommandContext, a: Arg): Produces | undefined {
    const subs = this.subsOf(c.scope);
    let found: Produces | undefined;
    for (const [start, p] of subs) if (start >= a.start && start < a.end) found = mergeProduces(found, p);
    return found;
  }
}
