// Wraps a command so any POSIX shell reports the cwd it ended in and keeps exported variables between calls.
import { randomBytes } from 'node:crypto';
import { SECRET_VALUE_ERE } from '../../../../shared/redact.js';
import { builtinWithheld } from './commandEnv.js';
import { shellQuote } from '../../platform/index.js';

// Quoting is the platform's (the sandbox quotes too); backends' files take it from here as before.
export { shellQuote };

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
 * SSH session's SSH_* and each process's SB_CORE_* marks (processes/coreRuns.ts) are never kept.
 */
export const exportsDiff =
  `
function secret(k, r,   i) { i = index(r, "="); return divert != "" && ` +
  `(toupper(k) ~ /${withheldNamesEre()}/ || (i > 0 && substr(r, i + 1) ~ ` +
  String.raw`/${SECRET_VALUE_ERE.replace(/\//g, '\\/')}/)) }
function skip(k) { return k ~ /^(PWD|OLDPWD|SHLVL|_|__sb_.*|SSH_[A-Z_]*|SB_CORE_[A-Z_]*)$/ }
function keep() { if (name != "") { if (part) cur[name] = rec; else base[name] = rec }; name = "" }
function scan(s,   i, c, n) {
  n = length(s)
  for (i = 1; i <= n; i++) {
    c = substr(s, i, 1)
    if (q == 1) { if (c == "\047") q = 0 }
    else if (q == 3) { if (c == "\\") i++; else if (c == "\047") q = 0 }
    else if (q == 2) { if (c == "\\") i++; else if (c == "\"") q = 0 }
    else if (c == "\\") i++
    else if (c == "\047") q = 1
    else if (c == "\"") q = 2
    else if (c == "$" && substr(s, i + 1, 1) == "\047") { q = 3; i++ }
  }
}
q { rec = rec "\n" $0; scan($0); next }
$0 == "__sb_exports_now__" { keep(); part = 1; next }
{
  keep()
  if (!match($0, /^(export|declare -[A-Za-z]+) [A-Za-z_][A-Za-z0-9_]*/)) next
  name = substr($0, 1, RLENGTH); sub(/^.* /, "", name)
  rec = $0
  scan(substr($0, RLENGTH + 1))
}
END {
  keep()
  if (!part) exit 1
  print "${exportsFileHeader}"
  for (k in cur) if (!skip(k) && (!(k in base) || base[k] != cur[k])) { if (secret(k, ` +
  `cur[k])) print "#secret " k; else print cur[k] }
  for (k in base) if (!skip(k) && !(k in cur)) { print "unset " k; if (secret(k, base[k])) print "#secret " k }
}`;

/** The built-in withheld names (commandEnv) as one anchored ERE over upper-cased names. */
function withheldNamesEre(): string {
  return `^(${builtinWithheld.map((glob) => glob.toUpperCase().split('*').join('.*')).join('|')})$`;
}

/**
 * For each `#secret NAME` line of the new exports file (names only), a frame on the output before the marker line:
 * `<marker>:secret NAME HEX` with the value's bytes in hex, or `-` when the call unset it (parseWrapped takes them
 * out).
 */
const printSecrets =
  `{ [ -z "${'$'}{__sb_keep-}" ] || for __sb_n in $(sed -n "s/^#secret //p" "$__sb_env.$$"); ` +
  String.raw`do eval "__sb_s=\${$__sb_n+1}"; ` +
  String.raw`if [ -n "$__sb_s" ]; then eval "__sb_v=\$$__sb_n"; printf "\n%s:secret %s %s\n" "$__sb_mark" "$__sb_n" ` +
  String.raw`"$(printf %s "$__sb_v" | od -An -v -tx1 | tr -d " \n")"; ` +
  String.raw`else printf "\n%s:secret %s -\n" "$__sb_mark" "$__sb_n"; fi; done; } && `;

/**
 * What the EXIT trap runs first: a command may have defined functions named like the commands the trap runs (an `rm`
 * that moves to the trash, RVM's `cd`, a `printf` of its own). A `printf` that prints nothing made the exports diff
 * read every variable as unset, and that file then unset PATH and HOME for every later call. The call's shell ends
 * after the trap, so its functions are not lost to anyone.
 */
export const trapOwnCommands =
  'unset -f printf export command awk mkdir cmp mv rm sed od tr pwd cd umask eval test [ 2>/dev/null; ';

/**
 * The cwd the EXIT trap reports, into `__sb_w`: `pwd -P`'s, or, where the command removed its cwd, the path as it was
 * (`pwd -P` fails there, dash's printing nothing; bash's `pwd` would print an error line instead).
 */
export const physicalCwd = '__sb_w=$(pwd -P 2>/dev/null); [ -n "$__sb_w" ] || __sb_w=$PWD';

/**
 * On exit, write the file only if this call changed an exported variable (so a concurrent call that changed
 * nothing cannot undo another's export), through a temp file and a rename (so no call ever reads half a file).
 * The comparison uses `export -p` (a builtin: no process started); awk runs only when something changed, and a
 * result equal to the file (a call that only changed directory) is not written, so it cannot undo a concurrent
 * call's export either. A failed diff (no awk on the target) leaves the file as it was and no temp file behind.
 * (This text sits inside the trap's single quotes, so it has none of its own.)
 */
export const writeEnvFile =
  `(umask 077; mkdir -p "\${__sb_env%/*}" && ` +
  `{ printf "%s\\n__sb_exports_now__\\n" "$__sb_base"; export -p; } | ` +
  `awk -v divert="\${__sb_keep-}" "$__sb_awk" > "$__sb_env.$$" && ` +
  printSecrets +
  `{ cmp -s "$__sb_env.$$" "$__sb_env" || mv -f "$__sb_env.$$" "$__sb_env"; }; rm -f "$__sb_env.$$") 2>/dev/null; `;
export const saveEnv = `[ "$(export -p)" != "$__sb_old" ] && ${writeEnvFile}`;

/**
 * Script lines that remember the starting environment, then load the exports file when this user owns it
 * (never one planted by someone else) and it is in the current format; an older file is removed.
 */
function loadEnvLines(envWord: string): string[] {
  return [
    `__sb_env=${envWord}; __sb_base=$(export -p); __sb_awk=${shellQuote(exportsDiff)}`,
    `if [ -f "$__sb_env" ] && [ -O "$__sb_env" ]; then IFS= read -r __sb_h < "$__sb_env"; ` +
      `if [ "$__sb_h" = ${shellQuote(exportsFileHeader)} ]; then . "$__sb_env" >/dev/null 2>&1; ` +
      `else rm -f "$__sb_env"; fi; fi`,
  ];
}

/** The env file as a shell word: `~/x` becomes "$HOME"/'x'. */
export function envFileWord(path: string): string {
  return path.startsWith('~/') ? `"$HOME"/${shellQuote(path.slice(2))}` : shellQuote(path);
}

/** What the marker line carries instead of a cwd when a `cwdMustExist` directory is missing. */
export const missingCwdStatus = ':missing-cwd';

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
    env && opts.secretsInMemory ? `__sb_keep=1; __sb_mark=${marker}` : '',
    ...(env ? loadEnvLines(env) : []),
    `__sb_d=${shellQuote(opts.cwd)}`,
    opts.cwdMustExist ? `[ -d "$__sb_d" ] || { printf "\n%s%s\n" "${marker}" "${missingCwdStatus}"; exit 2; }` : '',
    'while [ ! -d "$__sb_d" ] && [ "$__sb_d" != / ]; do __sb_d=$(dirname -- "$__sb_d"); done',
    'cd -- "$__sb_d" 2>/dev/null || cd /',
    `[ "$__sb_d" = ${shellQuote(opts.cwd)} ] || printf "[the cwd %s no longer exists; ` +
      `running in %s]\n" ${shellQuote(opts.cwd)} "$(pwd)"`,
    // After the cd, so that entering the cwd is not mistaken for a change of variables.
    env ? '__sb_old=$(export -p)' : '',
    // The trap turns off what a command may have turned on: `set -x` would trace it into the output (and split the
    // marker line), `set -e` would end it at the first failing step, before the marker line.
    `trap '{ __sb_ec=$?; set +eux; } 2>/dev/null; ${trapOwnCommands}${env ? saveEnv : ''}${physicalCwd}; ` +
      `printf "\\n%s%s\\n" "${marker}" "$__sb_w"; exit $__sb_ec' EXIT`,
    `eval ${shellQuote(command)}`,
  ];
  return { script: lines.filter(Boolean).join('\n'), marker };
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
