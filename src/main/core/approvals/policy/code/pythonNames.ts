// What names mean in Python code: qualified names as the tables spell them (aliases and re-exports folded), and
// the tables of calls that run programs, change files, reach the network, decode text or run source.
import { fromBase64, fromHex } from './codeValues.js';

/** Builtins the analysis models; any other unbound name is a value it cannot know. */
export const builtinNames = new Set([
  'exec',
  'eval',
  'compile',
  'open',
  '__import__',
  'getattr',
  'globals',
  'locals',
  'vars',
  'str',
  'bytes',
  'bytearray',
  'chr',
  'execfile',
  'breakpoint',
  'reversed',
  'map',
  'filter',
  'print',
  'dir',
  'help',
  'repr',
  'id',
  'type',
  'isinstance',
  'hasattr',
  'len',
]);
/** Modules other modules re-export (`subprocess.os.system` is `os.system`). */
export const reexported = new Set([
  'os',
  'sys',
  'subprocess',
  'shutil',
  'builtins',
  'importlib',
  'pathlib',
  'socket',
  'base64',
  'codecs',
  'ctypes',
  'io',
  'pty',
]);

/** A qualified name as the table spells it: `posix.system` and `subprocess.os.system` are `os.system`. */
export function normalize(q: string): string {
  let s = q
    .replace(/^__builtins?__(\.|$)/, 'builtins$1')
    .replace(/^(posix|nt)(\.|$)/, 'os$2')
    .replace(/^(posixpath|ntpath)(\.|$)/, 'os.path$2');
  s = s
    .replace(/^pathlib\.(PosixPath|WindowsPath|PurePosixPath|PureWindowsPath|PurePath)(\.|$)/, 'pathlib.Path$2')
    .replace(/^_io\./, 'io.');
  const parts = s.split('.');
  for (let i = parts.length - 1; i > 0; i--)
    if (reexported.has(parts[i]!) && i < parts.length - 1) return normalize(parts.slice(i).join('.'));
  return s;
}

export const shellFirst = new Set([
  'os.system',
  'os.popen',
  'os.popen2',
  'os.popen3',
  'subprocess.getoutput',
  'subprocess.getstatusoutput',
  'commands.getoutput',
  'commands.getstatusoutput',
  'asyncio.create_subprocess_shell',
  'platform.popen',
]);
export const subprocessRun = new Set([
  'subprocess.run',
  'subprocess.call',
  'subprocess.check_call',
  'subprocess.check_output',
  'subprocess.Popen',
]);
export const deleteFile = new Set(['os.remove', 'os.unlink', 'os.rmdir', 'os.removedirs']);
export const changesFirst = new Set([
  'os.truncate',
  'os.chmod',
  'os.lchmod',
  'os.chown',
  'os.lchown',
  'os.utime',
  'os.mkdir',
  'os.makedirs',
  'os.mkfifo',
  'os.mknod',
  'shutil.chown',
  'os.chflags',
  'os.setxattr',
]);
export const moves = new Set(['os.rename', 'os.replace', 'os.renames', 'shutil.move']);
export const copies = new Set([
  'shutil.copy',
  'shutil.copy2',
  'shutil.copyfile',
  'shutil.copytree',
  'shutil.copymode',
  'shutil.copystat',
  'shutil.copyfileobj',
]);
export const links = new Set(['os.symlink', 'os.link']);
export const opens = new Set(['builtins.open', 'io.open', 'codecs.open', 'io.FileIO']);
export const walkers = new Set(['os.walk', 'os.listdir', 'os.scandir', 'glob.glob', 'glob.iglob', 'os.fwalk']);
export const networkCalls = new RegExp(
  String.raw`^(urllib\.request\.(urlopen|Request|urlretrieve)|urllib2?\.urlopen|requests\.(get|post|put|patch|` +
    String.raw`delete|head|request|Session)|httpx\.(get|post|put|patch|delete|head|request|Client|AsyncClient|` +
    String.raw`stream)|http\.client\.HTTPS?Connection|socket\.(socket|create_connection|socketpair)|` +
    String.raw`smtplib\.SMTP(_SSL)?|ftplib\.FTP(_TLS)?|aiohttp\.(ClientSession|request)|telnetlib\.Telnet|` +
    String.raw`xmlrpc\.client\.ServerProxy|paramiko\.SSHClient|urllib3\.(PoolManager|request))$`,
);
export const decoders: Record<string, (s: string) => string | undefined> = {
  'base64.b64decode': fromBase64,
  'base64.standard_b64decode': fromBase64,
  'base64.urlsafe_b64decode': fromBase64,
  'base64.decodebytes': fromBase64,
  'base64.decodestring': fromBase64,
  'binascii.a2b_base64': fromBase64,
  'binascii.unhexlify': fromHex,
  'binascii.a2b_hex': fromHex,
  'bytes.fromhex': fromHex,
  'base64.b16decode': fromHex,
  'base64.b32decode': () => undefined,
  'base64.a85decode': () => undefined,
  'base64.b85decode': () => undefined,
  'zlib.decompress': () => undefined,
  'gzip.decompress': () => undefined,
  'bz2.decompress': () => undefined,
  'lzma.decompress': () => undefined,
  'marshal.loads': () => undefined,
};
export const shells = /^(\/(usr\/)?bin\/)?(sh|bash|zsh|dash|ksh|fish)$/;
/** Modules whose members run programs, change files or load code: looking one up by a computed name asks. */
export const powerful = new RegExp(
  '^(os|subprocess|shutil|builtins|importlib|sys|pty|ctypes|socket|io|pathlib|codecs|pickle|marshal|' +
    'runpy|code|multiprocessing|asyncio|commands|platform|posix|nt|timeit|pdb|threading|concurrent|' +
    String.raw`functools|operator)(\.|$)`,
);
/** Attributes that reach the interpreter's internals: a function's globals, every class, a frame's namespace. */
export const internals = new Set([
  '__globals__',
  '__subclasses__',
  '__code__',
  '__closure__',
  'func_globals',
  'f_globals',
  'f_locals',
  'f_builtins',
  'gi_frame',
  'tb_frame',
  'f_back',
  '__loader__',
]);
/** Functions that run Python source given as text. */
export const sourceRunners = new Set([
  'timeit.timeit',
  'timeit.repeat',
  'timeit.Timer',
  'pdb.run',
  'pdb.runeval',
  'cProfile.run',
  'profile.run',
  'cProfile.runctx',
  'profile.runctx',
  'code.compile_command',
  'trace.Trace.run',
]);

/** A Python string literal's body with its escapes read. */
export function unescapePython(body: string): string {
  return body.replace(
    /\\(\n|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|[ntrabfv\\'"])/g,
    (_, e: string) => {
      if (e === '\n') return '';
      if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
      if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
      return ({ n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v' } as Record<string, string>)[e] ?? e;
    },
  );
}

const modelledCalls = new RegExp(
  String.raw`^(shutil\.rmtree|os\.(exec|spawn|posix_spawn|kill|killpg|dup2|environ|getenv|path|putenv)|` +
    String.raw`pty\.spawn|importlib\.import_module|sys\.modules|pathlib\.Path|ctypes\.)`,
);

/** Is a qualified name one the analysis gives meaning to (for `from M import *` and callbacks)? */
export function modelled(q: string): boolean {
  return (
    shellFirst.has(q) ||
    subprocessRun.has(q) ||
    deleteFile.has(q) ||
    changesFirst.has(q) ||
    moves.has(q) ||
    copies.has(q) ||
    links.has(q) ||
    opens.has(q) ||
    q in decoders ||
    networkCalls.test(q) ||
    modelledCalls.test(q)
  );
}

/**
 * Method names distinctive enough to judge on any object: `m.system(…)` on a module loaded some way the analysis lost.
 */
export const lostMembers: Record<string, string> = {
  system: 'os.system',
  popen: 'os.popen',
  rmtree: 'shutil.rmtree',
  check_output: 'subprocess.check_output',
  check_call: 'subprocess.check_call',
  getoutput: 'subprocess.getoutput',
  getstatusoutput: 'subprocess.getstatusoutput',
  Popen: 'subprocess.Popen',
  execvp: 'os.execvp',
  execv: 'os.execv',
};
