// What Python calls on values do: string methods that build text (join, format, replace, split), pathlib paths
// that read, write and delete, dicts, and objects the analysis cannot follow (a connection, the code's own method).
import { UNKNOWN } from '../scanTypes.js';
import { PythonWalker } from './pythonWalker.js';
import { collapse, decodedBy, mutate, joinPath, known, pathOf, str, textOf, unknown, type Val } from './codeValues.js';
import { lostMembers, normalize, shells } from './pythonNames.js';

/** Methods called on values, and the effects they share with library calls: deleting, opening, running. */
export abstract class PythonMethods extends PythonWalker {
  protected importNamed(name: Val | undefined, fromlist: Val | undefined, via: string): Val {
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

  protected runArgv(argv: string[] | undefined, via: string, decoded?: string): void {
    if (argv && argv.length === 1 && shells.test(argv[0]!)) this.spawnsShell = true;
    this.effects.argv(argv, via, decoded);
  }

  protected delete(path: Val | undefined, tree: boolean, via: string): void {
    // A temporary directory the code made itself (tempfile.mkdtemp) is its own to remove.
    if (path && this.temps.has(path)) return;
    if (this.inWalk > 0)
      this.effects.ask('delete.walk', `deletes files in a loop over a directory walk (${via} in os.walk)`);
    this.effects.delete(path === undefined ? undefined : (textOf(path) ?? UNKNOWN), tree, via);
  }

  protected open(path: string | undefined, mode: string, via: string): void {
    if (/[wax+]/.test(mode)) this.effects.write(path, via);
    else this.effects.read(path, via);
  }

  /** Methods on values: strings, pathlib paths, dicts, and objects the analysis cannot follow. */
  protected method(self: Val, name: string, args: Val[], kw: Map<string, Val>): Val {
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
