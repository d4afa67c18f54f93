// Wraps a command so any POSIX shell reports the cwd it ended in and keeps exported variables between calls.
import { randomBytes } from 'node:crypto';

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
}

export interface Wrapped {
  script: string;
  marker: string;
}

/** Quote for any POSIX shell: one single-quoted word. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const skippedVars = 'PWD|OLDPWD|SHLVL|_|__sb_[a-z_]*|SSH_[A-Z_]*';
const dumpEnv = `export -p | grep -v -E "^(declare -x|export) (${skippedVars})(=|$)"`;
/**
 * On exit, write the variables only if this call changed them (so a concurrent call that changed nothing
 * cannot undo another's export), through a temp file and a rename (so no call ever reads half a file).
 * The unfiltered `export -p` (a builtin: no process started) is what is compared; the filter runs only to write.
 */
const saveEnv =
  `[ "$(export -p)" != "$__sb_old" ] && (umask 077; mkdir -p "\${__sb_env%/*}" && ` +
  `${dumpEnv} > "$__sb_env.$$" && mv -f "$__sb_env.$$" "$__sb_env") 2>/dev/null; `;

/** The env file as a shell word: `~/x` becomes "$HOME"/'x'. */
function envFileWord(path: string): string {
  return path.startsWith('~/') ? `"$HOME"/${shellQuote(path.slice(2))}` : shellQuote(path);
}

/** What the marker line carries instead of a cwd when a `cwdMustExist` directory is missing. */
const missingCwdStatus = ':missing-cwd';

/**
 * A script for `sh -c` (or bash): merges stderr into stdout, restores exported variables,
 * enters the cwd (or, saying so, its nearest parent), evals the command in this shell so `cd` and `export`
 * stick, and on any exit prints a marker line with the final cwd. The marker line is the shell's last word:
 * once it has been read the shell is done, whatever a background child (`cmd &`) still holds open.
 */
export function wrapCommand(command: string, opts: WrapOptions): Wrapped {
  const marker = `__SB_CWD_${randomBytes(8).toString('hex')}__`;
  const env = opts.envFile ? envFileWord(opts.envFile) : '';
  const lines = [
    'exec 2>&1',
    env ? `__sb_env=${env}; [ -f "$__sb_env" ] && [ -O "$__sb_env" ] && . "$__sb_env" >/dev/null 2>&1` : '',
    `__sb_d=${shellQuote(opts.cwd)}`,
    opts.cwdMustExist ? `[ -d "$__sb_d" ] || { printf "\n%s%s\n" "${marker}" "${missingCwdStatus}"; exit 2; }` : '',
    'while [ ! -d "$__sb_d" ] && [ "$__sb_d" != / ]; do __sb_d=$(dirname -- "$__sb_d"); done',
    'cd -- "$__sb_d" 2>/dev/null || cd /',
    `[ "$__sb_d" = ${shellQuote(opts.cwd)} ] || printf "[the cwd %s no longer exists; running in %s]\n" ${shellQuote(opts.cwd)} "$(pwd)"`,
    // After the cd, so that entering the cwd is not mistaken for a change of variables.
    env ? '__sb_old=$(export -p)' : '',
    `trap '__sb_ec=$?; ${env ? saveEnv : ''}printf "\\n%s%s\\n" "${marker}" "$(pwd -P 2>/dev/null || pwd)"; exit $__sb_ec' EXIT`,
    `eval ${shellQuote(command)}`,
  ];
  return { script: lines.filter(Boolean).join('\n'), marker };
}

/**
 * Split a wrapped command's output into what the command printed and the cwd it ended in; `missingCwd` when a
 * `cwdMustExist` directory was not there (nothing ran).
 */
export function parseWrapped(raw: string, marker: string): { output: string; cwd: string | undefined; missingCwd: boolean } {
  const at = raw.lastIndexOf(marker);
  if (at < 0) return { output: raw, cwd: undefined, missingCwd: false };
  const end = raw.indexOf('\n', at);
  const cwd = raw.slice(at + marker.length, end < 0 ? undefined : end).trim();
  // The marker line starts with a newline of its own; drop it so output ends as the command left it.
  let head = raw.slice(0, at);
  if (head.endsWith('\n')) head = head.slice(0, -1);
  if (cwd === missingCwdStatus) return { output: head, cwd: undefined, missingCwd: true };
  return { output: head, cwd: cwd || undefined, missingCwd: false };
}

/** Whether `text` (the end of a wrapped command's output) holds the complete marker line: the shell is done. */
export function markerLineSeen(text: string, marker: string): boolean {
  const at = text.lastIndexOf(marker);
  return at >= 0 && text.indexOf('\n', at) >= 0;
}
