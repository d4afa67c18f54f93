// File operations made of shell commands, for environments that have exec but no file operations of their own (a
// plugin without them, an SSH server without an sftp subsystem).
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { FileStat } from '../provider.js';
import statFile from './execStat.sh';
import writeFile from './execWrite.sh';
import { shellAssignments, shellQuote, withoutComments } from './shellWrap.js';
import { errnoInText, errnoReason, writeError } from '../../platform/index.js';
import { assertReadableFile } from '../readableFile.js';

/** Runs one `sh -c` command line as given (no wrapping), stdout and stderr merged, with optional stdin. */
export type RawExec = (
  command: string,
  opts: { stdin?: string; timeoutMs: number },
) => Promise<{ output: string; exitCode: number }>;

/**
 * Output lines start after this tag, so a login banner or a stray message cannot be read as file content (execStat.sh
 * and execWrite.sh print it).
 */
const tag = '__SB_FILE__';
const fileTimeoutMs = 60_000;
/** The programs, sent with every operation (without their comments). */
const statProgram = withoutComments(statFile);
const writeProgram = withoutComments(writeFile);

/**
 * execStat.sh for a path: it prints `TAG<kind> <size>` (d, f, o for other, m for missing), then, given `maxBytes`, a
 * regular file within them as base64.
 */
function statScript(path: string, maxBytes?: number): string {
  return `${shellAssignments({ __sb_p: path, __sb_max: maxBytes ?? '' })}\n${statProgram}`;
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
  const { type, size } = parseStat(path, (await exec(statScript(path), { timeoutMs: fileTimeoutMs })).output);
  return { type, size };
}

/**
 * One command: what the path is and, for a file within the cap, its bytes as base64. head's failure goes to stderr
 * (merged) beside its reason, where base64's status alone would hide it.
 */
export async function execReadFile(exec: RawExec, path: string, maxBytes: number): Promise<Buffer> {
  const r = await exec(statScript(path, maxBytes), { timeoutMs: fileTimeoutMs });
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
    // The rest is execWrite.sh: with stdin the whole write is this one command, parents made first.
    const values = {
      __sb_f: path,
      __sb_dir: posix.dirname(path),
      __sb_n: nonce,
      __sb_b64: opts.stdin ? '' : `${stem}.b64`,
    };
    const done = await exec(`${shellAssignments(values)}\n${writeProgram}`, {
      timeoutMs: fileTimeoutMs,
      ...(opts.stdin ? { stdin: text } : {}),
    });
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
