// Python judged on its syntax tree: imports and aliases (`import shutil as s`, `from os import *`), getattr and
// __import__ with names built from literals, globals()/vars()/sys.modules lookups, os.path.join and pathlib paths,
// f-strings and `%`/format, base64 and friends, exec/eval/compile of known or decoded text, and the code's own
// functions called with known arguments. What a call does is handed to CodeEffects.
import { posix } from 'node:path';
import { UNKNOWN } from '../scanTypes.js';
import { CodeAnalysis } from './codeAnalysis.js';
import type { CodeNode } from './codeParsers.js';
import {
  argvOf,
  collapse,
  concat,
  decode,
  decodedBy,
  dirname,
  envValue,
  mutate,
  setItem,
  format,
  fromBase64,
  fromHex,
  joinPath,
  known,
  pathOf,
  rot13,
  str,
  textOf,
  unknown,
  type FnDef,
  type Val,
} from './codeValues.js';
import {
  builtinNames,
  lostMembers,
  changesFirst,
  copies,
  decoders,
  deleteFile,
  internals,
  links,
  modelled,
  moves,
  networkCalls,
  normalize,
  opens,
  powerful,
  shellFirst,
  shells,
  sourceRunners,
  subprocessRun,
  unescapePython,
  walkers,
} from './pythonNames.js';

interface Call {
  q: string;
  args: Val[];
  kw: Map<string, Val>;
  /** The call's node, when the call is written in the code (not a callback or a method of a looked-up member). */
  node?: CodeNode;
}

export class PythonAnalysis extends CodeAnalysis {
  /** Modules imported with `from M import *`, latest last. */
  private stars: string[] = [];
  /** Set while a for loop's iterable walks a directory; deletes in its body then ask. */
  private walked = false;
  private inWalk = 0;
  private dup2 = false;
  /** Directories made by tempfile.mkdtemp, by identity of the value. */
  private readonly temps = new Set<Val>();
  private spawnsShell = false;

  override analyse(text: string): boolean {
    const clean = super.analyse(text);
    if (this.dup2 && this.spawnsShell)
      this.effects.ask('network.shell', 'connects a shell to a socket (os.dup2, then a shell)');
    return clean;
  }

  private lookup(name: string): Val {
    const v = this.vars.get(name);
    if (v) return v;
    if (name === '__builtins__' || name === '__builtin__') return { k: 'ref', q: 'builtins' };
    if (name === '__name__') return str('__main__');
    for (let i = this.stars.length - 1; i >= 0; i--) {
      const q = normalize(`${this.stars[i]}.${name}`);
      if (modelled(q)) return { k: 'ref', q };
    }
    return builtinNames.has(name) ? { k: 'ref', q: `builtins.${name}` } : unknown;
  }

  private attr(v: Val, name: string): Val {
    if (internals.has(name)) {
      this.effects.ask('code.introspect', `reaches the interpreter's internals (${name})`);
      return unknown;
    }
    if (v.k === 'ref') {
      if (name === '__dict__') return v;
      if (name === '__builtins__') return { k: 'ref', q: 'builtins' };
      if (v.q === 'sys' && name === 'executable') return str('python3');
      if (
        powerful.test(v.q) &&
        !v.q.includes('.') &&
        /^(values|items|keys|copy|__getitem__|__getattribute__|__getattr__|get|pop)$/.test(name)
      )
        return { k: 'method', self: v, name };
      const q = normalize(`${v.q}.${name}`);
      return q === 'sys.modules' ? { k: 'scope', modules: true } : { k: 'ref', q };
    }
    if (v.k === 'path' && name === 'parent') return { k: 'path', s: textOf(dirname(v)) ?? UNKNOWN };
    if (v.k === 'path' && name === 'name') return v.s.includes(UNKNOWN) ? unknown : str(posix.basename(v.s));
    return { k: 'method', self: v, name };
  }

  /** `x[key]` where x is a module, a namespace (globals(), vars(), sys.modules), os.environ, a dict or a list. */
  private item(v: Val, key: Val, keyNode: CodeNode | null): Val {
    if (keyNode?.type === 'slice') {
      const s = v.k === 'str' && keyNode.text.replace(/\s/g, '') === '::-1' ? known(v) : undefined;
      return s === undefined
        ? decodedBy(v)
          ? { k: 'unknown', decoded: decodedBy(v)! }
          : unknown
        : str([...s].reverse().join(''), v.k === 'str' ? v.decoded : undefined);
    }
    const k = known(key);
    if (v.k === 'ref' && v.q === 'os.environ') return envValue(k);
    if ((v.k === 'ref' && powerful.test(v.q)) || v.k === 'scope') {
      if (k === undefined) {
        this.effects.ask(
          'code.attr',
          `looks up a name computed at run time in ${v.k === 'ref' ? v.q : 'a namespace'} ` +
            `(${keyNode?.text.slice(0, 40) ?? '…'})`,
        );
        return unknown;
      }
      if (v.k === 'scope') return v.modules ? { k: 'ref', q: normalize(k) } : this.lookup(k);
      return this.attr(v, k);
    }
    if (v.k === 'dict' && k !== undefined) return v.entries.get(k) ?? unknown;
    if (v.k === 'seq' && key.k === 'num') return v.items[key.n < 0 ? v.items.length + key.n : key.n] ?? unknown;
    return unknown;
  }

  private bind(target: CodeNode, v: Val): void {
    switch (target.type) {
      case 'identifier':
        this.vars.set(target.text, v);
        return;
      case 'pattern_list':
      case 'tuple_pattern':
      case 'list_pattern':
      case 'tuple':
      case 'list': {
        const items = target.namedChildren;
        items.forEach((t, i) => this.bind(t, v.k === 'seq' ? (v.items[i] ?? unknown) : unknown));
        return;
      }
      case 'subscript': {
        const obj = this.evalExpr(target.childForFieldName('value')!);
        const key = target.childForFieldName('subscript');
        const keyVal = key ? this.evalExpr(key) : unknown;
        const k = known(keyVal);
        if (obj.k === 'ref' && obj.q === 'os.environ' && k !== undefined) this.env(k, v);
        setItem(obj, keyVal, v);
        return;
      }
      case 'as_pattern_target':
      case 'parenthesized_expression':
        if (target.namedChildren[0]) this.bind(target.namedChildren[0], v);
        return;
      default:
        this.evalExpr(target);
    }
  }

  /** An environment variable set for the programs the code starts: judged as the shell assignment. */
  private env(name: string, v: Val): void {
    if (/^[A-Za-z_]\w*$/.test(name))
      this.effects.shell(`${name}=${JSON.stringify(textOf(v) ?? UNKNOWN)}`, 'os.environ');
  }

  private fnDef(name: string, paramsNode: CodeNode | null, body: CodeNode, expression: boolean): FnDef {
    const params: string[] = [];
    const defaults: (Val | undefined)[] = [];
    let rest = -1;
    for (const p of paramsNode?.namedChildren ?? []) {
      const id =
        p.type === 'identifier'
          ? p
          : (p.childForFieldName('name') ?? p.namedChildren.find((c) => c.type === 'identifier'));
      if (p.type === 'list_splat_pattern') rest = params.length;
      if (p.type === 'dictionary_splat_pattern' || p.type === 'keyword_separator' || p.type === 'positional_separator')
        continue;
      params.push(id?.text ?? `#${params.length}`);
      // Defaults are evaluated where the function is defined.
      const dflt = p.childForFieldName('value');
      defaults[params.length - 1] = dflt ? this.evalExpr(dflt) : undefined;
    }
    return { name, params, defaults, rest, body, expression, calls: 0 };
  }

  protected walk(node: CodeNode): void {
    this.evalExpr(node);
  }

  protected evalExpr(node: CodeNode): Val {
    if (!this.spend()) return unknown;
    switch (node.type) {
      case 'module':
      case 'block': {
        // The value of the last statement when it is an expression: what eval() of this text gives.
        let last = unknown;
        for (const c of node.namedChildren) last = this.evalExpr(c);
        return node.lastNamedChild?.type === 'expression_statement' ? last : unknown;
      }
      case 'import_statement':
        for (const c of node.namedChildren) {
          if (c.type === 'aliased_import')
            this.vars.set(c.childForFieldName('alias')!.text, {
              k: 'ref',
              q: normalize(c.childForFieldName('name')!.text.replace(/\s/g, '')),
            });
          else if (c.type === 'dotted_name')
            this.vars.set(c.namedChildren[0]!.text, { k: 'ref', q: normalize(c.namedChildren[0]!.text) });
        }
        return unknown;
      case 'import_from_statement': {
        const mod = node.childForFieldName('module_name');
        const m = mod?.type === 'dotted_name' ? mod.text.replace(/\s/g, '') : undefined;
        for (const c of node.namedChildren) {
          if (c === mod) continue;
          if (c.type === 'wildcard_import') {
            if (m) this.stars.push(m);
            continue;
          }
          const name = c.type === 'aliased_import' ? c.childForFieldName('name')!.text : c.text;
          const as = c.type === 'aliased_import' ? c.childForFieldName('alias')!.text : name;
          this.vars.set(as, m ? { k: 'ref', q: normalize(`${m}.${name}`) } : unknown);
        }
        return unknown;
      }
      case 'expression_statement': {
        const values = node.namedChildren.map((c) => this.evalExpr(c));
        return values.length === 1 ? values[0]! : unknown;
      }
      case 'assignment': {
        const right = node.childForFieldName('right');
        const v = right ? this.evalExpr(right) : unknown;
        const left = node.childForFieldName('left');
        if (left && right) this.bind(left, v);
        return v;
      }
      case 'augmented_assignment': {
        const left = node.childForFieldName('left')!;
        const v = this.evalExpr(node.childForFieldName('right')!);
        const op = node.childForFieldName('operator')?.text;
        if (left.type === 'identifier')
          this.vars.set(left.text, op === '+=' ? concat(this.lookup(left.text), v) : unknown);
        return unknown;
      }
      case 'named_expression': {
        const v = this.evalExpr(node.childForFieldName('value')!);
        this.vars.set(node.childForFieldName('name')!.text, v);
        return v;
      }
      case 'function_definition': {
        const name = node.childForFieldName('name')!.text;
        this.vars.set(
          name,
          this.define(this.fnDef(name, node.childForFieldName('parameters'), node.childForFieldName('body')!, false)),
        );
        return unknown;
      }
      case 'lambda': {
        const body = node.childForFieldName('body');
        return body
          ? this.define(this.fnDef('<lambda>', node.childForFieldName('parameters'), body, true), false)
          : unknown;
      }
      case 'class_definition': {
        const sup = node.childForFieldName('superclasses');
        if (sup) this.evalExpr(sup);
        const body = node.childForFieldName('body');
        // Methods are known by name (self.run(...)); the class body's own names stay inside it.
        const outer = this.vars;
        this.vars = new Map(outer);
        if (body) this.evalExpr(body);
        this.vars = outer;
        this.vars.set(node.childForFieldName('name')!.text, unknown);
        return unknown;
      }
      case 'decorated_definition':
        for (const c of node.namedChildren) this.evalExpr(c);
        return unknown;
      case 'return_statement': {
        const v = node.namedChildren[0] ? this.evalExpr(node.namedChildren[0]) : unknown;
        this.returned(v);
        return unknown;
      }
      case 'for_statement':
      case 'for_in_clause': {
        const right = node.childForFieldName('right');
        const before = this.walked;
        this.walked = false;
        const iter = right ? this.evalExpr(right) : unknown;
        const walks = this.walked;
        this.walked = before;
        const left = node.childForFieldName('left');
        if (left) this.bind(left, iter.k === 'seq' && iter.items.length === 1 ? iter.items[0]! : unknown);
        if (walks) this.inWalk++;
        try {
          for (const c of node.namedChildren) if (c !== left && c !== right) this.evalExpr(c);
        } finally {
          if (walks) this.inWalk--;
        }
        return unknown;
      }
      case 'list_comprehension':
      case 'set_comprehension':
      case 'dictionary_comprehension':
      case 'generator_expression': {
        // The for clauses bind before the body runs.
        const body = node.childForFieldName('body');
        const clauses = node.namedChildren.filter((c) => c !== body);
        const walksBefore = this.inWalk;
        for (const c of clauses) {
          if (c.type === 'for_in_clause') {
            const right = c.childForFieldName('right');
            const before = this.walked;
            this.walked = false;
            if (right) this.evalExpr(right);
            if (this.walked) this.inWalk++;
            this.walked = before;
            const left = c.childForFieldName('left');
            if (left) this.bind(left, unknown);
          } else this.evalExpr(c);
        }
        if (body) this.evalExpr(body);
        this.inWalk = walksBefore;
        return unknown;
      }
      case 'with_item': {
        const value = node.childForFieldName('value');
        if (value?.type === 'as_pattern') {
          const v = this.evalExpr(value.namedChildren[0]!);
          const alias = value.childForFieldName('alias');
          if (alias) this.bind(alias, v);
        } else if (value) this.evalExpr(value);
        return unknown;
      }
      case 'string':
        return this.string(node);
      case 'concatenated_string':
        return node.namedChildren.map((c) => this.evalExpr(c)).reduce((a, b) => concat(a, b), str(''));
      case 'integer':
        return { k: 'num', n: Number(node.text.replace(/_/g, '')) };
      case 'true':
      case 'false':
        return { k: 'bool', b: node.type === 'true' };
      case 'identifier':
        return this.lookup(node.text);
      case 'attribute':
        return this.attr(this.evalExpr(node.childForFieldName('object')!), node.childForFieldName('attribute')!.text);
      case 'subscript': {
        const v = this.evalExpr(node.childForFieldName('value')!);
        const keyNode = node.childForFieldName('subscript');
        const key = keyNode && keyNode.type !== 'slice' ? this.evalExpr(keyNode) : unknown;
        return this.item(v, key, keyNode);
      }
      case 'list':
      case 'tuple':
      case 'expression_list':
      case 'set':
        return { k: 'seq', items: this.items(node, 'list_splat') };
      case 'dictionary': {
        const entries = new Map<string, Val>();
        for (const pair of node.namedChildren) {
          if (pair.type !== 'pair') {
            this.evalExpr(pair);
            continue;
          }
          const k = known(this.evalExpr(pair.childForFieldName('key')!));
          const v = this.evalExpr(pair.childForFieldName('value')!);
          if (k !== undefined) entries.set(k, v);
        }
        return { k: 'dict', entries };
      }
      case 'parenthesized_expression':
      case 'await':
        return node.namedChildren.length === 1 ? this.evalExpr(node.namedChildren[0]!) : unknown;
      case 'binary_operator':
        return this.binary(node);
      case 'call':
        return this.call_(node);
      case 'comment':
      case 'pass_statement':
      case 'break_statement':
      case 'continue_statement':
      case 'future_import_statement':
      case 'global_statement':
      case 'nonlocal_statement':
        return unknown;
      default:
        return this.children(node);
    }
  }

  private string(node: CodeNode): Val {
    const start = node.namedChildren.find((c) => c.type === 'string_start')?.text ?? '';
    const raw = /r/i.test(start);
    let s = '';
    for (const c of node.namedChildren) {
      if (c.type === 'string_content') s += raw ? c.text : unescapePython(c.text);
      else if (c.type === 'interpolation') {
        const e = c.childForFieldName('expression');
        s += e ? (textOf(this.evalExpr(e)) ?? UNKNOWN) : UNKNOWN;
      }
    }
    return str(collapse(s));
  }

  private binary(node: CodeNode): Val {
    const l = this.evalExpr(node.childForFieldName('left')!);
    const r = this.evalExpr(node.childForFieldName('right')!);
    const op = node.childForFieldName('operator')?.text;
    if (op === '+') return concat(l, r);
    if (op === '/' && l.k === 'path') return { k: 'path', s: textOf(joinPath([l, r])) ?? UNKNOWN };
    if (op === '%' && l.k === 'str') {
      const args = r.k === 'seq' ? r.items : [r];
      return str(
        format(l.s.replace(/%%/g, '\u0001'), args, /%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifxXoeEgGc]/g).replace(
          /\u0001/g,
          '%',
        ),
        decodedBy(l) ?? decodedBy(r),
      );
    }
    const decoded = decodedBy(l) ?? decodedBy(r);
    return decoded ? { k: 'unknown', decoded } : unknown;
  }

  private call_(node: CodeNode): Val {
    const fn = this.evalExpr(node.childForFieldName('function')!);
    const argNode = node.childForFieldName('arguments');
    const args: Val[] = [];
    const kw = new Map<string, Val>();
    for (const a of argNode?.type === 'argument_list' ? argNode.namedChildren : argNode ? [argNode] : []) {
      if (a.type === 'keyword_argument')
        kw.set(a.childForFieldName('name')!.text, this.evalExpr(a.childForFieldName('value')!));
      else if (a.type === 'list_splat') {
        const v = this.evalExpr(a.namedChildren[0]!);
        if (v.k === 'seq') args.push(...v.items);
        else args.push(unknown);
      } else if (a.type === 'dictionary_splat') {
        const v = this.evalExpr(a.namedChildren[0]!);
        if (v.k === 'dict') for (const [k, x] of v.entries) kw.set(k, x);
      } else if (a.type !== 'comment') args.push(this.evalExpr(a));
    }
    const callee = fn.k === 'ref' ? fn.q : fn.k === 'method' ? fn.name : fn.k === 'fn' ? fn.fn.name : '';
    for (const a of [...args, ...kw.values()]) if (a.k === 'str' || a.k === 'path') this.effects.mention(a.s, callee);
    if (fn.k !== 'fn') this.callbacks(fn, args, kw);
    if (fn.k === 'fn') return this.call(fn.fn, args, kw);
    if (fn.k === 'ref') return this.callRef({ q: fn.q, args, kw, node });
    if (fn.k === 'method') return this.method(fn.self, fn.name, args, kw);
    return unknown;
  }

  /**
   * What a call hands over to be called later: a thread's target, a pool's or map's function, a callback. The
   * analysis calls it with what goes with it (`args=`, the arguments after it, a map's items); a powerful module
   * handed to a function the analysis does not follow asks, as its members could be looked up there.
   */
  private callbacks(fn: Val, args: Val[], kw: Map<string, Val>): void {
    const q = fn.k === 'ref' ? fn.q : '';
    if (/^builtins\.(print|dir|help|repr|id|type|isinstance|hasattr|getattr|vars|len|str)$/.test(q)) return;
    const given: [Val, number][] = [
      ...args.map((v, i): [Val, number] => [v, i]),
      ...[...kw.values()].map((v): [Val, number] => [v, args.length]),
    ];
    for (const [v, i] of given) {
      const withArgs = (): Val[] => {
        const a = kw.get('args');
        if (a?.k === 'seq') return a.items;
        const next = args[i + 1];
        if ((q === 'builtins.map' || q === 'builtins.filter') && next?.k === 'seq') return next.items.slice(0, 1);
        return args.slice(i + 1);
      };
      if (v.k === 'fn') this.call(v.fn, withArgs(), new Map());
      else if (v.k === 'ref' && (modelled(v.q) || /^builtins\.(exec|eval|compile|__import__|open)$/.test(v.q)))
        this.callRef({ q: v.q, args: withArgs(), kw: new Map() });
      else if (v.k === 'ref' && powerful.test(v.q) && !v.q.includes('.') && !modelled(q)) {
        this.effects.ask('code.attr', `hands ${v.q} to ${q || 'a function'} the analysis cannot follow`);
      }
    }
  }

  private arg(c: Call, i: number, name?: string): Val | undefined {
    return (name !== undefined ? c.kw.get(name) : undefined) ?? c.args[i];
  }

  private callRef(c: Call): Val {
    const { q } = c;
    const short = q.replace(/^builtins\./, '');
    const e = this.effects;
    if (shellFirst.has(q)) {
      const cmd = this.arg(c, 0, 'command') ?? c.kw.get('cmd') ?? unknown;
      return (e.shell(textOf(cmd), q, decodedBy(cmd)), unknown);
    }
    if (subprocessRun.has(q)) {
      const a = this.arg(c, 0, 'args') ?? unknown;
      const shell = c.kw.get('shell');
      if (a.k === 'seq') {
        if (shell && !(shell.k === 'bool' && !shell.b)) e.shell(textOf(a.items[0] ?? unknown), q, decodedBy(a));
        else this.runArgv(argvOf(a), q, decodedBy(a));
      } else e.shell(textOf(a), q, decodedBy(a));
      return unknown;
    }
    if (/^os\.exec[lv]p?e?$/.test(q) || /^os\.posix_spawnp?$/.test(q)) {
      const list = /^os\.execl/.test(q)
        ? c.args.slice(2, /e$/.test(q) ? -1 : undefined).map((v) => textOf(v) ?? UNKNOWN)
        : (argvOf(c.args[1]) ?? [UNKNOWN]).slice(1);
      this.runArgv([textOf(c.args[0] ?? unknown) ?? UNKNOWN, ...list], q);
      return unknown;
    }
    if (/^os\.spawn[lv]p?e?$/.test(q)) {
      const list = /^os\.spawnl/.test(q)
        ? c.args.slice(3, /e$/.test(q) ? -1 : undefined).map((v) => textOf(v) ?? UNKNOWN)
        : (argvOf(c.args[2]) ?? [UNKNOWN]).slice(1);
      this.runArgv([textOf(c.args[1] ?? unknown) ?? UNKNOWN, ...list], q);
      return unknown;
    }
    if (q === 'pty.spawn' || q === 'asyncio.create_subprocess_exec') {
      const first = c.args[0] ?? unknown;
      this.runArgv(
        q === 'pty.spawn' ? (argvOf(first) ?? [textOf(first) ?? UNKNOWN]) : c.args.map((v) => textOf(v) ?? UNKNOWN),
        q,
      );
      return unknown;
    }
    if (q === 'shutil.rmtree') return (this.delete(this.arg(c, 0, 'path'), true, q), unknown);
    if (deleteFile.has(q)) return (this.delete(this.arg(c, 0, 'path'), false, q), unknown);
    if (changesFirst.has(q)) return (e.write(pathOf(this.arg(c, 0, 'path')), q), unknown);
    if (moves.has(q)) {
      e.write(pathOf(this.arg(c, 0, 'src')), q);
      e.write(pathOf(this.arg(c, 1, 'dst')), q);
      return unknown;
    }
    if (copies.has(q)) {
      e.read(pathOf(this.arg(c, 0, 'src')), q);
      e.write(pathOf(this.arg(c, 1, 'dst')), q);
      return unknown;
    }
    if (links.has(q)) return (e.write(pathOf(this.arg(c, 1, 'dst')), q), unknown);
    if (opens.has(q)) {
      // A mode known only at run time may write.
      const given = this.arg(c, 1, 'mode');
      const mode = given === undefined ? 'r' : (known(given) ?? 'w');
      this.open(pathOf(this.arg(c, 0, 'file') ?? this.arg(c, 0, 'filename')), mode, short);
      return unknown;
    }
    if (q === 'os.open') {
      const flags = c.node?.childForFieldName('arguments')?.namedChildren[1]?.text ?? '';
      this.open(pathOf(c.args[0]), /O_(WRONLY|RDWR|APPEND|CREAT|TRUNC)/.test(flags) ? 'w' : 'r', q);
      return unknown;
    }
    if (walkers.has(q)) {
      this.walked = true;
      return unknown;
    }
    if (q === 'urllib.request.urlretrieve') e.write(pathOf(this.arg(c, 1, 'filename')), q);
    if (q === 'shutil.unpack_archive') return (e.writeTree(pathOf(this.arg(c, 1, 'extract_dir')) ?? '.', q), unknown);
    if (networkCalls.test(q)) {
      const target = q === 'requests.request' ? this.arg(c, 1, 'url') : (this.arg(c, 0, 'url') ?? c.args[0]);
      const t = target?.k === 'seq' ? target.items[0] : target;
      e.network(t ? known(t) : undefined, q);
      return unknown;
    }
    switch (short) {
      case 'exec':
      case 'eval':
      case 'execfile':
        return this.runCode(short === 'execfile' ? unknown : this.arg(c, 0, 'source'), short);
      case 'compile': {
        const src = this.arg(c, 0, 'source') ?? unknown;
        this.runCode(src, 'compile');
        return { k: 'code', src };
      }
      case '__import__':
        return this.importNamed(this.arg(c, 0, 'name'), c.args[3] ?? c.kw.get('fromlist'), '__import__');
      case 'getattr': {
        const obj = c.args[0] ?? unknown;
        const name = known(c.args[1]);
        if (name !== undefined) return this.attr(obj, name);
        if ((obj.k === 'ref' && powerful.test(obj.q)) || obj.k === 'scope')
          e.ask(
            'code.attr',
            `reads an attribute named at run time of ${obj.k === 'ref' ? obj.q : 'a namespace'} (getattr)`,
          );
        return unknown;
      }
      case 'globals':
      case 'locals':
        return { k: 'scope', modules: false };
      case 'vars':
        return c.args[0] ?? { k: 'scope', modules: false };
      case 'str':
        return c.args[0] && (c.args[0].k === 'path' || c.args[0].k === 'str')
          ? str(c.args[0].s, decodedBy(c.args[0]))
          : unknown;
      case 'bytes':
      case 'bytearray': {
        const a = c.args[0];
        if (a?.k === 'seq' && a.items.every((i) => i.k === 'num'))
          return str(a.items.map((i) => String.fromCharCode((i as { n: number }).n)).join(''), 'bytes');
        return a?.k === 'str' ? a : unknown;
      }
      case 'chr':
        return c.args[0]?.k === 'num' ? str(String.fromCharCode(c.args[0].n), 'chr') : { k: 'unknown', decoded: 'chr' };
      case 'map': {
        // map(chr, [114, 109]): the function applied to each known item.
        const [f, items] = c.args;
        if (items?.k !== 'seq' || !f || items.items.length > 256) return unknown;
        return {
          k: 'seq',
          items: items.items.map((i) =>
            f.k === 'ref'
              ? this.callRef({ q: f.q, args: [i], kw: new Map() })
              : f.k === 'fn'
                ? this.call(f.fn, [i], new Map())
                : unknown,
          ),
        };
      }
      case 'reversed':
        return c.args[0] ? this.item(c.args[0], unknown, null) : unknown;
      case 'breakpoint':
        return unknown;
    }
    if (sourceRunners.has(q)) {
      // The setup runs first (imports), then the statement.
      if (c.kw.get('setup')) this.runCode(c.kw.get('setup'), q);
      this.runCode(this.arg(c, 0, 'stmt') ?? this.arg(c, 0, 'cmd'), q);
      return unknown;
    }
    if (
      /^(pickle|marshal|dill|cloudpickle|_pickle)\.loads$/.test(q) &&
      (known(c.args[0]) !== undefined || decodedBy(c.args[0]))
    ) {
      e.ask('code.pickle', `unpickles data written into the code, which can run any code (${q})`);
      return unknown;
    }
    const owner = q.replace(/\.[^.]+$/, '');
    const ownModule = powerful.test(owner) && !owner.includes('.');
    if (/\.(__getattribute__|__getattr__)$/.test(q) || (/\.get$/.test(q) && ownModule)) {
      return this.item({ k: 'ref', q: owner }, c.args[0] ?? unknown, null);
    }
    if (/\.(values|items|keys|copy|pop)$/.test(q) && ownModule) {
      e.ask('code.attr', `lists the members of ${owner} (${q.replace(/^.*\./, '')})`);
      return unknown;
    }
    if (q === 'importlib.util.find_spec') return this.importNamed(this.arg(c, 0, 'name'), str('x'), q);
    if (q === 'importlib.util.module_from_spec') return c.args[0]?.k === 'ref' ? c.args[0] : unknown;
    if (q === 'importlib.import_module' || q === 'importlib.__import__')
      return this.importNamed(this.arg(c, 0, 'name'), str('x'), q);
    if (short in decoders) return decode(c.args[0], short, decoders[short]!);
    if (q === 'codecs.decode' || q === 'codecs.encode') {
      const enc = (known(this.arg(c, 1, 'encoding')) ?? '').toLowerCase().replace(/[-_]/g, '');
      const how = enc === 'rot13' ? rot13 : enc === 'base64' ? fromBase64 : enc === 'hex' ? fromHex : undefined;
      return how ? decode(c.args[0], q, how) : (c.args[0] ?? unknown);
    }
    if (q === 'os.path.join') return joinPath(c.args);
    if (q === 'shlex.split') {
      const t = known(c.args[0]);
      return t === undefined
        ? unknown
        : {
            k: 'seq',
            items: t
              .trim()
              .split(/\s+/)
              .map((w) => str(w.replace(/^(['"])(.*)\1$/, '$2'), decodedBy(c.args[0]))),
          };
    }
    if (/^os\.path\.(expanduser|expandvars|abspath|realpath|normpath)$/.test(q) || q === 'os.fspath')
      return c.args[0]?.k === 'path' ? str(c.args[0].s) : (c.args[0] ?? unknown);
    if (q === 'os.path.dirname') return dirname(c.args[0] ?? unknown);
    if (q === 'os.getcwd') return str('.');
    if (q === 'tempfile.mkdtemp') {
      const dir = str(`/tmp/${UNKNOWN}`);
      this.temps.add(dir);
      return dir;
    }
    if (q === 'os.getenv' || q === 'os.environ.get') {
      const k = known(c.args[0]);
      return envValue(k);
    }
    if (q === 'os.putenv') {
      const k = known(c.args[0]);
      if (k !== undefined) this.env(k, c.args[1] ?? unknown);
      return unknown;
    }
    if (q === 'os.environ.update' || q === 'os.environ.setdefault') {
      const d = c.args[0];
      if (d?.k === 'dict') for (const [k, v] of d.entries) this.env(k, v);
      for (const [k, v] of c.kw) this.env(k, v);
      if (q === 'os.environ.setdefault' && known(c.args[0]) !== undefined)
        this.env(known(c.args[0])!, c.args[1] ?? unknown);
      return unknown;
    }
    if (q === 'pathlib.Path')
      return c.args.length ? { k: 'path', s: textOf(joinPath(c.args)) ?? UNKNOWN } : { k: 'path', s: '.' };
    if (q === 'pathlib.Path.home') return { k: 'path', s: '~' };
    if (q === 'pathlib.Path.cwd') return { k: 'path', s: '.' };
    if (q === 'os.kill' || q === 'os.killpg') {
      const sig =
        c.args[1]?.k === 'ref' ? c.args[1].q.replace(/^signal\.(SIG)?/, '') : (textOf(c.args[1] ?? unknown) ?? UNKNOWN);
      this.runArgv(['kill', `-${sig}`, `${q === 'os.killpg' ? '-' : ''}${textOf(c.args[0] ?? unknown) ?? UNKNOWN}`], q);
      return unknown;
    }
    if (q === 'os.dup2') this.dup2 = true;
    if (q === 'os.chdir') e.chdir(c.args[0] ? (textOf(c.args[0]) ?? UNKNOWN) : undefined);
    if (/^ctypes\.(CDLL|PyDLL|WinDLL|OleDLL|cdll|pydll|windll|LibraryLoader)\b/.test(q))
      e.ask('code.native', `calls C library functions directly (${q})`);
    if (q === 'sys.modules.get') return this.item({ k: 'scope', modules: true }, c.args[0] ?? unknown, null);
    return unknown;
  }

  private importNamed(name: Val | undefined, fromlist: Val | undefined, via: string): Val {
    const n = known(name);
    if (n === undefined) {
      this.effects.ask('code.import', `imports a module named at run time (${via})`);
      return unknown;
    }
    // __import__('os.path') is `os` unless a fromlist asks for the submodule.
    return {
      k: 'ref',
      q: normalize(fromlist && !(fromlist.k === 'seq' && fromlist.items.length === 0) ? n : n.split('.')[0]!),
    };
  }

  private runArgv(argv: string[] | undefined, via: string, decoded?: string): void {
    if (argv && argv.length === 1 && shells.test(argv[0]!)) this.spawnsShell = true;
    this.effects.argv(argv, via, decoded);
  }

  private delete(path: Val | undefined, tree: boolean, via: string): void {
    // A temporary directory the code made itself (tempfile.mkdtemp) is its own to remove.
    if (path && this.temps.has(path)) return;
    if (this.inWalk > 0)
      this.effects.ask('delete.walk', `deletes files in a loop over a directory walk (${via} in os.walk)`);
    this.effects.delete(path === undefined ? undefined : (textOf(path) ?? UNKNOWN), tree, via);
  }

  private open(path: string | undefined, mode: string, via: string): void {
    if (/[wax+]/.test(mode)) this.effects.write(path, via);
    else this.effects.read(path, via);
  }

  /** Methods on values: strings, pathlib paths, dicts, and objects the analysis cannot follow. */
  private method(self: Val, name: string, args: Val[], kw: Map<string, Val>): Val {
    const e = this.effects;
    if (self.k === 'str') {
      const s = self.s;
      const by = self.decoded;
      switch (name) {
        case 'join': {
          const items = args[0]?.k === 'seq' ? args[0].items : undefined;
          return items
            ? str(collapse(items.map((i) => textOf(i) ?? UNKNOWN).join(s)), by ?? items.map(decodedBy).find(Boolean))
            : unknown;
        }
        case 'format':
          return str(
            s
              .replace(/\{([A-Za-z_]\w*)[^{}]*\}/g, (_m, k: string) => textOf(kw.get(k) ?? unknown) ?? UNKNOWN)
              .replace(/\{\{/g, '{')
              .replace(/\}\}/g, '}')
              .replace(
                /\{[^{}]*\}/g,
                (() => {
                  let i = 0;
                  return () => textOf(args[i++] ?? unknown) ?? UNKNOWN;
                })(),
              ),
            by,
          );
        case 'replace': {
          const a = known(args[0]);
          const b = args[1] ? textOf(args[1]) : undefined;
          return a !== undefined && b !== undefined && !s.includes(UNKNOWN)
            ? str(s.split(a).join(b), by)
            : { k: 'unknown', ...(by ? { decoded: by } : {}) };
        }
        case 'lower':
        case 'upper':
        case 'strip':
        case 'lstrip':
        case 'rstrip':
          return str(
            name === 'lower'
              ? s.toLowerCase()
              : name === 'upper'
                ? s.toUpperCase()
                : name === 'strip'
                  ? s.trim()
                  : name === 'lstrip'
                    ? s.trimStart()
                    : s.trimEnd(),
            by,
          );
        case 'encode':
        case 'decode':
          return self;
        case 'split':
          return s.includes(UNKNOWN)
            ? unknown
            : {
                k: 'seq',
                items: (args[0] ? s.split(known(args[0]) ?? ' ') : s.trim().split(/\s+/)).map((w) => str(w, by)),
              };
      }
      return by ? { k: 'unknown', decoded: by } : unknown;
    }
    if (self.k === 'path') {
      const p = self.s.includes(UNKNOWN) && self.s === UNKNOWN ? undefined : self.s;
      switch (name) {
        case 'write_text':
        case 'write_bytes':
        case 'touch':
        case 'mkdir':
        case 'chmod':
        case 'lchmod':
        case 'symlink_to':
        case 'hardlink_to':
          e.write(p, `Path.${name}`);
          return unknown;
        case 'rename':
        case 'replace':
          e.write(p, `Path.${name}`);
          e.write(pathOf(args[0]), `Path.${name}`);
          return unknown;
        case 'unlink':
        case 'rmdir':
          this.delete(p === undefined ? undefined : str(p), false, `Path.${name}`);
          return unknown;
        case 'open':
          this.open(p, known(args[0] ?? kw.get('mode')) ?? 'r', 'Path.open');
          return unknown;
        case 'read_text':
        case 'read_bytes':
          e.read(p, `Path.${name}`);
          return unknown;
        case 'joinpath':
          return { k: 'path', s: textOf(joinPath([self, ...args])) ?? UNKNOWN };
        case 'expanduser':
        case 'resolve':
        case 'absolute':
          return self;
        case 'iterdir':
        case 'glob':
        case 'rglob':
        case 'walk':
          this.walked = true;
          return unknown;
        case 'home':
          return { k: 'path', s: '~' };
      }
      return unknown;
    }
    if (self.k === 'seq' && name === 'pop') return self.items.pop() ?? unknown;
    if (mutate(self, name, args)) return unknown;
    if (self.k === 'dict' && name === 'get') return self.entries.get(known(args[0]) ?? '\0') ?? args[1] ?? unknown;
    if (self.k === 'scope' && name === 'get') return this.item(self, args[0] ?? unknown, null);
    if (self.k === 'ref') return this.callRef({ q: `${self.q}.${name}`, args, kw });
    if (/^(runsource|runcode|push)$/.test(name) && self.k === 'unknown' && args[0]?.k === 'str')
      this.runCode(args[0], name);
    if (name === 'extractall' || name === 'extract')
      e.writeTree(pathOf(kw.get('path') ?? (name === 'extractall' ? args[0] : args[1])) ?? '.', name);
    if (self.k === 'code') return unknown;
    if (self.k === 'unknown' && self.decoded && (name === 'decode' || name === 'encode')) return self;
    // An object the analysis cannot follow: the code's own method of that name, or a connection.
    if (/^(rglob|glob|iterdir|walk)$/.test(name)) this.walked = true;
    if (/^(connect|connect_ex|sendto|create_connection)$/.test(name)) {
      const target = args[0]?.k === 'seq' ? args[0].items[0] : args[0];
      e.network(target ? known(target) : undefined, name);
    }
    if (
      /^(post|put|patch|urlopen|sendall|request)$/.test(name) &&
      args.some((a) => /^https?:\/\//.test(known(a) ?? ''))
    )
      e.network(
        args.map(known).find((a) => a && /^https?:/.test(a)),
        name,
      );
    if (/^(unlink|rmdir)$/.test(name) && this.inWalk > 0) this.delete(undefined, false, `.${name}`);
    const own = this.fns.get(name);
    if (own) return this.call(own, args, kw, /^(self|cls)$/.test(own.params[0] ?? '') ? 1 : 0);
    // A module the analysis lost track of (loaded some other way) still has its members' names.
    const as = lostMembers[name];
    if (as && self.k === 'unknown') return this.callRef({ q: as, args, kw });
    return unknown;
  }
}
