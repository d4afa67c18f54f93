// read_file, write_file, patch and search_files' stat on a sandboxed target, done by a small helper run inside the
// sandbox rather than by the Core's own fs calls.
//
// Why inside, and not a check in the Core: the helper sees exactly what a command there sees — masked paths empty,
// read-only mounts read-only, a symlink in the workspace resolved inside the sandbox (`ln -s ~/.switchboard/x y`
// lands on the empty masked profile, not the real file) — and the kernel enforces it at the moment of the open, so
// there is no check-then-use race and no second copy of the rules to keep in step with bwrapArgs. An in-process check
// would have to open first and judge the opened fd's real path (/proc/self/fd), per operation and per parent
// directory created. The cost is one short-lived bwrap per file operation (a few ms), which the terminal path never
// pays: file tools are not its hot path.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { SwitchboardError } from '../../../shared/errors.js';
import type { FileStat } from '../backends/provider.js';
import { errnoInText, writeError } from '../backends/writeError.js';
import type { Sandbox } from './sandbox.js';
import { WAY_OUT, writableList } from './sandboxNote.js';
import { within } from './sandboxPolicy.js';

/** How long one file operation may take inside. */
const FILE_OP_TIMEOUT_MS = 60_000;

interface HelperResult {
  code: number;
  stdout: Buffer;
  stderr: string;
  /** Stdout went past the limit and the helper was stopped. */
  over: boolean;
}

/**
 * Starts argv inside the sandbox with stdin, stdout and stderr piped (the environment's, which tracks it for cleanup).
 */
export type StartInside = (argv: [string, ...string[]]) => ChildProcess;

/** Run `script` (sh, `$1` the path) inside the sandbox; stdout is kept up to `maxBytes`. */
function helper(
  sandbox: Sandbox,
  start: StartInside,
  script: string,
  path: string,
  opts: { stdin?: Buffer; maxBytes?: number } = {},
): Promise<HelperResult> {
  return new Promise((resolve, reject) => {
    const child = start(['/bin/sh', '-c', script, 'sh', path]);
    if (!child.stdin || !child.stdout || !child.stderr) throw new Error('a file helper needs its three pipes');
    const out: Buffer[] = [];
    let size = 0;
    let over = false;
    let stderr = '';
    const timer = setTimeout(() => void sandbox.killAll(child, 0), FILE_OP_TIMEOUT_MS);
    child.stdout.on('data', (b: Buffer) => {
      if (over) return;
      size += b.length;
      if (opts.maxBytes !== undefined && size > opts.maxBytes) {
        over = true;
        void sandbox.killAll(child, 0);
        return;
      }
      out.push(b);
    });
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr = (stderr + t).slice(-4096)));
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new SwitchboardError('internal', `could not start the sandbox: ${err.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: stderr.trim(), over });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin ?? '');
  });
}

/** stat(1)'s `%F %s` as a FileStat. */
export function parseStat(text: string): FileStat {
  const m = /^(.*) (\d+)$/.exec(text.trim());
  if (!m) return { type: 'missing', size: 0 };
  const kind = m[1]!;
  return { type: /regular/.test(kind) ? 'file' : kind === 'directory' ? 'directory' : 'other', size: Number(m[2]) };
}

/** The sandbox's answer to a refused file operation, in one line, with the way out. */
function refusal(sandbox: Sandbox, op: 'read' | 'write', path: string, said: string): SwitchboardError {
  // The write helper names the file it resolved (through a symlink) first; the last line is the refusal.
  const real = /^sb-target (.*)$/m.exec(said)?.[1] ?? path;
  const inPlace = /^sb-in-place$/m.test(said);
  const line =
    said
      .split('\n')
      .filter((l) => !l.startsWith('sb-target ') && l !== 'sb-in-place')
      .pop() ?? '';
  const note = `[sandbox: writes are allowed only in ${writableList(sandbox.policy)}]`;
  const hint =
    `add the folder to the target's sandbox.writable, ` +
    `or ${WAY_OUT.replace('run it again', 'do it with the terminal tool')}`;
  if (op === 'write') {
    const code = errnoInText(line);
    // A refusal in a writable place (a read-only mount under the workspace, a file not ours), a full disk or a
    // failing device are not the sandbox's doing: no note. Elsewhere the sandbox is the likely cause.
    const { writable, readOnly } = sandbox.policy;
    const allowed = [...writable, '/tmp'].some((w) => within(real, w)) && !readOnly.some((r) => within(real, r));
    const sandboxs = code === undefined || ((code === 'EROFS' || code === 'EACCES' || code === 'EPERM') && !allowed);
    return sandboxs
      ? writeError(path, code, { detail: line.replace(/^[^:]*: /, ''), note, hint, inPlace })
      : writeError(path, code, { inPlace });
  }
  const why = /Read-only file system/.test(line)
    ? 'Read-only file system'
    : /Permission denied/.test(line)
      ? 'Permission denied'
      : line.replace(/^[^:]*: /, '');
  return new SwitchboardError('bad_request', `cannot read ${path}: ${why} ${note}`, hint);
}

/**
 * Write whole or not at all (`$1` the path, stdin the content): a temp file beside the file it names (through a final
 * symlink), filled, given the original's mode and owner, flushed, then renamed over it; the temp file is removed on
 * any failure. `tag` is random (the sandbox's pids are small and repeat across sandboxes). A writable file whose
 * folder is not (no temp file can go beside it) is written in place.
 */
export function atomicWriteScript(tag: string): string {
  return [
    'f=$1',
    'mkdir -p -- "$(dirname -- "$f")" || exit 1',
    '[ -L "$f" ] && f=$(readlink -f -- "$f")',
    `printf 'sb-target %s\\n' "$f" >&2`,
    '[ -d "$f" ] && { echo "sh: $1: Is a directory" >&2; exit 1; }',
    `t="$(dirname -- "$f")/.$(basename -- "$f").sb-${tag}.tmp"`,
    `trap 'rm -f -- "$t"' EXIT`,
    'if [ -e "$f" ]; then (umask 077; : > "$t") 2>/dev/null; else : > "$t" 2>/dev/null; fi || {',
    // No temp file can be made beside it, yet the file may be written (a file listed in sandbox.writable, in a
    // read-only folder): written in place, as the one way there is, not atomic. Otherwise the refusal, said.
    `  [ -f "$f" ] && [ -w "$f" ] && { printf 'sb-in-place\\n' >&2; exec cat > "$f"; }`,
    '  : > "$t"; exit 1',
    '}',
    'cat > "$t" || exit 1',
    'if [ -e "$f" ]; then chmod --reference="$f" -- "$t" || exit 1; chown --reference="$f" -- "$t" 2>/dev/null; fi',
    'sync -- "$t" || exit 1',
    'mv -f -- "$t" "$f" || exit 1',
    'trap - EXIT',
    'sync -- "$(dirname -- "$f")" 2>/dev/null',
    'exit 0',
  ].join('\n');
}

/** The file operations of a sandboxed local target. */
export class SandboxFiles {
  constructor(
    private readonly sandbox: Sandbox,
    private readonly start: StartInside,
  ) {}

  async stat(path: string): Promise<FileStat> {
    const r = await helper(this.sandbox, this.start, 'exec stat -L -c "%F %s" -- "$1"', path);
    return r.code === 0 ? parseStat(r.stdout.toString('utf8')) : { type: 'missing', size: 0 };
  }

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    // The file is opened once, by the shell's redirection; cat reads that descriptor.
    const r = await helper(
      this.sandbox,
      this.start,
      '[ -d "$1" ] && { echo "Is a directory" >&2; exit 21; }; exec cat < "$1"',
      path,
      { maxBytes },
    );
    if (r.over)
      throw new SwitchboardError(
        'too_large',
        `${path} is over ${maxBytes} bytes`,
        'read a part of it with offset and limit, or use terminal with head/tail',
      );
    if (r.code === 0) return r.stdout;
    if (/No such file/.test(r.stderr)) throw new SwitchboardError('bad_request', `no such file: ${path}`);
    if (r.code === 21) throw new SwitchboardError('bad_request', `not a regular file: ${path}`);
    throw refusal(this.sandbox, 'read', path, r.stderr);
  }

  async writeFile(path: string, data: Buffer): Promise<void> {
    const r = await helper(this.sandbox, this.start, atomicWriteScript(randomBytes(6).toString('hex')), path, {
      stdin: data,
    });
    if (r.code !== 0) throw refusal(this.sandbox, 'write', path, r.stderr);
  }
}
