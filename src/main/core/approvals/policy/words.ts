// Turns bash word nodes into the arguments bash would pass: quotes and escapes removed, known variables,
// `~`, `${IFS}` and brace expansion applied, and UNKNOWN where the value exists only at run time.
import type { ShellNode } from './shellParser.js';
import { ARGS_SEP, UNKNOWN, type Arg } from './scanTypes.js';

/** Private-use marks for unquoted characters whose meaning is expansion, not text. */
const SPLIT = '\uE001';
const OPEN = '\uE002';
const COMMA = '\uE003';
const CLOSE = '\uE004';

export interface WordEnv {
  home: string;
  /** What `$SWITCHBOARD_HOME` stands for: the profile the policy guards. */
  profile?: string;
  cwd: string | undefined;
  vars: Map<string, string>;
  /** The output of a `$(…)` when it is built only from literals (`$(echo rm)`), else undefined. */
  staticOutput(node: ShellNode): string | undefined;
}

const IFS = ' \t\n';

function lookup(name: string, env: WordEnv, quoted: boolean): string {
  if (name === 'IFS') return quoted ? ((env.vars.get('IFS') ?? ' ')[0] ?? '') : SPLIT;
  // `"$@"` is each positional argument as its own word; `"$*"` all of them joined by a space.
  if ((name === '@' || name === '*') && env.vars.has('@')) {
    const v = env.vars.get('@')!;
    return name === '@' || !quoted ? v.replaceAll(ARGS_SEP, SPLIT) : v.replaceAll(ARGS_SEP, ' ');
  }
  if (name === 'HOME') return env.home;
  if (name === 'SWITCHBOARD_HOME' && env.profile && !env.vars.has(name)) return env.profile;
  if (name === 'PWD' && env.cwd) return env.cwd;
  const value = env.vars.get(name);
  if (value === undefined) return UNKNOWN;
  // An unquoted expansion is split into words on IFS: `c="rm -rf /"; $c` runs rm.
  return quoted ? value : split(value, env);
}

function split(value: string, env: WordEnv): string {
  const ifs = env.vars.get('IFS') ?? IFS;
  if (ifs === '') return value;
  let out = '';
  for (const ch of value) out += ifs.includes(ch) ? SPLIT : ch;
  return out;
}

/** `${name}`, `${name:-default}`, `${name:offset:length}`; anything else is run-time only. */
function expansion(node: ShellNode, env: WordEnv, quoted: boolean): string {
  const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=+?])([\s\S]*)|:(-?\d*):?(\d*))?\}$/.exec(node.text);
  if (!m) return UNKNOWN;
  const [, name, op, word, offset, length] = m;
  const known =
    name === 'IFS' ||
    name === 'HOME' ||
    (name === 'SWITCHBOARD_HOME' && env.profile !== undefined) ||
    env.vars.has(name!) ||
    (name === 'PWD' && env.cwd !== undefined);
  if (offset !== undefined || length !== undefined) {
    const full = name === 'IFS' ? IFS : known ? lookup(name!, env, true) : undefined;
    if (full === undefined) return UNKNOWN;
    const sub = full.substr(Number(offset || 0), length ? Number(length) : undefined);
    return name === 'IFS' && !quoted ? sub.replace(/[ \t\n]/g, SPLIT) : sub;
  }
  if (op === undefined) return lookup(name!, env, quoted);
  if (op.endsWith('+')) return UNKNOWN;
  if (known) return lookup(name!, env, quoted);
  // An unset variable with a default is the default: `${u:-rm}` is `rm`.
  return word === undefined ? UNKNOWN : unquoteLoosely(word);
}

/** The default of `${x:-word}` as bash would read it, near enough for classification. */
function unquoteLoosely(text: string): string {
  return text.replace(/\\(.)/g, '$1').replace(/['"]/g, '');
}

const cEscapes: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** `$'…'`: C escapes, hex, octal and unicode. */
export function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/g, (_, e: string) => {
    if (e[0] === 'x' && e.length > 1) return String.fromCharCode(parseInt(e.slice(1), 16));
    if ((e[0] === 'u' || e[0] === 'U') && e.length > 1) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    if (e[0] === 'c' && e.length === 2) return String.fromCharCode(e.charCodeAt(1) & 0x1f);
    return cEscapes[e] ?? '\\' + e;
  });
}

function unquotedWord(text: string, first: boolean, env: WordEnv): string {
  let out = '';
  let i = 0;
  if (first && text.startsWith('~')) {
    const m = /^~([A-Za-z0-9_.-]*)(?=\/|$)/.exec(text);
    if (m) {
      out = m[1] === '' ? env.home : m[1] === 'root' ? '/root' : `/home/${m[1]}`;
      i = m[0].length;
    }
  }
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\') {
      const next = text[i + 1];
      if (next === undefined) break;
      if (next !== '\n') out += next;
      i++;
    } else if (ch === '{') out += OPEN;
    else if (ch === ',') out += COMMA;
    else if (ch === '}') out += CLOSE;
    else out += ch;
  }
  return out;
}

function doubleQuoted(node: ShellNode, env: WordEnv): string {
  let out = '';
  for (const child of node.namedChildren) {
    if (child.type === 'string_content')
      out += child.text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
    else out += evalPart(child, env, true, false);
  }
  return out;
}

function evalPart(node: ShellNode, env: WordEnv, quoted: boolean, first: boolean): string {
  switch (node.type) {
    case 'word':
      return quoted ? node.text : unquotedWord(node.text, first, env);
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string':
      return doubleQuoted(node, env);
    case 'translated_string':
      return node.namedChildren[0] ? doubleQuoted(node.namedChildren[0], env) : '';
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1));
    case 'concatenation':
      return node.namedChildren.map((c, i) => evalPart(c, env, quoted, first && i === 0)).join('');
    case 'simple_expansion': {
      const name = node.namedChildren[0]?.text ?? '';
      return lookup(name, env, quoted);
    }
    case 'expansion':
      return expansion(node, env, quoted);
    case 'command_substitution': {
      const out = env.staticOutput(node);
      return out === undefined ? UNKNOWN : quoted ? out : out.replace(/[ \t\n]+/g, SPLIT);
    }
    case 'number':
      return node.text;
    case 'process_substitution':
    case 'arithmetic_expansion':
      return UNKNOWN;
    default:
      return node.text;
  }
}

/** Brace expansion of the unquoted `{a,b}` marks, bounded. */
function braces(word: string, limit: number): string[] {
  const close = word.indexOf(CLOSE);
  if (close < 0) return [word];
  const open = word.lastIndexOf(OPEN, close);
  if (open < 0) return [word.slice(0, close) + '}' + word.slice(close + 1)].flatMap((w) => braces(w, limit));
  const inner = word.slice(open + 1, close);
  if (!inner.includes(COMMA)) return braces(word.slice(0, open) + '{' + inner + '}' + word.slice(close + 1), limit);
  const out: string[] = [];
  for (const alt of inner.split(COMMA)) {
    if (out.length >= limit) break;
    out.push(...braces(word.slice(0, open) + alt + word.slice(close + 1), limit - out.length));
  }
  return out;
}

function plain(word: string): string {
  return word.replaceAll(OPEN, '{').replaceAll(COMMA, ',').replaceAll(CLOSE, '}');
}

/** One word node → the arguments it becomes (none for an empty unquoted expansion, several after splitting). */
export function evalWord(node: ShellNode, env: WordEnv, offset = 0): Arg[] {
  const raw = evalPart(node, env, false, true);
  const at = { source: node.text, start: node.startIndex - offset, end: node.endIndex - offset };
  const quotedEmpty = raw === '' && /^["']|^\$'/.test(node.text);
  if (quotedEmpty) return [{ value: '', ...at }];
  const out: Arg[] = [];
  for (const piece of raw.split(SPLIT)) {
    if (piece === '') continue;
    for (const w of braces(piece, 64)) out.push({ value: plain(w), ...at });
  }
  return out;
}

/** The value of an assignment's right-hand side (`x=rm`), or undefined when it is not known. */
export function evalAssignedValue(node: ShellNode | null, env: WordEnv): string | undefined {
  if (!node) return '';
  const v = plain(evalPart(node, env, false, true)).replaceAll(SPLIT, ' ');
  return v.includes(UNKNOWN) ? undefined : v;
}
