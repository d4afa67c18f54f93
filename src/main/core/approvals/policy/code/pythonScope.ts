// Python's names and values as the code runs: what a name, an attribute or a subscript holds (imports,
// `from M import *`, globals() and sys.modules lookups, os.environ), what an assignment binds, strings with their
// escapes and interpolations, and the operators that build text and paths. The walk over statements is pythonWalker.ts.
import { posix } from 'node:path';
import { UNKNOWN } from '../scanTypes.js';
import { CodeAnalysis } from './codeAnalysis.js';
import type { CodeNode } from './codeParsers.js';
import {
  collapse,
  concat,
  decodedBy,
  dirname,
  envValue,
  setItem,
  format,
  joinPath,
  known,
  str,
  textOf,
  unknown,
  type FnDef,
  type Val,
} from './codeValues.js';
import { builtinNames, internals, modelled, normalize, powerful, unescapePython } from './pythonNames.js';

export interface Call {
  q: string;
  args: Val[];
  kw: Map<string, Val>;
  /** The call's node, when the call is written in the code (not a callback or a method of a looked-up member). */
  node?: CodeNode;
}

/** The state a Python analysis keeps as it walks, and the values its names and expressions hold. */
export abstract class PythonScope extends CodeAnalysis {
  /** Modules imported with `from M import *`, latest last. */
  protected stars: string[] = [];
  /** Set while a for loop's iterable walks a directory; deletes in its body then ask. */
  protected walked = false;
  protected inWalk = 0;
  /** Directories made by tempfile.mkdtemp, by identity of the value. */
  protected readonly temps = new Set<Val>();
  protected spawnsShell = false;

  protected lookup(name: string): Val {
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

  protected attr(v: Val, name: string): Val {
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
  protected item(v: Val, key: Val, keyNode: CodeNode | null): Val {
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

  protected bind(target: CodeNode, v: Val): void {
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

  protected readonly environ = 'os.environ';

  protected fnDef(name: string, paramsNode: CodeNode | null, body: CodeNode, expression: boolean): FnDef {
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

  protected string(node: CodeNode): Val {
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

  protected binary(node: CodeNode): Val {
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
}
