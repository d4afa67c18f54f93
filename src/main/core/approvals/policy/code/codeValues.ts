// The values the code analysers compute: what is known of an expression (a string with run-time holes, a module
// or one of its members, a function the code defines), and the string operations both languages share.
import { posix } from 'node:path';
import { UNKNOWN } from '../scanTypes.js';
import type { CodeNode } from './codeParsers.js';

export type Val =
  /** Text; UNKNOWN marks its run-time parts. `decoded` names what decoded it (base64.b64decode). */
  | { k: 'str'; s: string; decoded?: string }
  | { k: 'num'; n: number }
  | { k: 'bool'; b: boolean }
  | { k: 'seq'; items: Val[] }
  | { k: 'dict'; entries: Map<string, Val> }
  /** A module or a member of one, by its qualified name: `os`, `os.system`, `builtins.exec`, `child_process.exec`. */
  | { k: 'ref'; q: string }
  /** A namespace looked up by name: globals(), vars(), sys.modules, globalThis. */
  | { k: 'scope'; modules: boolean }
  /** A path object (pathlib.Path): its methods read, write and delete it. */
  | { k: 'path'; s: string }
  /** Compiled code (Python's compile()), with its source when known. */
  | { k: 'code'; src: Val }
  /** A method looked up on a value: `p.write_text`, `'/'.join`, `s.decode`. */
  | { k: 'method'; self: Val; name: string }
  /** A function the code defines. */
  | { k: 'fn'; fn: FnDef }
  | { k: 'unknown'; decoded?: string };

/** A function the code defines: parameters by name (JS destructuring reads as unknown) and its body. */
export interface FnDef {
  name: string;
  params: string[];
  /** Default values, by parameter index (evaluated where the function is defined). */
  defaults: (Val | undefined)[];
  /** Index of a `*args`/`...rest` parameter, else -1. */
  rest: number;
  body: CodeNode;
  /** A lambda or arrow whose body is one expression: its value is the result. */
  expression: boolean;
  /** Times analysed at a call site (bounded), and whether ever. */
  calls: number;
}

export const unknown: Val = { k: 'unknown' };

export function str(s: string, decoded?: string): Val {
  return decoded ? { k: 'str', s, decoded } : { k: 'str', s };
}

/** The text of a value, with UNKNOWN for what is not known; undefined for values that are not text-like. */
export function textOf(v: Val): string | undefined {
  switch (v.k) {
    case 'str':
    case 'path':
      return v.s;
    case 'num':
      return String(v.n);
    case 'bool':
      return String(v.b);
    case 'unknown':
    case 'method':
    case 'fn':
    case 'code':
      return UNKNOWN;
    default:
      return undefined;
  }
}

/** A path argument: its text when any of it is known. */
export function pathOf(v: Val | undefined): string | undefined {
  if (!v) return undefined;
  const t = textOf(v);
  return t === undefined || t === UNKNOWN ? undefined : t;
}

/** Text known whole (no run-time part). */
export function known(v: Val | undefined): string | undefined {
  if (!v) return undefined;
  const t = textOf(v);
  return t === undefined || t.includes(UNKNOWN) ? undefined : t;
}

/** What decoded a value, if any part of it was decoded. */
export function decodedBy(v: Val | undefined): string | undefined {
  if (!v) return undefined;
  if (v.k === 'str' || v.k === 'unknown') return v.decoded;
  if (v.k === 'seq') for (const i of v.items) if (decodedBy(i)) return decodedBy(i);
  if (v.k === 'code') return decodedBy(v.src);
  return undefined;
}

export function concat(a: Val, b: Val): Val {
  if (a.k === 'seq' && b.k === 'seq') return { k: 'seq', items: [...a.items, ...b.items] };
  const x = textOf(a);
  const y = textOf(b);
  const decoded = decodedBy(a) ?? decodedBy(b);
  if (x === undefined || y === undefined || (a.k !== 'str' && b.k !== 'str'))
    return decoded ? { k: 'unknown', decoded } : unknown;
  return str(collapse(x + y), decoded);
}

/** Adjacent run-time parts read as one. */
export function collapse(s: string): string {
  return s.replace(new RegExp(`${UNKNOWN}+`, 'g'), UNKNOWN);
}

/** An argv from a list value: each item's text, or undefined when the list itself is not known. */
export function argvOf(v: Val | undefined): string[] | undefined {
  if (!v) return undefined;
  if (v.k === 'seq') return v.items.map((i) => textOf(i) ?? UNKNOWN);
  return undefined;
}

/** os.path.join / path.join: a later absolute part starts again. */
export function joinPath(parts: Val[], resolve = false): Val {
  let out = '';
  for (const p of parts) {
    const t = textOf(p) ?? UNKNOWN;
    if (t.startsWith('/') || (resolve && t.startsWith('~'))) out = t;
    else out = out === '' ? t : out.endsWith('/') ? out + t : `${out}/${t}`;
  }
  return str(collapse(out), parts.map(decodedBy).find(Boolean));
}

export function dirname(v: Val): Val {
  const t = known(v);
  return t === undefined ? unknown : str(posix.dirname(t));
}

/** Text from base64 (standard or URL-safe), when it decodes to text; undefined otherwise. */
export function fromBase64(s: string): string | undefined {
  if (!/^[A-Za-z0-9+/_=\s-]+$/.test(s)) return undefined;
  const text = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1');
  return text;
}

export function fromHex(s: string): string | undefined {
  const h = s.replace(/\s+/g, '');
  return /^([0-9a-fA-F]{2})*$/.test(h) ? Buffer.from(h, 'hex').toString('latin1') : undefined;
}

export function rot13(s: string): string {
  return s.replace(/[a-zA-Z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** A decoder applied to a value: the decoded text when the input is known, else an unknown marked decoded. */
export function decode(input: Val | undefined, by: string, how: (s: string) => string | undefined): Val {
  const t = input ? known(input) : undefined;
  const out = t === undefined ? undefined : how(t);
  return out === undefined ? { k: 'unknown', decoded: by } : str(out, by);
}

/** Python's `'%s' % x` and str.format with positional holes. */
export function format(template: string, args: Val[], pattern: RegExp): string {
  let i = 0;
  return collapse(template.replace(pattern, () => textOf(args[i++] ?? unknown) ?? UNKNOWN));
}

/**
 * An environment variable read by the code: the home reads as `~`, the Switchboard profile as `$SWITCHBOARD_HOME`
 * (resolved where paths are judged, as in a shell command); anything else is known only at run time.
 */
export function envValue(name: string | undefined): Val {
  if (name === 'HOME' || name === 'USERPROFILE') return str('~');
  if (name === 'SWITCHBOARD_HOME') return str('$SWITCHBOARD_HOME');
  return str(UNKNOWN);
}

/**
 * A list or dict changed in place (`args.append('-rf')`, `a.push(x)`, `d[k] = v`): what is known follows, and a
 * change the analysis cannot follow leaves the list unknown (one run-time item), never stale.
 */
export function mutate(self: Val, name: string, args: Val[]): boolean {
  if (self.k === 'dict' && (name === 'update' || name === 'setdefault' || name === '__setitem__')) {
    const [a, b] = args;
    if (name === 'update' && a?.k === 'dict') for (const [k, v] of a.entries) self.entries.set(k, v);
    else if (a && b && known(a) !== undefined) self.entries.set(known(a)!, b);
    return true;
  }
  if (self.k !== 'seq') return false;
  const items = self.items;
  switch (name) {
    case 'append':
    case 'push':
      items.push(...(name === 'push' ? args : args.slice(0, 1)));
      return true;
    case 'extend':
      if (args[0]?.k === 'seq') items.push(...args[0].items);
      else items.push(unknown);
      return true;
    case 'insert':
      if (args[0]?.k === 'num' && args[1]) items.splice(args[0].n, 0, args[1]);
      else items.splice(0, items.length, unknown);
      return true;
    case 'unshift':
      items.unshift(...args);
      return true;
    case 'pop':
    case 'shift':
      return true;
    case 'reverse':
      items.reverse();
      return true;
    case 'remove':
    case 'sort':
    case 'clear':
    case 'splice':
    case 'fill':
    case 'copyWithin':
    case '__setitem__':
      items.splice(0, items.length, unknown);
      return true;
  }
  return false;
}

/** `x[key] = v` on a list or dict the analysis holds. */
export function setItem(target: Val, key: Val, v: Val): void {
  const k = known(key);
  if (target.k === 'dict') {
    if (k !== undefined) target.entries.set(k, v);
    return;
  }
  if (target.k === 'seq') {
    if (key.k === 'num' && key.n >= 0 && key.n < target.items.length + 1) target.items[key.n] = v;
    else target.items.splice(0, target.items.length, unknown);
  }
}
