// Python judged on its syntax tree: imports and aliases (`import shutil as s`, `from os import *`), getattr and
// __import__ with names built from literals, globals()/vars()/sys.modules lookups, os.path.join and pathlib paths,
// f-strings and `%`/format, base64 and friends, exec/eval/compile of known or decoded text, and the code's own
// functions called with known arguments. What a call does is handed to CodeEffects.
// The walk is pythonWalker.ts, names and values pythonScope.ts, methods on values pythonMethods.ts; this file is
// what each library call does (subprocess, os, shutil, pathlib, importlib, codecs, exec/eval …).
import { UNKNOWN } from '../scanTypes.js';
import { PythonMethods } from './pythonMethods.js';
import type { Call } from './pythonScope.js';
import {
  argvOf,
  decode,
  decodedBy,
  dirname,
  envValue,
  fromBase64,
  fromHex,
  joinPath,
  known,
  pathOf,
  rot13,
  str,
  textOf,
  unknown,
  type Val,
} from './codeValues.js';
import {
  changesFirst,
  copies,
  decoders,
  deleteFile,
  links,
  moves,
  networkCalls,
  opens,
  powerful,
  shellFirst,
  sourceRunners,
  subprocessRun,
  walkers,
} from './pythonNames.js';

export class PythonAnalysis extends PythonMethods {
  private dup2 = false;

  override analyse(text: string): boolean {
    const clean = super.analyse(text);
    if (this.dup2 && this.spawnsShell)
      this.effects.ask('network.shell', 'connects a shell to a socket (os.dup2, then a shell)');
    return clean;
  }

  private arg(c: Call, i: number, name?: string): Val | undefined {
    return (name !== undefined ? c.kw.get(name) : undefined) ?? c.args[i];
  }

  protected callRef(c: Call): Val {
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
}
