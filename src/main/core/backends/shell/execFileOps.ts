// File operations made of shell commands, for environments that have exec but no file operations of their own (a
// plugin without them, an SSH server without an sftp subsystem).
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { FileStat } from '../provider.js';
import { shellQuote } from './shellWrap.js';
import { errnoInText, errnoReason, writeError } from '../../platform/index.js';
import { assertReadableFile } from '../readableFile.js';

/** Runs one `sh -c` command line as given (no wrapping), stdout and stderr merged, with optional stdin. */
export type RawExec = (
  command: string,
  opts: { stdin?: string; timeoutMs: number },
) => Promise<{ output: string; exitCode: number }>;

/** Output lines start after this tag, so a login banner or a stray message cannot be read as file content. */
const tag = '__SB_FILE__';
const fileTimeoutMs = 60_000;

/**
 * Prints `TAG<kind> <size>` for a path (d, f, o for other, m for missing); `onFile` runs after it when the path is a
 * regular file, with its size in $s.
 */
function statScript(p: string, onFile = ''): string {
  return (
    `if [ -d ${p} ]; then echo ${tag}d 0; elif [ -f ${p} ]; then s=$(wc -c < ${p} 2>/dev/null | tr -d ' '); ` +
    `echo ${tag}f "\${s:-0}"; ${onFile}` +
    `elif [ -e ${p} ]; then echo ${tag}o 0; else echo ${tag}m 0; fi`
  );
}

/** statScript's answer, and what the command printed after its line. */
function parseStat(path: string, output: string): FileStat & { rest: string } {
  const at = output.indexOf(tag);
  const nl = at < 0 ? -1 : output.indexOf('\n', at);
  const [kind, size] = output
    .slice(at + tag.length, nl < 0 ? undefined : nl)
    .trim()
    .split(/\s+/);
  if (at < 0 || !kind) throw new SwitchboardError('internal', `could not stat ${path}: ${output.trim().slice(0, 200)}`);
  const type = kind === 'd' ? 'directory' : kind === 'f' ? 'file' : kind === 'o' ? 'other' : 'missing';
  return { type, size: type === 'file' ? Number(size) || 0 : 0, rest: nl < 0 ? '' : output.slice(nl + 1) };
}

export async function execStat(exec: RawExec, path: string): Promise<FileStat> {
  const { type, size } = parseStat(
    path,
    (await exec(statScript(shellQuote(path)), { timeoutMs: fileTimeoutMs })).output,
  );
  return { type, size };
}

/**
 * One command: what the path is and, for a file within the cap, its bytes as base64. head's failure goes to stderr
 * (merged) beside its reason, where base64's status alone would hide it.
 */
export async function execReadFile(exec: RawExec, path: string, maxBytes: number): Promise<Buffer> {
  const p = shellQuote(path);
  const r = await exec(
    statScript(
      p,
      `[ "\${s:-0}" -le ${maxBytes} ] && { head -c ${maxBytes} -- ${p} || echo __SB_FAIL__ >&2; } | base64; `,
    ),
    { timeoutMs: fileTimeoutMs },
  );
  const st = parseStat(path, r.output);
  assertReadableFile(path, st, maxBytes);
  if (r.exitCode !== 0 || st.rest.includes('__SB_FAIL__')) {
    const said = st.rest.replace('__SB_FAIL__', '').trim().split('\n')[0]?.slice(0, 200) ?? '';
    const code = errnoInText(said);
    throw new SwitchboardError(
      code ? 'bad_request' : 'internal',
      `could not read ${path}: ${code ? errnoReason(code) : said || `exit ${r.exitCode}`}`,
    );
  }
  return Buffer.from(st.rest.replace(/\s+/g, ''), 'base64');
}

/**
 * A shell's builtin printf says only "I/O error" when the disk is full: ask df (POSIX -P, KiB) whether the file's
 * folder has room for it; ENOSPC when it has not, nothing when it cannot tell.
 */
async function roomLeft(exec: RawExec, path: string, size: number): Promise<string | undefined> {
  const r = await exec(`echo ${tag}; df -Pk -- ${shellQuote(posix.dirname(path))} 2>/dev/null`, {
    timeoutMs: fileTimeoutMs,
  }).catch(() => undefined); // no df: the room left is unknown and not checked
  const row = r?.output
    .slice(r.output.indexOf(tag) + tag.length)
    .trim()
    .split('\n')[1];
  const free = Number(row?.trim().split(/\s+/)[3]);
  return Number.isFinite(free) && free * 1024 < size * 1.4 + 8192 ? 'ENOSPC' : undefined;
}

/** Base64 characters per command line: well under the 128 KiB a single argument may have on Linux. */
const chunkChars = 64_000;

export interface ExecWriteOptions {
  /** The exec carries stdin (SSH does; not every plugin's exec API): the bytes go in one command, no chunks. */
  stdin?: boolean;
}

/**
 * Writes the whole file (parents created), whole or not at all: base64 on stdin, or where the exec has none, in
 * chunks appended by plain command lines to a private temp file; decoded into a second temp file beside the
 * destination (through a final symlink), given the original's mode and owner, flushed, then renamed over it.
 * Both temp files are removed whatever happens, so a failure leaves the original as it was.
 */
export async function execWriteFile(
  exec: RawExec,
  path: string,
  data: Buffer,
  opts: ExecWriteOptions = {},
): Promise<void> {
  // Temp names nobody can guess, so none can be planted (a symlink to elsewhere) before the write.
  const nonce = randomBytes(6).toString('hex');
  const stem = `${posix.dirname(path)}/.${posix.basename(path)}.sb-${nonce}`;
  const b64 = shellQuote(`${stem}.b64`);
  const text = data.toString('base64');
  const fail = async (r: { output: string; exitCode: number }): Promise<never> => {
    const said = r.output.replace(new RegExp(`${tag}\\S*`, 'g'), '').trim();
    throw writeError(path, errnoInText(said) ?? (await roomLeft(exec, path, data.length)), {
      detail: said || `exit ${r.exitCode}`,
    });
  };
  const mkdir = `mkdir -p -- ${shellQuote(posix.dirname(path))}`;
  if (!opts.stdin) {
    // The chunks' file is the account's alone (umask 077): the content may be nobody else's to read.
    const first = await exec(`${mkdir} && (umask 077 && : > ${b64}) && echo ${tag}ok`, { timeoutMs: fileTimeoutMs });
    if (!first.output.includes(`${tag}ok`)) await fail(first);
  }
  try {
    if (!opts.stdin) {
      for (let at = 0; at < text.length; at += chunkChars) {
        const r = await exec(`printf %s '${text.slice(at, at + chunkChars)}' >> ${b64} && echo ${tag}ok`, {
          timeoutMs: fileTimeoutMs,
        });
        if (!r.output.includes(`${tag}ok`)) await fail(r);
      }
    }
    // POSIX tools and `stat -c` (GNU and BusyBox); the mode and owner are kept where stat answers and chown may.
    // A directory is refused by name: `mv` would put the temp file inside it.
    const done = await exec(
      [
        // With stdin the whole write is this one command, parents made first.
        ...(opts.stdin ? [`${mkdir} || exit 1`] : []),
        `f=${shellQuote(path)}`,
        '[ -L "$f" ] && f=$(readlink -f -- "$f")',
        `[ -d "$f" ] && { echo 'Is a directory' >&2; exit 1; }`,
        // The paths are absolute: their folder and name by expansion, not two more processes.
        `t="\${f%/*}/.\${f##*/}.sb-${nonce}.tmp"`,
        `trap 'rm -f -- "$t"' EXIT`,
        // noclobber: the temp file is new or the write fails (as SFTP's open with `wx`).
        `set -C; base64 -d ${opts.stdin ? '' : `< ${b64} `}> "$t" || exit 1`,
        'if [ -e "$f" ] && mo=$(stat -c "%a %u:%g" -- "$f" 2>/dev/null); then chmod "${mo% *}" "$t" || ' +
          'exit 1; chown "${mo#* }" "$t" 2>/dev/null; fi',
        '{ sync -- "$t" 2>/dev/null || sync; }',
        'mv -f -- "$t" "$f" || exit 1',
        `echo ${tag}ok`,
      ].join('\n'),
      { timeoutMs: fileTimeoutMs, ...(opts.stdin ? { stdin: text } : {}) },
    );
    if (!done.output.includes(`${tag}ok`)) await fail(done);
  } finally {
    // Best effort: the temp file is removed with the target's /tmp anyway.
    if (!opts.stdin) await exec(`rm -f -- ${b64}`, { timeoutMs: fileTimeoutMs }).catch(() => undefined);
  }
}

export async function execHome(exec: RawExec): Promise<string> {
  const r = await exec(`printf '${tag}%s\\n' "$HOME"`, { timeoutMs: fileTimeoutMs });
  const at = r.output.lastIndexOf(tag);
  const home = at < 0 ? '' : (r.output.slice(at + tag.length).split('\n')[0] ?? '').trim();
  return home.startsWith('/') ? home : '/';
}
