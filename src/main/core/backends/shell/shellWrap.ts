// Wraps a command so any POSIX shell reports the cwd it ended in and keeps exported variables between calls.
import { randomBytes } from 'node:crypto';
import { SECRET_VALUE_ERE } from '../../../../shared/redact.js';
import { builtinWithheld } from './commandEnv.js';
import callProgramFile from './callProgram.sh';
import callStepsFile from './callSteps.sh';
import exportsDiffProgram from './exportsDiff.awk';
import { shellAssignments, shellQuote } from '../../platform/index.js';

// Quoting is the platform's (the sandbox quotes too); backends' files take it from here as before.
export { shellAssignments, shellQuote };

export interface WrapOptions {
  /**
   * Absolute directory to start in. When it is gone the nearest existing parent is used and the output says
   * so, unless `cwdMustExist`: then nothing runs and the result reports the missing directory.
   */
  cwd: string;
  /** The caller named this directory (a `workdir`): a missing one is an error, never a fallback. */
  cwdMustExist?: boolean;
  /**
   * File that holds the identity's exported variables between calls; absent means none are kept.
   * `~/…` is the remote user's home. It is read only when this user owns it (never one planted by someone else).
   */
  envFile?: string;
  /**
   * Exports that look like credentials (by name or value) are not written to the env file: the shell reports them
   * after the command's output (secretFrames) and the Core keeps them in memory (secretExports.ts).
   */
  secretsInMemory?: boolean;
}

export interface Wrapped {
  script: string;
  marker: string;
}

/**
 * The exports file holds only what calls changed: `export` records for variables a call set (or changed) and
 * `unset` lines for inherited ones a call removed — never the inherited environment itself, so a secret the
 * shell started with is never written, a rotated one is not replaced by a stale copy, and PATH is not frozen.
 * Where the Core keeps secrets in memory (secretsInMemory), an export that looks like a credential is never in it,
 * only a `#secret NAME` comment. Its first line names the format; a file of an older format is deleted unread (v1 held
 * the whole `export -p`, v2 could hold a secret a call exported).
 */
export const exportsFileHeader = '# switchboard exports v3';

/**
 * An awk program (POSIX awk, mawk, busybox) that reads the starting `export -p`, a separator line, then the
 * current `export -p`, and prints the exports file: the header, the current record of every variable that is new
 * or changed, and `unset NAME` for every starting one that is gone. `export -p` prints each variable as shell
 * text (`export A='…'` in dash and busybox, `declare -x A="…"` or `$'…'` in bash) whose quoted value may span
 * lines, so records are split by tracking quotes, not by lines. PWD, OLDPWD, SHLVL, `_`, our own `__sb_*`, each
 * SSH session's SSH_* and each process's SB_CORE_* marks (processes/coreRuns.ts) are never kept. The program is
 * exportsDiff.awk; the shell holds it and its values in variables (exportsDiffVariables).
 */
export const exportsDiff = withoutComments(exportsDiffProgram);

/**
 * Shell assignments of the exports diff's program (`__sb_awk`) and the values callSteps.sh's EXIT work passes it: the
 * file's header (`__sb_hdr`), the withheld names (`__sb_nre`) and credential-shaped values (`__sb_vre`) as EREs.
 * Neither ERE holds a backslash, which `awk -v` would take as an escape.
 */
export const exportsDiffVariables =
  `__sb_awk=${shellQuote(exportsDiff)}; __sb_hdr=${shellQuote(exportsFileHeader)}; ` +
  `__sb_nre=${shellQuote(withheldNamesEre())}; __sb_vre=${shellQuote(SECRET_VALUE_ERE)}`;

/** The built-in withheld names (commandEnv) as one anchored ERE over upper-cased names. */
function withheldNamesEre(): string {
  return `^(${builtinWithheld.map((glob) => glob.toUpperCase().split('*').join('.*')).join('|')})$`;
}

/**
 * A program file's text without its comment lines: what a shell is sent (bash reads a script from a pipe a byte at a
 * time) and a warm shell's call evals holds only code. A line whose first non-blank is `#` is a comment in these
 * files (they hold no here-document).
 */
export function withoutComments(text: string): string {
  return text.replace(/^[ \t]*#.*\n/gm, '');
}

/** callSteps.sh: the functions callProgram.sh runs (a warm shell defines them once). */
export const callSteps = withoutComments(callStepsFile);
/** callProgram.sh: one wrapped command's program, after its values (callValues). */
export const callProgram = withoutComments(callProgramFile);

/**
 * The values callProgram.sh takes, as shell assignments: the marker, the done tag (empty: no done line), the cwd and
 * whether it must exist, the exports file (`__sb_env`, a shell word: `~/` is the home) and whether credentials stay
 * out of it (`__sb_keep`), whether the exports are compared (`__sb_snap`), the starting exports (`__sb_base`, shell
 * text) and the command.
 */
export function callValues(
  command: string,
  opts: WrapOptions,
  call: { marker: string; done: string; snap: boolean; base: string },
): string[] {
  return [
    `__sb_mark=${call.marker}`,
    `__sb_done=${call.done || "''"}`,
    `__sb_cwd=${shellQuote(opts.cwd)}`,
    `__sb_must=${opts.cwdMustExist ? '1' : "''"}`,
    `__sb_env=${opts.envFile ? envFileWord(opts.envFile) : "''"}`,
    `__sb_keep=${opts.envFile && opts.secretsInMemory ? '1' : "''"}`,
    `__sb_snap=${call.snap ? '1' : "''"}`,
    `__sb_base=${call.base}`,
    `__sb_cmd=${shellQuote(command)}`,
  ];
}

/** The env file as a shell word: `~/x` becomes "$HOME"/'x'. */
export function envFileWord(path: string): string {
  return path.startsWith('~/') ? `"$HOME"/${shellQuote(path.slice(2))}` : shellQuote(path);
}

/** What the marker line carries instead of a cwd when a `cwdMustExist` directory is missing (callSteps.sh says it). */
export const missingCwdStatus = ':missing-cwd';

/**
 * A script for `sh -c` (or bash): merges stderr into stdout, restores exported variables,
 * enters the cwd (or, saying so, its nearest parent), evals the command in this shell so `cd` and `export`
 * stick, and on any exit prints a marker line with the final cwd. The marker line is the shell's last word:
 * once it has been read the shell is done, whatever a background child (`cmd &`) still holds open. It is
 * callSteps.sh and callProgram.sh after the call's values, as a warm shell's call runs them; the exports are always
 * compared.
 */
export function wrapCommand(command: string, opts: WrapOptions): Wrapped {
  const marker = `__SB_CWD_${randomBytes(8).toString('hex')}__`;
  const env = !!opts.envFile;
  const values = callValues(command, opts, { marker, done: '', snap: env, base: env ? '$(export -p)' : "''" });
  const diff = opts.envFile ? `${exportsDiffVariables}\n` : '';
  return { script: `${diff}${callSteps}${values.join('\n')}\n${callProgram}`, marker };
}

/**
 * An export the shell reported instead of writing it to the env file: its value, or undefined when the call unset it.
 */
export interface SecretFrame {
  name: string;
  value: string | undefined;
}

/**
 * Take the shell's secret frames (printSecrets) out of the output: they are the Core's to keep, never the caller's to
 * read.
 */
function takeSecretFrames(head: string, marker: string): { rest: string; secrets: SecretFrame[] } {
  const secrets: SecretFrame[] = [];
  if (!head.includes(`${marker}:secret `)) return { rest: head, secrets };
  const frame = new RegExp(`\\n?${marker}:secret ([A-Za-z_][A-Za-z0-9_]*) ([0-9a-f]*|-)(?=\\n|$)\\n?`, 'g');
  const rest = head.replace(frame, (_m, name: string, hex: string) => {
    secrets.push({ name, value: hex === '-' ? undefined : Buffer.from(hex, 'hex').toString('utf8') });
    return '';
  });
  return { rest, secrets };
}

/**
 * Split a wrapped command's output into what the command printed and the cwd it ended in; `missingCwd` when a
 * `cwdMustExist` directory was not there (nothing ran); `secrets`: the exports the shell kept out of the env file.
 */
export function parseWrapped(
  raw: string,
  marker: string,
): { output: string; cwd: string | undefined; missingCwd: boolean; secrets: SecretFrame[] } {
  const at = raw.lastIndexOf(marker);
  if (at < 0) return { output: raw, cwd: undefined, missingCwd: false, secrets: [] };
  const end = raw.indexOf('\n', at);
  const cwd = raw.slice(at + marker.length, end < 0 ? undefined : end).trim();
  const { rest, secrets } = takeSecretFrames(raw.slice(0, at), marker);
  // The marker line starts with a newline of its own; drop it so output ends as the command left it.
  let head = rest;
  if (head.endsWith('\n')) head = head.slice(0, -1);
  if (cwd === missingCwdStatus) return { output: head, cwd: undefined, missingCwd: true, secrets };
  return { output: head, cwd: cwd || undefined, missingCwd: false, secrets };
}

/** Whether `text` (the end of a wrapped command's output) holds the complete marker line: the shell is done. */
export function markerLineSeen(text: string, marker: string): boolean {
  const at = text.lastIndexOf(marker);
  return at >= 0 && text.indexOf('\n', at) >= 0;
}
