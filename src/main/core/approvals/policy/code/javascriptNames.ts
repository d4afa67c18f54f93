// The names the JavaScript analysis gives meaning to: globals, module loaders, and the fs, child_process, network
// and code-running calls by what they do, as tables; and how JavaScript escapes and URI-encodes text.

/** Globals the analysis models; any other unbound name is a value it cannot know. */
export const globalNames = new Set([
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

export const moduleLoader = new RegExp(
  String.raw`^(process\.mainModule|module|require\.main|process\.mainModule\.constructor|` +
    String.raw`module\.constructor)\.(require|_load)$`,
);

export function normalize(q: string): string {
  const s = q
    .replace(/^node:/, '')
    .replace(/^fs\/promises(\.|$)/, 'fs.promises$1')
    .replace(/^(global|globalThis|window|self)\./, '');
  if (moduleLoader.test(s) || /^module\._load$/.test(s) || s === 'module.constructor.prototype.require')
    return 'require';
  // An ES module's default export of a Node module is the module itself.
  return s.replace(/\.default(?=\.|$)/, '').replace(/^fs\.promises\./, 'fs.');
}

export const shellFirst = new Set(['child_process.exec', 'child_process.execSync']);
export const argvCalls = new Set([
  'child_process.spawn',
  'child_process.spawnSync',
  'child_process.execFile',
  'child_process.execFileSync',
]);
export const removes = new Set(['fs.rm', 'fs.rmSync', 'fs.rmdir', 'fs.rmdirSync']);
export const unlinks = new Set(['fs.unlink', 'fs.unlinkSync']);
export const writesFirst = new RegExp(
  String.raw`^fs\.(writeFile|appendFile|createWriteStream|truncate|chmod|lchmod|chown|lchown|mkdir|utimes|` +
    'lutimes|mkdtemp)(Sync)?$',
);
export const readsFirst = /^fs\.(readFile|createReadStream|readdir|opendir)(Sync)?$/;
export const copies = /^fs\.(copyFile|cp)(Sync)?$/;
export const renames = /^fs\.rename(Sync)?$/;
export const links = /^fs\.(symlink|link)(Sync)?$/;
export const opens = /^fs\.open(Sync)?$/;
export const networkCalls = new RegExp(
  String.raw`^(fetch|https?\.(request|get)|http2\.connect|net\.(connect|createConnection|Socket)|tls\.connect|` +
    String.raw`dgram\.createSocket|WebSocket|XMLHttpRequest|axios(\.(get|post|put|patch|delete|request))?|` +
    String.raw`undici\.(request|fetch))$`,
);
export const codeRunners = new RegExp(
  String.raw`^(eval|Function|vm\.(runInThisContext|runInNewContext|runInContext|compileFunction|Script|` +
    String.raw`SourceTextModule)|(.+\.)?constructor)$`,
);
/** Modules whose members run programs, change files or load code: a member looked up by a computed key asks. */
export const powerful = /^(child_process|fs|vm|module|process|worker_threads|require|cluster|inspector|v8)(\.|$)/;

export function unescapeJs(s: string): string {
  return s.replace(/\\(\n|x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|[0-7]{1,3}|[\s\S])/g, (_, e: string) => {
    if (e === '\n') return '';
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (e[0] === 'u') return String.fromCodePoint(parseInt(e.replace(/[u{}]/g, ''), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' } as Record<string, string>)[e] ?? e;
  });
}

export function safeDecodeURI(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    // Not percent-encoded as a URL would be: node reads it as written.
    return s;
  }
}

/** Is a qualified name one the analysis gives meaning to? */
export function modelled(q: string): boolean {
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
