// Builds the POSIX sh text sent over SSH exec channels: process-group launch, group kill, login shells.
import { envNamePattern } from '../shell/commandEnv.js';
import { envReadingShells, osc7EnvFile } from '../shell/osc7Env.js';
import enterDirFile from '../shell/enterDir.sh';
import { shellAssignments, shellQuote, withoutComments } from '../shell/shellWrap.js';
import groupLaunchFile from './groupLaunch.sh';
import loginShellFile from './loginShell.sh';

/** groupLaunch.sh: starts a command's shell as the leader of its process group. */
const groupLaunch = withoutComments(groupLaunchFile);
const enterDirProgram = withoutComments(enterDirFile);

/**
 * `export K='v'` lines for variables already cleared by commandEnv (names a shell cannot export are skipped).
 * Nothing is sent as SSH `env` requests (SendEnv): sshd would drop most, and what it kept would bypass the rules.
 */
export function exportLines(env: Record<string, string> | undefined): string {
  if (!env) return '';
  return Object.entries(env)
    .filter(([k]) => envNamePattern.test(k))
    .map(([k, v]) => `export ${k}=${shellQuote(v)}\n`)
    .join('');
}

/**
 * A shell line that reads a staged file of `export` lines (values a person passed through, which never go on a
 * command line) if this user owns it, and deletes it.
 */
export function sourceStaged(path: string | undefined): string {
  if (path === undefined) return '';
  return `__sb_p=${shellQuote(path)}; [ -O "$__sb_p" ] && . "$__sb_p"; rm -f "$__sb_p"\n`;
}

/** Shell lines that enter a directory, or its nearest existing parent, or / (shell/enterDir.sh). */
export function enterDir(cwd: string): string {
  return `__sb_d=${shellQuote(cwd)}\n${enterDirProgram}`;
}

/**
 * The exec-channel command that runs `body` as the leader of its own process group and first prints
 * `MARKER<pgid>` on a line of its own, so a timeout or kill can signal the whole group remotely
 * (closing our channel alone would leave the remote processes running).
 * OpenSSH (and dropbear) already make each session's shell a session leader; then `exec` keeps the pid,
 * `$$` is the group id and a signal death still reaches us as exit-signal. Elsewhere `setsid -w` makes a
 * new group (it reports a signal death as a plain status, hence only as the fallback). The outer
 * `exec sh -c` keeps the text POSIX whatever the user's login shell is.
 */
export function groupCommand(
  body: string,
  opts: { marker: string; cwd?: string; env?: Record<string, string>; staged?: string },
): string {
  // The body's shell: stderr back from fd 3 (groupLaunch.sh), then the group line; the marker is hex.
  const boot = `exec 2>&3 3>&-\nprintf '%s%s\\n' '${opts.marker}' "$$"\n${body}`;
  const inner =
    (opts.cwd !== undefined ? enterDir(opts.cwd) : '') +
    exportLines(opts.env) +
    sourceStaged(opts.staged) +
    `__sb_boot=${shellQuote(boot)}\n${groupLaunch}`;
  return `exec sh -c ${shellQuote(inner)}`;
}

/** Splits the group-id line off the start of a stream; undefined while the first line is incomplete. */
export function takeGroupLine(
  buffered: string,
  marker: string,
): { pgid: number | undefined; rest: string } | undefined {
  const nl = buffered.indexOf('\n');
  if (nl < 0) {
    // Not our line at all (a startup error, say): stop waiting as soon as that is certain.
    if (buffered.length >= marker.length && !buffered.startsWith(marker)) return { pgid: undefined, rest: buffered };
    return undefined;
  }
  const first = buffered.slice(0, nl);
  if (!first.startsWith(marker)) return { pgid: undefined, rest: buffered };
  const pgid = Number(first.slice(marker.length));
  return { pgid: Number.isInteger(pgid) && pgid > 1 ? pgid : undefined, rest: buffered.slice(nl + 1) };
}

/**
 * The exec-channel command for a warm shell (warmShell.ts): the identity's variables, then `bash -s` reading calls
 * on the channel (or `inSandbox`, which starts it in the target's sandbox). sshd made it a session leader, so each
 * call's `set -m` job is a process group of its own.
 */
export function warmShellCommand(env: Record<string, string> | undefined, staged?: string, inSandbox?: string): string {
  const start = inSandbox ?? 'exec bash -s';
  return `exec sh -c ${shellQuote(`cd / || exit 1\n${exportLines(env)}${sourceStaged(staged)}${start}`)}`;
}

/**
 * Exits 0 where bash is 4.4 or newer: the warm program needs `${var@Q}` and `${var@a}`; elsewhere (busybox,
 * an old bash) every call starts a shell of its own.
 */
const bashAtLeast44 =
  '[ "${BASH_VERSINFO[0]}" -gt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -ge 4 ]; }';
export const warmShellCheck = `command -v bash >/dev/null 2>&1 && exec bash -c ${shellQuote(bashAtLeast44)}`;

/** Makes bash print OSC 7 (file://host/cwd) before every prompt, as local panes do, so pane headers follow `cd`. */
const osc7PromptCommand = 'printf "\\033]7;file://%s%s\\033\\\\" "${HOSTNAME:-localhost}" "$PWD"';

/** loginShell.sh: a pane's shell, reporting its cwd with OSC 7. */
const loginShell = withoutComments(loginShellFile);

/**
 * The exec-channel command for an interactive pane: enter cwd, then become the user's login shell, or the target's
 * `shell` (its words, as the spec's field split them) when it has one (loginShell.sh, the words its arguments).
 */
export function loginShellCommand(
  cwd: string,
  env: Record<string, string> | undefined,
  staged?: string,
  shell?: { words: readonly [string, ...string[]]; target: string },
): string {
  const values = shellAssignments({
    __sb_prompt: osc7PromptCommand,
    __sb_envfile: osc7EnvFile,
    __sb_shells: envReadingShells.join(' '),
    __sb_target: shell?.target ?? '',
  });
  const inner =
    enterDir(cwd) +
    exportLines({ COLORTERM: 'truecolor', TERM_PROGRAM: 'Switchboard', ...env }) +
    sourceStaged(staged) +
    `${values}\n${loginShell}`;
  const words = shell ? ` sh ${shell.words.map(shellQuote).join(' ')}` : '';
  return `exec sh -c ${shellQuote(inner)}${words}`;
}

const signalNumbers: Record<string, number> = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  ABRT: 6,
  KILL: 9,
  SEGV: 11,
  PIPE: 13,
  ALRM: 14,
  TERM: 15,
};

/** Exit code of a channel's `exit` event: the status, or 128 + signal number as shells report it. */
export function exitCodeOf(code: unknown, signal: unknown): number | undefined {
  if (typeof code === 'number') return code;
  if (typeof signal === 'string') return 128 + (signalNumbers[signal.replace(/^SIG/, '')] ?? 0);
  return undefined;
}
