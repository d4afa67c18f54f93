// JavaScript (`node -e`) judged on its syntax tree: require and import (static and dynamic) with aliases and
// destructuring, member lookups with keys built from literals, path.join and os.homedir paths, template strings,
// Buffer/atob decoding, eval/Function/vm of known or decoded text, and the code's own functions called with known
// arguments. What a call does is handed to CodeEffects.
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
  fromBase64,
  fromHex,
  joinPath,
  known,
  pathOf,
  str,
  textOf,
  unknown,
  type FnDef,
  type Val,
} from './codeValues.js';

/** Globals the analysis models; any other unbound name is a value it cannot know. */
const globalNames = new Set([
  'require',
  'eval',
  'Function',
  'process',
  'Buffer',
  'atob',
  'fetch',
  'module',
  'String',
  'Reflect',
  'Object',
  'JSON',
  'console',
  'setTimeout',
  'setInterval',
  'WebSocket',
  'Deno',
  'Bun',
  'XMLHttpRequest',
]);

const moduleLoader = new RegExp(
  String.raw`^(process\.mainModule|module|require\.main|process\.mainModule\.constructor|` +
    String.raw`module\.constructor)\.(require|_load)$`,
);

function normalize(q: string): string {
  const s = q
    .replace(/^node:/, '')
    .replace(/^fs\/promises(\.|$)/, 'fs.promises$1')
    .replace(/^(global|globalThis|window|self)\./, '');
  if (moduleLoader.test(s) || /^module\._load$/.test(s) || s === 'module.constructor.prototype.require')
    return 'require';
  // An ES module's default export of a Node module is the module itself.
  return s.replace(/\.default(?=\.|$)/, '').replace(/^fs\.promises\./, 'fs.');
}

const shellFirst = new Set(['child_process.exec', 'child_process.execSync']);
const argvCalls = new Set([
  'child_process.spawn',
  'child_process.spawnSync',
  'child_process.execFile',
  'child_process.execFileSync',
]);
const removes = new Set(['fs.rm', 'fs.rmSync', 'fs.rmdir', 'fs.rmdirSync']);
const unlinks = new Set(['fs.unlink', 'fs.unlinkSync']);
const writesFirst = new RegExp(
  String.raw`^fs\.(writeFile|appendFile|createWriteStream|truncate|chmod|lchmod|chown|lchown|mkdir|utimes|` +
    'lutimes|mkdtemp)(Sync)?$',
);
const readsFirst = /^fs\.(readFile|createReadStream|readdir|opendir)(Sync)?$/;
const copies = /^fs\.(copyFile|cp)(Sync)?$/;
const renames = /^fs\.rename(Sync)?$/;
const links = /^fs\.(symlink|link)(Sync)?$/;
const opens = /^fs\.open(Sync)?$/;
const networkCalls = new RegExp(
  String.raw`^(fetch|https?\.(request|get)|http2\.connect|net\.(connect|createConnection|Socket)|tls\.connect|` +
    String.raw`dgram\.createSocket|WebSocket|XMLHttpRequest|axios(\.(get|post|put|patch|delete|request))?|` +
    String.raw`undici\.(request|fetch))$`,
);
const codeRunners = new RegExp(
  String.raw`^(eval|Function|vm\.(runInThisContext|runInNewContext|runInContext|compileFunction|Script|` +
    String.raw`SourceTextModule)|(.+\.)?constructor)$`,
);
/** Modules whose members run programs, change files or load code: a member looked up by a computed key asks. */
const powerful = /^(child_process|fs|vm|module|process|worker_threads|require|cluster|inspector|v8)(\.|$)/;

function unescapeJs(s: string): string {
  return s.replace(/\\(\n|x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|[0-7]{1,3}|[\s\S])/g, (_, e: string) => {
    if (e === '\n') return '';
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (e[0] === 'u') return String.fromCodePoint(parseInt(e.replace(/[u{}]/g, ''), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' } as Record<string, string>)[e] ?? e;
  });
}

function safeDecodeURI(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    // Not percent-encoded as a URL would be: node reads it as written.
    return s;
  }
}

export class JavaScriptAnalysis extends CodeAnalysis {
  /** Objects of enclosing `with` statements, innermost last: their members are names in its body. */
  private withs: Val[] = [];

  private lookup(name: string): Val {
    const v = this.vars.get(name);
    if (v) return v;
    for (let i = this.withs.length - 1; i >= 0; i--)
      if (this.withs[i]!.k === 'ref' || this.withs[i]!.k === 'dict') return this.member(this.withs[i]!, name);
    if (name === 'globalThis' || name === 'global' || name === 'window' || name === 'self')
      return { k: 'scope', modules: false };
    if (name === '__dirname' || name === '__filename') return str('.');
    return globalNames.has(name) ? { k: 'ref', q: name } : unknown;
  }

  private member(v: Val, name: string): Val {
    if (v.k === 'ref') {
      const q = normalize(`${v.q}.${name}`);
      if (/^process\.env\./.test(q)) return envValue(q.slice('process.env.'.length));
      if (q === 'process.execPath' || q === 'process.argv0') return str('node');
      return { k: 'ref', q };
    }
    if (v.k === 'scope') return this.lookup(name);
    if (v.k === 'dict') return v.entries.get(name) ?? { k: 'method', self: v, name };
    if (v.k === 'seq' && name === 'length') return { k: 'num', n: v.items.length };
    return { k: 'method', self: v, name };
  }

  /** `x[key]`: a module or namespace with a key known only at run time asks. */
  private item(v: Val, keyNode: CodeNode): Val {
    const key = this.evalExpr(keyNode);
    const k = known(key);
    if (
      k === undefined &&
      ((v.k === 'ref' && powerful.test(v.q)) || v.k === 'scope') &&
      !(v.k === 'ref' && /^process\.env$/.test(v.q))
    ) {
      this.effects.ask(
        'code.attr',
        `looks up a name computed at run time in ${v.k === 'ref' ? v.q : 'the global object'} ` +
          `(${keyNode.text.slice(0, 40)})`,
      );
      return unknown;
    }
    if (v.k === 'seq' && key.k === 'num') return v.items[key.n] ?? unknown;
    return k === undefined ? unknown : this.member(v, k);
  }

  private bind(target: CodeNode | null, v: Val): void {
    if (!target) return;
    switch (target.type) {
      case 'identifier':
      case 'shorthand_property_identifier_pattern':
        this.vars.set(target.text, v);
        return;
      case 'object_pattern':
        for (const p of target.namedChildren) {
          if (p.type === 'shorthand_property_identifier_pattern') this.bind(p, this.member(v, p.text));
          else if (p.type === 'pair_pattern') {
            const key = p.childForFieldName('key')!;
            const name =
              key.type === 'property_identifier'
                ? key.text
                : known(this.evalExpr(key.type === 'computed_property_name' ? (key.namedChildren[0] ?? key) : key));
            if (name === undefined && ((v.k === 'ref' && powerful.test(v.q)) || v.k === 'scope'))
              this.effects.ask(
                'code.attr',
                `looks up a name computed at run time in ${v.k === 'ref' ? v.q : 'the global object'} ` +
                  `(${key.text.slice(0, 40)})`,
              );
            this.bind(p.childForFieldName('value'), name === undefined ? unknown : this.member(v, name));
          } else if (p.type === 'object_assignment_pattern')
            this.bind(p.childForFieldName('left'), this.member(v, p.childForFieldName('left')?.text ?? ''));
          else this.bind(p.namedChildren[0] ?? null, unknown);
        }
        return;
      case 'array_pattern':
        target.namedChildren.forEach((t, i) => this.bind(t, v.k === 'seq' ? (v.items[i] ?? unknown) : unknown));
        return;
      case 'assignment_pattern':
        this.bind(target.childForFieldName('left'), v);
        return;
      case 'member_expression': {
        const obj = this.evalExpr(target.childForFieldName('object')!);
        const prop = target.childForFieldName('property')?.text;
        if (obj.k === 'ref' && obj.q === 'process.env' && prop) this.env(prop, v);
        if (obj.k === 'dict' && prop) obj.entries.set(prop, v);
        return;
      }
      case 'subscript_expression': {
        const obj = this.evalExpr(target.childForFieldName('object')!);
        const index = target.childForFieldName('index');
        setItem(obj, index ? this.evalExpr(index) : unknown, v);
        return;
      }
      default:
        this.evalExpr(target);
    }
  }

  private env(name: string, v: Val): void {
    if (/^[A-Za-z_]\w*$/.test(name))
      this.effects.shell(`${name}=${JSON.stringify(textOf(v) ?? UNKNOWN)}`, 'process.env');
  }

  private fnDef(name: string, params: CodeNode | null, body: CodeNode): FnDef {
    const names: string[] = [];
    const defaults: (Val | undefined)[] = [];
    let rest = -1;
    const list = params ? (params.type === 'formal_parameters' ? params.namedChildren : [params]) : [];
    for (const p of list) {
      if (p.type === 'rest_pattern') rest = names.length;
      const id =
        p.type === 'identifier' ? p : p.type === 'rest_pattern' ? p.namedChildren[0] : p.childForFieldName('left');
      const dflt = p.type === 'assignment_pattern' ? p.childForFieldName('right') : null;
      defaults[names.length] = dflt ? this.evalExpr(dflt) : undefined;
      names.push(id?.type === 'identifier' ? id.text : `#${names.length}`);
    }
    return { name, params: names, defaults, rest, body, expression: body.type !== 'statement_block', calls: 0 };
  }

  protected walk(node: CodeNode): void {
    this.evalExpr(node);
  }

  protected evalExpr(node: CodeNode): Val {
    if (!this.spend()) return unknown;
    switch (node.type) {
      case 'with_statement': {
        const obj = node.childForFieldName('object');
        this.withs.push(obj ? this.evalExpr(obj) : unknown);
        try {
          const body = node.childForFieldName('body');
          if (body) this.evalExpr(body);
        } finally {
          this.withs.pop();
        }
        return unknown;
      }
      case 'program': {
        let last = unknown;
        for (const c of node.namedChildren) last = this.evalExpr(c);
        return node.lastNamedChild?.type === 'expression_statement' ? last : unknown;
      }
      case 'expression_statement':
        return node.namedChildren.length === 1 ? this.evalExpr(node.namedChildren[0]!) : this.children(node);
      case 'import_statement': {
        const source = known(this.evalExpr(node.childForFieldName('source')!));
        const mod: Val = source === undefined ? unknown : { k: 'ref', q: normalize(source) };
        const clause = node.namedChildren.find((c) => c.type === 'import_clause');
        for (const c of clause?.namedChildren ?? []) {
          if (c.type === 'identifier') this.vars.set(c.text, mod);
          else if (c.type === 'namespace_import') this.vars.set(c.namedChildren[0]!.text, mod);
          else if (c.type === 'named_imports') {
            for (const s of c.namedChildren) {
              const name = s.childForFieldName('name')!.text;
              this.vars.set(s.childForFieldName('alias')?.text ?? name, this.member(mod, name));
            }
          }
        }
        return unknown;
      }
      case 'variable_declarator': {
        const value = node.childForFieldName('value');
        const v = value ? this.evalExpr(value) : unknown;
        this.bind(node.childForFieldName('name'), v);
        return unknown;
      }
      case 'assignment_expression': {
        const v = this.evalExpr(node.childForFieldName('right')!);
        this.bind(node.childForFieldName('left'), v);
        return v;
      }
      case 'augmented_assignment_expression': {
        const left = node.childForFieldName('left')!;
        const v = this.evalExpr(node.childForFieldName('right')!);
        const op = node.childForFieldName('operator')?.text ?? node.children[1]?.text;
        if (left.type === 'identifier')
          this.vars.set(left.text, op === '+=' ? concat(this.lookup(left.text), v) : unknown);
        return unknown;
      }
      case 'function_declaration':
      case 'generator_function_declaration': {
        const name = node.childForFieldName('name')!.text;
        this.vars.set(
          name,
          this.define(this.fnDef(name, node.childForFieldName('parameters'), node.childForFieldName('body')!)),
        );
        return unknown;
      }
      case 'function_expression':
      case 'arrow_function':
      case 'generator_function': {
        const body = node.childForFieldName('body');
        const params = node.childForFieldName('parameters') ?? node.childForFieldName('parameter');
        return body
          ? this.define(this.fnDef(node.childForFieldName('name')?.text ?? '<anonymous>', params, body), false)
          : unknown;
      }
      case 'method_definition': {
        const name = node.childForFieldName('name')!.text;
        const body = node.childForFieldName('body');
        if (body) this.define(this.fnDef(name, node.childForFieldName('parameters'), body));
        return unknown;
      }
      case 'return_statement': {
        const v = node.namedChildren[0] ? this.evalExpr(node.namedChildren[0]) : unknown;
        this.returned(v);
        return unknown;
      }
      case 'for_in_statement': {
        const right = node.childForFieldName('right');
        if (right) this.evalExpr(right);
        this.bind(node.childForFieldName('left'), unknown);
        const body = node.childForFieldName('body');
        if (body) this.evalExpr(body);
        return unknown;
      }
      case 'string': {
        let s = '';
        for (const c of node.namedChildren) s += c.type === 'escape_sequence' ? unescapeJs(c.text) : c.text;
        return str(s);
      }
      case 'template_string': {
        let s = '';
        for (const c of node.namedChildren) {
          if (c.type === 'template_substitution')
            s += c.namedChildren[0] ? (textOf(this.evalExpr(c.namedChildren[0])) ?? UNKNOWN) : UNKNOWN;
          else s += c.type === 'escape_sequence' ? unescapeJs(c.text) : c.text;
        }
        return str(collapse(s));
      }
      case 'number':
        return { k: 'num', n: Number(node.text) };
      case 'true':
      case 'false':
        return { k: 'bool', b: node.type === 'true' };
      case 'identifier':
        return this.lookup(node.text);
      case 'member_expression': {
        const obj = this.evalExpr(node.childForFieldName('object')!);
        const prop = node.childForFieldName('property');
        return prop?.type === 'private_property_identifier' ? unknown : this.member(obj, prop?.text ?? '');
      }
      case 'subscript_expression':
        return this.item(this.evalExpr(node.childForFieldName('object')!), node.childForFieldName('index')!);
      case 'array':
        return { k: 'seq', items: this.items(node, 'spread_element') };
      case 'object': {
        const entries = new Map<string, Val>();
        for (const p of node.namedChildren) {
          if (p.type === 'pair') {
            const key = p.childForFieldName('key')!;
            const k =
              key.type === 'property_identifier'
                ? key.text
                : known(this.evalExpr(key.type === 'computed_property_name' ? (key.namedChildren[0] ?? key) : key));
            const v = this.evalExpr(p.childForFieldName('value')!);
            if (k !== undefined) entries.set(k, v);
          } else if (p.type === 'shorthand_property_identifier') entries.set(p.text, this.lookup(p.text));
          else if (p.type === 'method_definition') {
            const body = p.childForFieldName('body');
            const name = p.childForFieldName('name')?.text;
            if (body && name) entries.set(name, this.define(this.fnDef(name, p.childForFieldName('parameters'), body)));
          } else this.evalExpr(p);
        }
        return { k: 'dict', entries };
      }
      case 'parenthesized_expression':
      case 'await_expression':
      case 'sequence_expression':
        return node.namedChildren.length ? this.evalExpr(node.namedChildren[node.namedChildren.length - 1]!) : unknown;
      case 'binary_expression': {
        const l = this.evalExpr(node.childForFieldName('left')!);
        const r = this.evalExpr(node.childForFieldName('right')!);
        if (node.childForFieldName('operator')?.text === '+') return concat(l, r);
        return unknown;
      }
      case 'call_expression':
        return this.callExpr(node, this.evalExpr(node.childForFieldName('function')!));
      case 'new_expression':
        return this.callExpr(node, this.evalExpr(node.childForFieldName('constructor')!));
      case 'import':
        return { k: 'ref', q: 'import' };
      case 'comment':
      case 'regex':
      case 'this':
        return unknown;
      default:
        return this.children(node);
    }
  }

  private callExpr(node: CodeNode, fn: Val): Val {
    const args: Val[] = [];
    for (const a of node.childForFieldName('arguments')?.namedChildren ?? []) {
      if (a.type === 'spread_element') {
        const v = this.evalExpr(a.namedChildren[0]!);
        if (v.k === 'seq') args.push(...v.items);
        else args.push(unknown);
      } else if (a.type !== 'comment') args.push(this.evalExpr(a));
    }
    // A template literal call (fn`…`) passes its text.
    if (node.childForFieldName('arguments')?.type === 'template_string')
      args.push(this.evalExpr(node.childForFieldName('arguments')!));
    const callee = fn.k === 'ref' ? fn.q : fn.k === 'method' ? fn.name : fn.k === 'fn' ? fn.fn.name : '';
    for (const a of args) if (a.k === 'str') this.effects.mention(a.s, callee);
    if (fn.k !== 'fn') this.callbacks(fn, args);
    return this.apply(fn, args);
  }

  /**
   * Functions handed to a call to be called later (a callback, a timer, a listener) are called with the arguments
   * after them; a powerful module handed to a function the analysis does not follow asks.
   */
  private callbacks(fn: Val, args: Val[]): void {
    const q = fn.k === 'ref' ? fn.q : '';
    if (/^(console\.|JSON\.|String|Number|Boolean|Array\.isArray)/.test(q) || q === 'require' || q === 'import') return;
    if (fn.k === 'method' && fn.self.k === 'seq') return;
    args.forEach((v, i) => {
      if (v.k === 'fn') this.call(v.fn, args.slice(i + 1), new Map());
      else if (v.k === 'ref' && this.models(v.q)) this.callRef(v.q, args.slice(i + 1));
      else if (
        v.k === 'ref' &&
        ((powerful.test(v.q) && !v.q.includes('.')) || v.q === 'process.mainModule') &&
        !this.models(q)
      )
        this.effects.ask('code.attr', `hands ${v.q} to ${q || 'a function'} the analysis cannot follow`);
    });
  }

  /** Is a qualified name one the analysis gives meaning to? */
  private models(q: string): boolean {
    return (
      shellFirst.has(q) ||
      argvCalls.has(q) ||
      removes.has(q) ||
      unlinks.has(q) ||
      writesFirst.test(q) ||
      copies.test(q) ||
      renames.test(q) ||
      links.test(q) ||
      codeRunners.test(q) ||
      /^(require|process\.(binding|_linkedBinding|dlopen))$/.test(q)
    );
  }

  private apply(fn: Val, args: Val[]): Val {
    if (fn.k === 'fn') return this.call(fn.fn, args, new Map());
    if (fn.k === 'ref') return this.callRef(fn.q, args);
    if (fn.k === 'method') return this.method(fn.self, fn.name, args);
    return unknown;
  }

  private callRef(q: string, args: Val[]): Val {
    const e = this.effects;
    const a0 = args[0];
    // `execSync.call(null, …)`, `import('x').then(m => …)`: the member's own methods.
    const own = /^(.+)\.(call|apply|bind|then)$/.exec(q);
    if (own && q !== 'Reflect.apply') return this.method({ k: 'ref', q: own[1]! }, own[2]!, args);
    if (q === 'require' || q === 'import' || q === 'module.createRequire') {
      if (q === 'module.createRequire') return { k: 'ref', q: 'require' };
      const name = known(a0);
      if (name === undefined) {
        e.ask('code.import', `loads a module named at run time (${q === 'import' ? 'import()' : 'require'})`);
        return unknown;
      }
      if (/^data:/i.test(name)) {
        const m = /^data:[^,]*?(;base64)?,([\s\S]*)$/i.exec(name);
        const body = m?.[2] ?? '';
        this.runCode(
          m?.[1] ? decode(str(body), 'a base64 data: URL', fromBase64) : str(safeDecodeURI(body)),
          q === 'import' ? 'import()' : 'require',
        );
        return unknown;
      }
      if (/^https?:/i.test(name)) e.ask('remote.import', `loads code from the network (${name.slice(0, 60)})`);
      return { k: 'ref', q: normalize(name) };
    }
    if (q === 'worker_threads.Worker') {
      const opts = args[1]?.k === 'dict' ? args[1].entries.get('eval') : undefined;
      if (opts && !(opts.k === 'bool' && !opts.b)) this.runCode(a0, q);
      return unknown;
    }
    if (shellFirst.has(q)) return (e.shell(a0 ? textOf(a0) : undefined, q, decodedBy(a0)), unknown);
    if (argvCalls.has(q)) {
      const list = args[1]?.k === 'seq' ? args[1] : undefined;
      const opts = (args[1]?.k === 'dict' ? args[1] : args[2]?.k === 'dict' ? args[2] : undefined)?.entries;
      const argv = [textOf(a0 ?? unknown) ?? UNKNOWN, ...(list ? (argvOf(list) ?? []) : [])];
      const shell = opts?.get('shell');
      const decoded = decodedBy(a0) ?? decodedBy(list);
      if (shell && !(shell.k === 'bool' && !shell.b)) e.shell(argv.join(' '), q, decoded);
      else e.argv(argv, q, decoded);
      return unknown;
    }
    if (removes.has(q)) {
      const opts = args[1]?.k === 'dict' ? args[1].entries : undefined;
      const recursive = opts?.get('recursive');
      const tree = recursive !== undefined && !(recursive.k === 'bool' && !recursive.b);
      e.delete(a0 ? (textOf(a0) ?? UNKNOWN) : undefined, tree, q);
      return unknown;
    }
    if (unlinks.has(q)) return (e.delete(a0 ? (textOf(a0) ?? UNKNOWN) : undefined, false, q), unknown);
    if (writesFirst.test(q)) return (e.write(pathOf(a0), q), unknown);
    if (readsFirst.test(q)) return (e.read(pathOf(a0), q), unknown);
    if (copies.test(q)) {
      e.read(pathOf(a0), q);
      e.write(pathOf(args[1]), q);
      return unknown;
    }
    if (renames.test(q)) {
      e.write(pathOf(a0), q);
      e.write(pathOf(args[1]), q);
      return unknown;
    }
    if (links.test(q)) return (e.write(pathOf(args[1]), q), unknown);
    if (opens.test(q)) {
      // Flags known only at run time may write.
      const flags = args[1] === undefined ? 'r' : (known(args[1]) ?? 'w');
      if (/[wa+]/.test(flags) || args[1]?.k === 'num') e.write(pathOf(a0), q);
      else e.read(pathOf(a0), q);
      return unknown;
    }
    if (networkCalls.test(q)) {
      const target =
        a0?.k === 'dict'
          ? (a0.entries.get('host') ?? a0.entries.get('hostname'))
          : q.startsWith('net.') && args[1]
            ? args[1]
            : a0;
      e.network(target ? known(target) : undefined, q);
      return unknown;
    }
    if (codeRunners.test(q))
      return this.runSource(q, q === 'Function' || q.endsWith('constructor') ? args : [a0 ?? unknown]);
    if ((q === 'setTimeout' || q === 'setInterval') && a0?.k === 'str') return (this.runCode(a0, q), unknown);
    if (
      q === 'setTimeout' ||
      q === 'setInterval' ||
      q === 'process.nextTick' ||
      q === 'queueMicrotask' ||
      q === 'setImmediate'
    )
      return a0?.k === 'fn' ? this.call(a0.fn, args.slice(2), new Map()) : unknown;
    if (/^process\.(binding|_linkedBinding|dlopen)$/.test(q)) {
      e.ask('code.native', `reaches Node's internals (${q})`);
      return unknown;
    }
    if (q === 'path.join' || q === 'path.posix.join') return joinPath(args);
    if (q === 'path.resolve' || q === 'path.posix.resolve') return joinPath(args, true);
    if (q === 'path.normalize') return a0 ?? unknown;
    if (q === 'path.dirname') return dirname(a0 ?? unknown);
    if (q === 'os.homedir') return str('~');
    if (q === 'process.cwd') return str('.');
    if (q === 'Buffer.from') {
      const enc = (known(args[1]) ?? '').toLowerCase();
      if (enc === 'base64' || enc === 'base64url') return decode(a0, 'Buffer.from base64', fromBase64);
      if (enc === 'hex') return decode(a0, 'Buffer.from hex', fromHex);
      return a0 ?? unknown;
    }
    if (q === 'atob') return decode(a0, 'atob', fromBase64);
    if (q === 'String.fromCharCode' || q === 'String.fromCodePoint') {
      return args.every((a) => a.k === 'num')
        ? str(args.map((a) => String.fromCodePoint((a as { n: number }).n)).join(''), q)
        : { k: 'unknown', decoded: q };
    }
    if (q === 'String' || q === 'String.raw') return a0 ?? unknown;
    if (q === 'util.promisify') return a0 ?? unknown;
    if (q === 'process.chdir') return (e.chdir(a0 ? (textOf(a0) ?? UNKNOWN) : undefined), unknown);
    if (q === 'process.kill') {
      e.argv(
        [
          'kill',
          `-${textOf(args[1] ?? str('TERM')) ?? UNKNOWN}`.replace(/^-SIG/, '-'),
          textOf(a0 ?? unknown) ?? UNKNOWN,
        ],
        q,
      );
      return unknown;
    }
    if (q === 'Reflect.get') {
      const k = known(args[1]);
      if (k !== undefined) return this.member(a0 ?? unknown, k);
      if (a0?.k === 'ref' || a0?.k === 'scope') e.ask('code.attr', `reads a property named at run time (Reflect.get)`);
      return unknown;
    }
    if (q === 'Reflect.apply') return this.apply(a0 ?? unknown, args[2]?.k === 'seq' ? args[2].items : []);
    if (q === 'Reflect.construct') return this.apply(a0 ?? unknown, args[1]?.k === 'seq' ? args[1].items : []);
    return unknown;
  }

  /**
   * eval, vm and Function: the source is analysed where it is given; eval's value is its last expression, and
   * Function('a', 'body') is a function of that body, analysed again where it is called.
   */
  private runSource(via: string, args: Val[]): Val {
    const src = args[args.length - 1];
    const value = this.runCode(src, via);
    if (!/(^Function|constructor)$/.test(via)) return value;
    const body = known(src);
    if (body === undefined || decodedBy(src)) return unknown;
    const params = args.slice(0, -1).flatMap((a) => (known(a) ?? '').split(',').map((p) => p.trim()));
    return this.define(
      { name: '<Function>', params, defaults: [], rest: -1, body: this.parsed(body), expression: false, calls: 1 },
      false,
    );
  }

  /** Methods on values: strings, functions (call/apply/bind), promises of modules, and the code's own methods. */
  private method(self: Val, name: string, args: Val[]): Val {
    if (name === 'call' || name === 'apply' || name === 'bind') {
      if (name === 'bind') return self;
      return this.apply(self, name === 'call' ? args.slice(1) : args[1]?.k === 'seq' ? args[1].items : []);
    }
    if (name === 'then' && self.k === 'ref' && args[0]?.k === 'fn') return this.call(args[0].fn, [self], new Map());
    // Any function's constructor is Function: `(() => {}).constructor('…')()`.
    if (name === 'constructor') return this.runSource('constructor', args);
    if (self.k === 'str') {
      const s = self.s;
      const by = self.decoded;
      switch (name) {
        case 'toString':
        case 'trim':
        case 'valueOf':
          return name === 'trim' ? str(s.trim(), by) : self;
        case 'concat':
          return args.reduce<Val>((acc, a) => concat(acc, a), self);
        case 'split': {
          const sep = known(args[0]);
          return sep !== undefined && !s.includes(UNKNOWN)
            ? { k: 'seq', items: s.split(sep).map((w) => str(w, by)) }
            : unknown;
        }
        case 'reverse':
          return unknown;
        case 'replace':
        case 'replaceAll': {
          const a = known(args[0]);
          const b = args[1] ? textOf(args[1]) : undefined;
          return a !== undefined && b !== undefined && !s.includes(UNKNOWN)
            ? str(s.split(a).join(b), by)
            : by
              ? { k: 'unknown', decoded: by }
              : unknown;
        }
      }
      return by ? { k: 'unknown', decoded: by } : unknown;
    }
    if (self.k === 'seq' && (name === 'pop' || name === 'shift'))
      return (name === 'pop' ? self.items.pop() : self.items.shift()) ?? unknown;
    // Array methods that change the array in place and return it.
    if (self.k === 'seq' && (name === 'reverse' || name === 'push' || name === 'unshift'))
      return (mutate(self, name, args), name === 'reverse' ? self : unknown);
    if (mutate(self, name, args)) return unknown;
    if (self.k === 'seq') {
      if (/^(forEach|map|filter|some|every|flatMap|find|findIndex)$/.test(name) && args[0]) {
        for (const item of self.items.slice(0, 8)) this.apply(args[0], [item]);
        if (self.items.length === 0) this.apply(args[0], [unknown]);
        return unknown;
      }
      if (name === 'join')
        return str(
          collapse(self.items.map((i) => textOf(i) ?? UNKNOWN).join(known(args[0]) ?? ',')),
          self.items.map(decodedBy).find(Boolean),
        );
      return unknown;
    }
    if (self.k === 'unknown' && self.decoded) return self;
    // A module the analysis lost track of still has its members' names (`m.execSync(…)`).
    if (self.k === 'unknown' && /^(execSync|execFileSync|spawnSync|execFile|rmSync)$/.test(name))
      return this.callRef(name === 'rmSync' ? 'fs.rmSync' : `child_process.${name}`, args);
    const own = this.fns.get(name);
    if (own && self.k !== 'ref') return this.call(own, args, new Map());
    return unknown;
  }
}
