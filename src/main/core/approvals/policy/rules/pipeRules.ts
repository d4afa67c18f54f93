// What a pipeline stage hands to the next: text downloaded (curl, wget, …), decoded (base64 -d, xxd -r, gunzip), or
// known exactly (echo, printf, and filters like cat, rev and tr that pass their input on); and the files a download
// writes, remembered so that running one later asks.
import { parseOptions } from '../options.js';
import { resolvePath, sensitiveWrite } from '../paths.js';
import type { Rule } from '../ruleKit.js';
import { isKnown, type Arg } from '../scanTypes.js';

/** Commands that fetch from the network: what they print is "downloaded"; files they write are remembered. */
const fetcher =
  (label: string): Rule =>
  (argv, c, kit) => {
    const p = parseOptions(argv.slice(1), {
      shortValue: label === 'curl' ? 'oXHdEuFTwAebrKm' : 'OoPUatTe',
      longValue: [
        'output',
        'output-document',
        'directory-prefix',
        'request',
        'header',
        'data',
        'data-binary',
        'data-raw',
        'data-urlencode',
        'user',
        'form',
        'upload-file',
        'post-file',
        'body-file',
        'user-agent',
        'referer',
        'config',
        'append-output',
      ],
    });
    const out =
      p.values.get('-o') ??
      p.values.get('--output') ??
      p.values.get('--output-document') ??
      (label !== 'curl' ? p.values.get('-O') : undefined);
    const remember = (name: string, at?: Arg): void => {
      const a = at ?? { ...argv[0]!, value: name };
      c.scope.state.downloaded.add(kit.path(c, { ...a, value: name }));
      kit.write(c, { ...a, value: name }, label);
    };
    const url = p.operands.find((o) => /:\/\/|^[\w.-]+\.[a-z]{2,}(\/|$)/.test(o.value));
    const host = url && /^(?:[a-z][\w+.-]*:\/\/)?([^/?#@]+@)?([^/?#:]+)/i.exec(url.value)?.[2];
    // Uploading a key or credentials file (`curl -d @~/.ssh/id_rsa`, `-T ~/.aws/credentials`) sends it away.
    for (const k of [
      '-d',
      '--data',
      '--data-binary',
      '--data-raw',
      '--data-urlencode',
      '-F',
      '--form',
      '-T',
      '--upload-file',
      '--post-file',
      '--body-file',
    ]) {
      const v = p.values.get(k);
      const file =
        v === undefined
          ? undefined
          : k === '-T' || k === '--upload-file' || k === '--post-file' || k === '--body-file'
            ? v
            : /@([^;]+)/.exec(v)?.[1];
      if (
        file &&
        sensitiveWrite(resolvePath(file.replace(/^~(?=\/|$)/, c.scope.state.home), c.scope.cwd, c.scope.state.home))
      ) {
        kit.emit(
          c,
          'dangerous',
          'network.upload-secret',
          `sends ${file} ${host && isKnown(host) ? `to ${host}` : 'over the network'} (${label} ${k})`,
        );
      }
    }
    if (out !== undefined && out !== '-')
      remember(
        out,
        argv.find((a) => a.value === out),
      );
    else if (
      url &&
      ((label === 'curl' && (p.flags.has('-O') || p.flags.has('--remote-name'))) ||
        (label === 'wget' && out === undefined))
    ) {
      const base = url.value
        .replace(/[?#].*$/, '')
        .split('/')
        .filter(Boolean)
        .pop();
      if (base && !base.includes(':')) remember(base);
    }
    return { fetched: true, by: label, ...(host && isKnown(host) ? { from: host } : {}) };
  };

const decoder =
  (
    label: string,
    isDecoding: (args: string[]) => boolean,
    decode?: (text: string, args: string[]) => string | undefined,
  ): Rule =>
  (argv, c) => {
    const args = argv.slice(1).map((a) => a.value);
    if (!isDecoding(args)) return { by: label, ...(c.stdin?.fetched ? { fetched: true } : {}) };
    const text = c.stdin?.text !== undefined && decode ? decode(c.stdin.text, args) : undefined;
    return { decoded: true, by: `${label} ${args.join(' ')}`.trim(), ...(text !== undefined ? { text } : {}) };
  };

function fromBase64(text: string): string | undefined {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/=_-]*$/.test(clean)) return undefined;
  return Buffer.from(clean, 'base64').toString('utf8');
}

function fromHex(text: string): string | undefined {
  const clean = text.replace(/\s+|0x|\\x/g, '');
  return /^[0-9a-fA-F]*$/.test(clean) ? Buffer.from(clean, 'hex').toString('utf8') : undefined;
}

/** echo and printf of literals produce known text, which a shell downstream is classified by. */
const echo: Rule = (argv) => {
  const args = argv.slice(1);
  if (!args.every(isKnown)) return {};
  let i = 0;
  let escapes = false;
  let newline = true;
  while (i < args.length && /^-[neE]+$/.test(args[i]!.value)) {
    if (args[i]!.value.includes('e')) escapes = true;
    if (args[i]!.value.includes('n')) newline = false;
    i++;
  }
  const text = args
    .slice(i)
    .map((a) => a.value)
    .join(' ');
  return {
    text:
      (escapes ? backslashEscapes(text, /\\(x[0-9a-fA-F]{1,2}|0[0-7]{0,3}|[ntr\\])/g) : text) + (newline ? '\n' : ''),
  };
};

/** `\xHH`, octal, `\n`, `\t`, `\r` and `\\` as echo -e (octal after `\0`) and printf (any octal) read them. */
function backslashEscapes(s: string, escapes: RegExp): string {
  const named: Record<string, string> = { n: '\n', t: '\t', r: '\r' };
  return s.replace(escapes, (_, e: string) =>
    e[0] === 'x'
      ? String.fromCharCode(parseInt(e.slice(1), 16))
      : /^[0-7]/.test(e)
        ? String.fromCharCode(parseInt(e, 8))
        : (named[e] ?? '\\'),
  );
}

const printf: Rule = (argv) => {
  const args = argv.slice(1);
  if (!args.length || !args.every(isKnown)) return {};
  let k = 1;
  const unquote = (s: string): string => backslashEscapes(s, /\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|[ntr\\])/g);
  const text = unquote(args[0]!.value).replace(/%[-0-9.]*([sbdc%])/g, (_, f: string) =>
    f === '%' ? '%' : f === 'b' ? unquote(args[k++]?.value ?? '') : (args[k++]?.value ?? ''),
  );
  return { text };
};

export const passThrough =
  (transform?: (text: string, args: string[]) => string | undefined): Rule =>
  (argv, c) => {
    const stdin = c.stdin;
    if (!stdin || argv.slice(1).some((a) => !a.value.startsWith('-') && !transform)) return { by: argv[0]!.value };
    const text =
      stdin.text !== undefined && transform
        ? transform(
            stdin.text,
            argv.slice(1).map((a) => a.value),
          )
        : stdin.text;
    return { ...stdin, text };
  };

function tr(text: string, args: string[]): string | undefined {
  const sets = args.filter((a) => !a.startsWith('-'));
  if (sets.length !== 2 || args.some((a) => a.startsWith('-'))) return undefined;
  const expand = (s: string): string =>
    s.replace(/(.)-(.)/g, (_, a: string, b: string) => {
      let o = '';
      for (let x = a.charCodeAt(0); x <= b.charCodeAt(0); x++) o += String.fromCharCode(x);
      return o;
    });
  const from = expand(sets[0]!);
  const to = expand(sets[1]!);
  return [...text]
    .map((ch) => {
      const i = from.indexOf(ch);
      return i < 0 ? ch : (to[Math.min(i, to.length - 1)] ?? ch);
    })
    .join('');
}

export const pipeRules: Record<string, Rule> = {
  curl: fetcher('curl'),
  wget: fetcher('wget'),
  fetch: fetcher('fetch'),
  http: fetcher('http'),
  https: fetcher('https'),
  aria2c: fetcher('aria2c'),
  lynx: fetcher('lynx'),
  links: fetcher('links'),
  'lwp-download': fetcher('lwp-download'),
  tftp: fetcher('tftp'),
  ftp: fetcher('ftp'),
  base64: decoder('base64', (a) => a.some((x) => /^(-d|-D|--decode|-[a-z]*d)$/.test(x)), fromBase64),
  base32: decoder('base32', (a) => a.some((x) => /^(-d|--decode)$/.test(x))),
  basenc: decoder('basenc', (a) => a.some((x) => /^(-d|--decode)$/.test(x))),
  xxd: decoder('xxd', (a) => a.some((x) => /^-r/.test(x)), fromHex),
  openssl: decoder('openssl', (a) => a.includes('-d') || (a.includes('-base64') && a.includes('-d'))),
  uudecode: decoder('uudecode', () => true),
  gunzip: decoder('gunzip', () => true),
  zcat: decoder('zcat', () => true),
  gzip: decoder('gzip', (a) => a.some((x) => /^-[a-z]*d|--decompress/.test(x))),
  bzcat: decoder('bzcat', () => true),
  xzcat: decoder('xzcat', () => true),
  unxz: decoder('unxz', () => true),
  echo,
  printf,
  cat: passThrough(),
  rev: passThrough((t) =>
    t
      .split('\n')
      .map((l) => [...l].reverse().join(''))
      .join('\n'),
  ),
  tr: passThrough(tr),
};
