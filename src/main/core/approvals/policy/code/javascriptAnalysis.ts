// JavaScript (`node -e`) judged on its syntax tree: require and import (static and dynamic) with aliases and
// destructuring, member lookups with keys built from literals, path.join and os.homedir paths, template strings,
// Buffer/atob decoding, eval/Function/vm of known or decoded text, and the code's own functions called with known
// arguments. What a call does is handed to CodeEffects.
// The walk is javascriptWalker.ts and the names it knows javascriptNames.ts; this file is what each library call
// does (child_process, fs, vm, eval/Function, network) and the methods called on values.
import { UNKNOWN } from '../scanTypes.js';
import {
  argvOf,
  collapse,
  concat,
  decode,
  decodedBy,
  dirname,
  mutate,
  fromBase64,
  fromHex,
  joinPath,
  known,
  pathOf,
  str,
  textOf,
  unknown,
  type Val,
} from './codeValues.js';
import {
  argvCalls,
  codeRunners,
  copies,
  links,
  normalize,
  removes,
  renames,
  safeDecodeURI,
  shellFirst,
  unlinks,
  writesFirst,
  readsFirst,
  opens,
  networkCalls,
} from './javascriptNames.js';
import { JavaScriptWalker } from './javascriptWalker.js';

export class JavaScriptAnalysis extends JavaScriptWalker {
  protected callRef(q: string, args: Val[]): Val {
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
  protected method(self: Val, name: string, args: Val[]): Val {
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
