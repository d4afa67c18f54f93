// The walk over a Python syntax tree: each statement and expression evaluated in order (imports, assignments,
// definitions, loops over directory walks, comprehensions, calls with their arguments and the callbacks they hand
// over). What a call to a library or a value's method does is pythonAnalysis.ts and pythonMethods.ts.
import { PythonScope, type Call } from './pythonScope.js';
import type { CodeNode } from './codeParsers.js';
import { concat, known, str, unknown, type Val } from './codeValues.js';
import { modelled, normalize, powerful } from './pythonNames.js';

/** Evaluates a Python syntax tree top to bottom; library calls and methods on values are the subclasses'. */
export abstract class PythonWalker extends PythonScope {
  protected abstract callRef(c: Call): Val;
  protected abstract method(self: Val, name: string, args: Val[], kw: Map<string, Val>): Val;

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
}
