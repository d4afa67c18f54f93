// The walk over a JavaScript syntax tree: each statement and expression evaluated in order (require and import with
// destructuring, member lookups with keys built from literals, `with`, template strings, functions the code defines,
// calls with the callbacks they hand over). What a library call or a value's method does is javascriptAnalysis.ts.
import { UNKNOWN } from '../scanTypes.js';
import { CodeAnalysis } from './codeAnalysis.js';
import type { CodeNode } from './codeParsers.js';
import {
  collapse,
  concat,
  envValue,
  setItem,
  known,
  str,
  textOf,
  unknown,
  type FnDef,
  type Val,
} from './codeValues.js';
import { globalNames, modelled, normalize, powerful, unescapeJs } from './javascriptNames.js';

/** Evaluates a JavaScript syntax tree top to bottom; library calls and methods on values are the subclass's. */
export abstract class JavaScriptWalker extends CodeAnalysis {
  protected abstract callRef(q: string, args: Val[]): Val;
  protected abstract method(self: Val, name: string, args: Val[]): Val;

  /** Objects of enclosing `with` statements, innermost last: their members are names in its body. */
  private withs: Val[] = [];

  protected lookup(name: string): Val {
    const v = this.vars.get(name);
    if (v) return v;
    for (let i = this.withs.length - 1; i >= 0; i--)
      if (this.withs[i]!.k === 'ref' || this.withs[i]!.k === 'dict') return this.member(this.withs[i]!, name);
    if (name === 'globalThis' || name === 'global' || name === 'window' || name === 'self')
      return { k: 'scope', modules: false };
    if (name === '__dirname' || name === '__filename') return str('.');
    return globalNames.has(name) ? { k: 'ref', q: name } : unknown;
  }

  protected member(v: Val, name: string): Val {
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
  protected item(v: Val, keyNode: CodeNode): Val {
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

  protected bind(target: CodeNode | null, v: Val): void {
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

  protected readonly environ = 'process.env';

  protected fnDef(name: string, params: CodeNode | null, body: CodeNode): FnDef {
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

  protected callExpr(node: CodeNode, fn: Val): Val {
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
  protected callbacks(fn: Val, args: Val[]): void {
    const q = fn.k === 'ref' ? fn.q : '';
    if (/^(console\.|JSON\.|String|Number|Boolean|Array\.isArray)/.test(q) || q === 'require' || q === 'import') return;
    if (fn.k === 'method' && fn.self.k === 'seq') return;
    args.forEach((v, i) => {
      if (v.k === 'fn') this.call(v.fn, args.slice(i + 1), new Map());
      else if (v.k === 'ref' && modelled(v.q)) this.callRef(v.q, args.slice(i + 1));
      else if (
        v.k === 'ref' &&
        ((powerful.test(v.q) && !v.q.includes('.')) || v.q === 'process.mainModule') &&
        !modelled(q)
      )
        this.effects.ask('code.attr', `hands ${v.q} to ${q || 'a function'} the analysis cannot follow`);
    });
  }

  protected apply(fn: Val, args: Val[]): Val {
    if (fn.k === 'fn') return this.call(fn.fn, args, new Map());
    if (fn.k === 'ref') return this.callRef(fn.q, args);
    if (fn.k === 'method') return this.method(fn.self, fn.name, args);
    return unknown;
  }
}
