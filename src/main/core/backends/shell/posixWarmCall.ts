// The text a POSIX-sh warm shell is fed: one line per call that runs wrapCommand's script as a session of its own.
//
// warmProgram.ts needs bash 4.4+; a container may only have busybox ash or dash. Here the warm shell (`sh -s`,
// stdin a pipe, no tty) runs each call as `setsid sh -c '<wrapCommand script>' </dev/null &`: the call gets a
// fresh shell, so cwd, exports (the env file), the cwd marker and everything else are exactly the spawn-per-call
// path's, and it leads a session and process group of its own, so a timeout or cancel ends it whole while the warm
// shell lives on. The shell reports the call's pid (= its group, as setsid started from a non-leader does not fork)
// on stderr, waits for it and prints the same end line as warmProgram's calls, so WarmShell runs both alike.
// The call's own variables (run markers, a job token) are assignments on that line, seen only by the call.
// Its stdin is /dev/null: the shell's stdin is the pipe the next calls arrive on (ash and dash read it in
// blocks, not bytes; a call must never be able to read it). `kill -0 -PGID` without `--`: busybox ash's kill
// does not take `--`.
import { randomBytes } from 'node:crypto';
import { shellQuote, wrapCommand, type WrapOptions } from './shellWrap.js';
import type { WarmCall } from './warmProgram.js';

/** What a POSIX warm shell prints on stderr (and then exits) when the image has no setsid. */
export const noSetsidTag = '__SB_WARM_NO_SETSID__';

/** What the shell is sent once: without setsid a call could not be killed apart from the shell, so it ends at once. */
export function posixWarmPrelude(): string {
  return `command -v setsid >/dev/null 2>&1 || { printf '%s\\n' ${noSetsidTag} >&2; exit 97; }\n`;
}

/** Whether every name can be assigned on a command line (the rest need the spawn path's exec environment). */
export function assignable(env: Record<string, string>): boolean {
  return Object.keys(env).every((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
}

/** The line that runs one call: `shell -c` on wrapCommand's script in a session of its own, with `env` set for it only. */
export function posixWarmCall(command: string, opts: WrapOptions, env: Record<string, string>, shell: string): WarmCall {
  const id = randomBytes(8).toString('hex');
  const tags = { pid: `__SB_WARM_PID_${id}__`, end: `__SB_WARM_END_${id}__` };
  const { script, marker } = wrapCommand(command, opts);
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)} `).join('');
  const line =
    `${assignments}setsid ${shellQuote(shell)} -c ${shellQuote(script)} </dev/null & ` +
    `printf '%s %s\\n' ${tags.pid} "$!" >&2; wait "$!"; __sb_rc=$?; ` +
    `__sb_left=0; kill -0 -$! 2>/dev/null && __sb_left=1; ` +
    `printf '\\n%s %s %s\\n' ${tags.end} "$__sb_rc" "$__sb_left"\n`;
  return { script: line, marker, tags };
}
