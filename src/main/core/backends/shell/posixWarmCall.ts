// The text a POSIX-sh warm shell is fed: once a program that does what wrapCommand's script does, then one line per
// call.
//
// warmProgram.ts needs bash 4.4+; a container may only have busybox ash or dash, without job control (no tty).
// So a call runs in a forked subshell of the warm shell — no exec, the cheapest process a shell can start — and
// stays in the warm shell's process group. The warm shell runs one call at a time, so "the call's processes" are
// the members of that group other than the shell itself, plus whatever carries the call's job token (`__sb_job`,
// exported in the subshell so every program it starts has it in its environment): the backend's kill script ends
// those, and after the call the shell scans /proc (builtins only, no process) for a member left running (`cmd &`),
// which retires it. The subshell repeats wrapCommand's steps in the same order (env file, cwd or its nearest parent,
// eval, EXIT trap saving changed exports and printing the cwd marker), so results read exactly as on the
// spawn-per-call path. Capturing `export -p` costs a fork in POSIX sh, so it is taken only for a command that could
// change the exports at all (mayChangeExports, shared with warmProgram). The shell's stdin is the pipe the
// calls arrive on (ash and dash read it in blocks): a call's stdin is /dev/null.
import type { WrapOptions } from './shellWrap.js';
import { callDefinitions, warmCallParameters, type WarmCall } from './warmProgram.js';

/** The warm shell says its pid once (on stderr): its calls' process group. */
export const shellPidTag = '__SB_WARM_SHELL__';

/** The exports' snapshot in POSIX sh: a fork (there is no builtin way to list them). */
const exportsSnapshot = '__sb_s=$(export -p)';

/**
 * What a POSIX warm shell is sent once, before its first call. A call shares the shell's process group, so a
 * `kill 0` (the `trap 'kill 0' EXIT` idiom) signals the shell too: while it runs a call it shrugs the usual signals
 * off (a subshell starts with them at their defaults again) and waits on for its call (a caught signal interrupts
 * `wait`); between calls they end it as before.
 */
export function posixWarmPrelude(): string {
  return (
    `trap '[ -n "$__sb_busy" ] || exit 143' HUP INT QUIT TERM USR1 USR2 ALRM\nprintf '%s %s\\n' ${shellPidTag} ` +
    `"$$" >&2\n__sb_pmax=32768; read -r __sb_pmax 2>/dev/null < /proc/sys/kernel/pid_max\n` +
    `${callDefinitions(exportsSnapshot)}__sb_base0=$(export -p)\n`
  );
}

/** Whether every name can be exported by a POSIX shell (the rest need the spawn path's exec environment). */
export function assignable(env: Record<string, string>): boolean {
  return Object.keys(env).every((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
}

/**
 * A member of the shell's process group other than the shell, found with builtins only (a zombie does not count):
 * `__sb_left=1` when there is one. What a call started has a higher pid than its subshell (`__sb_p`), so only those
 * stat files are read (`read` takes a byte per system call), unless the pids may have wrapped around since (the
 * subshell's pid is in the top quarter of pid_max): then every one.
 */
const leftScan =
  '__sb_left=0; __sb_all=; [ "$__sb_p" -gt "$((__sb_pmax / 4 * 3))" ] && __sb_all=1; ' +
  'for __sb_f in /proc/[0-9]*/stat; do __sb_q=${__sb_f#/proc/}; __sb_q=${__sb_q%/stat}; ' +
  '[ "$__sb_q" -gt "$__sb_p" ] || [ -n "$__sb_all" ] || continue; [ "$__sb_q" = "$$" ] && continue; ' +
  'IFS= read -r __sb_s 2>/dev/null < "$__sb_f" || continue; __sb_s=${__sb_s##*") "}; set -- $__sb_s; ' +
  '[ "$3" = "$$" ] && [ "$1" != Z ] && { __sb_left=1; break; }; done; set --';

/**
 * The line that runs one call: a subshell with the call's variables (`env`: job token, run markers) exported, its
 * stdin /dev/null, its pid reported, waited for, then the end line (exit status, whether a group member lives on,
 * the subshell's pid again).
 */
export function posixWarmCall(command: string, opts: WrapOptions, env: Record<string, string>): WarmCall {
  const { marker, tags, assignments } = warmCallParameters(command, opts, env);
  const script =
    `__sb_busy=1; ( ${assignments.join('; ')} ) </dev/null & ` +
    `__sb_p=$!; printf '%s %s\\n' ${tags.pid} "$__sb_p" >&2; ` +
    `while :; do wait "$__sb_p"; __sb_rc=$?; [ "$__sb_rc" = 127 ] && break; kill -0 "$__sb_p" 2>/dev/null || ` +
    `break; done; __sb_busy=; ${leftScan}; ` +
    `printf '\\n%s %s %s %s\\n' ${tags.end} "$__sb_rc" "$__sb_left" "$__sb_p"\n`;
  return { script, marker, tags };
}
