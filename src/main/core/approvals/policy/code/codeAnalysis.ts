// What the Python and JavaScript analysers share: names bound as the code runs top to bottom, functions the code
// defines analysed at each call with the arguments given there (so a helper `def run(cmd): subprocess.run(cmd)`
// is judged by what it is called with), and bounds against hostile input.
import type { CodeEffects } from './codeEffects.js';
import type { CodeNode, CodeParsers, CodeTree, ParsedLanguage } from './codeParsers.js';
import { UNKNOWN } from '../scanTypes.js';
import { decodedBy, known, textOf, unknown, type FnDef, type Val } from './codeValues.js';

/** Nodes visited in one analysis, nested code included: a few times what a long script has (a 30 KB one, ~10,000). */
const NODE_BUDGET = 60_000;
/** Calls into the code's own functions, nested, and analyses of one function. */
const MAX_CALL_DEPTH = 6;
const MAX_CALLS_PER_FN = 12;
/** exec/eval of literal code inside code. */
const MAX_CODE_DEPTH = 4;

let distinct = 0;

/** What a call's argument is, as far as the analysis tells values apart. */
function signature(v: Val): string {
  switch (v.k) {
    case 'str':
    case 'path':
      return `${v.k}:${v.s}:${decodedBy(v) ?? ''}`;
    case 'ref':
      return `ref:${v.q}`;
    case 'num':
      return `num:${v.n}`;
    case 'bool':
      return `bool:${v.b}`;
    case 'seq':
      return `[${v.items.map(signature).join(',')}]`;
    case 'fn':
      return `fn:${v.fn.body.id}`;
    case 'unknown':
      return `?${v.decoded ?? ''}`;
    default:
      // Dicts, methods, namespaces and code: told apart by nothing cheaper than their identity, so never equal.
      return `${v.k}:${++distinct}`;
  }
}

export abstract class CodeAnalysis {
  protected vars = new Map<string, Val>();
  /** Every function the code defines, by name: methods called on objects the analysis cannot follow (`self.run`). */
  protected fns = new Map<string, FnDef>();
  /** Every function value, by the id of its body's node. */
  private readonly defined = new Map<number, FnDef>();
  private readonly trees: CodeTree[] = [];
  private budget = NODE_BUDGET;
  private callDepth = 0;
  private returns: (Val | undefined)[] = [];
  /** What each function returned, by the arguments it was called with. */
  private readonly results = new Map<FnDef, Map<string, Val>>();
  private codeDepth = 0;

  constructor(
    protected readonly lang: ParsedLanguage,
    protected readonly parsers: CodeParsers,
    protected readonly effects: CodeEffects,
  ) {}

  protected abstract walk(node: CodeNode): void;
  protected abstract evalExpr(node: CodeNode): Val;
  /** How the language names the environment its programs inherit (`os.environ`, `process.env`), for reasons. */
  protected abstract readonly environ: string;

  /** An environment variable set for the programs the code starts: judged as the shell assignment. */
  protected env(name: string, v: Val): void {
    if (/^[A-Za-z_]\w*$/.test(name))
      this.effects.shell(`${name}=${JSON.stringify(textOf(v) ?? UNKNOWN)}`, this.environ);
  }

  /**
   * Analyses a whole program: top to bottom, then the functions no call reached, with unknown arguments; true when it
   * parsed cleanly.
   */
  analyse(text: string): boolean {
    try {
      const [clean] = this.program(text);
      for (let again = true; again; ) {
        again = false;
        for (const fn of [...this.defined.values()]) if (fn.calls === 0) again = (this.call(fn, [], new Map()), true);
      }
      return clean;
    } finally {
      for (const t of this.trees) t.delete();
    }
  }

  /** Parses text and keeps its tree until the analysis ends (functions defined in it are called later). */
  protected parsed(text: string): CodeNode {
    const tree = this.parsers.parse(text, this.lang);
    this.trees.push(tree);
    return tree.rootNode;
  }

  /** Parses and walks text: whether it parsed without errors, and the value of its last expression (eval's result). */
  protected program(text: string): [boolean, Val] {
    const root = this.parsed(text);
    return [!root.hasError, this.evalExpr(root)];
  }

  /** Code the code runs from a known string (exec('…'), eval('…'), new Function('…')): analysed in place. */
  protected nested(text: string, via: string): Val {
    if (this.codeDepth >= MAX_CODE_DEPTH)
      return (this.effects.ask('code.dynamic', `runs code nested too deep to check (${via})`), unknown);
    this.codeDepth++;
    try {
      return this.program(text)[1];
    } finally {
      this.codeDepth--;
    }
  }

  /**
   * Code the program runs from a value (exec, eval, Function): known text is analysed in place and its value is the
   * result (`eval('os.system')` is os.system); decoded or computed text asks.
   */
  protected runCode(src: Val | undefined, via: string): Val {
    if (!src || src.k === 'code') return unknown;
    const by = decodedBy(src);
    const text = known(src);
    if (by) this.effects.ask('code.decoded', `runs decoded text (${via} of ${by})`);
    else if (text === undefined) this.effects.ask('code.dynamic', `runs code computed at run time (${via})`);
    return text === undefined ? unknown : this.nested(text, via);
  }

  /** A node the analysis does not model: its parts are evaluated for what they do, and decoding carries through. */
  protected children(node: CodeNode): Val {
    let decoded: string | undefined;
    for (const c of node.namedChildren) decoded ??= decodedBy(this.evalExpr(c));
    return decoded ? { k: 'unknown', decoded } : unknown;
  }

  /** A list literal's items, a spread (`*xs`, `...xs`) of a known list in place. */
  protected items(node: CodeNode, spread: string): Val[] {
    return node.namedChildren.flatMap((c) => {
      if (c.type !== spread) return [this.evalExpr(c)];
      const v = c.namedChildren[0] ? this.evalExpr(c.namedChildren[0]) : unknown;
      return v.k === 'seq' ? v.items : [unknown];
    });
  }

  /** Counts a node against the budget; false once it is spent (the code then asks). */
  protected spend(): boolean {
    if (--this.budget >= 0) return true;
    if (this.budget === -1) this.effects.ask('parse.too_large', 'code too large to check');
    return false;
  }

  /**
   * A function value: named ones are also found by name; every one no call reaches is analysed at the end (a
   * callback handed to a library the analysis does not follow still runs). One per syntax node.
   */
  protected define(fn: FnDef, named = true): Val {
    const known = this.defined.get(fn.body.id);
    const def = known ?? fn;
    if (!known) this.defined.set(fn.body.id, def);
    if (named) this.fns.set(def.name, def);
    return { k: 'fn', fn: def };
  }

  /** Runs a function the code defined with these arguments; its result when a `return` gave one. */
  /** `skip` leaves out leading parameters the call does not pass (a method's `self`). */
  protected call(fn: FnDef, args: Val[], kwargs: Map<string, Val>, skip = 0): Val {
    if (this.callDepth >= MAX_CALL_DEPTH || fn.calls >= MAX_CALLS_PER_FN) return unknown;
    // A call with the arguments of an earlier one finds what that one found: its result is reused.
    const named = [...kwargs].map(([k, v]) => `${k}=${signature(v)}`);
    const key = `${skip}\0${args.map(signature).join('\0')}\0${named.join('\0')}`;
    const seen = (this.results.get(fn) ?? this.results.set(fn, new Map()).get(fn)!).get(key);
    if (seen) return seen;
    fn.calls++;
    const saved = new Map<string, Val | undefined>();
    fn.params.forEach((p, at) => {
      saved.set(p, this.vars.get(p));
      const i = at - skip;
      const v =
        at < skip
          ? unknown
          : at === fn.rest
            ? { k: 'seq' as const, items: args.slice(i) }
            : (kwargs.get(p) ?? args[i] ?? fn.defaults[at] ?? unknown);
      this.vars.set(p, v);
    });
    this.callDepth++;
    this.returns.push(undefined);
    try {
      const result = fn.expression
        ? this.evalExpr(fn.body)
        : (this.walk(fn.body), this.returns[this.returns.length - 1] ?? unknown);
      this.results.get(fn)!.set(key, result);
      return result;
    } finally {
      this.returns.pop();
      this.callDepth--;
      for (const [p, v] of saved) {
        if (v === undefined) this.vars.delete(p);
        else this.vars.set(p, v);
      }
    }
  }

  /** A `return` inside a function being called: the first value returned is its result. */
  protected returned(v: Val): void {
    const top = this.returns.length - 1;
    if (top >= 0 && this.returns[top] === undefined) this.returns[top] = v;
  }
}
