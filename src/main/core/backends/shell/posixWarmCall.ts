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
import posixWarmFile from './posixWarm.sh';
import { withoutComments, type WrapOptions } from './shellWrap.js';
import { callDefinitions, warmCallParameters, type WarmCall } from './warmProgram.js';

/** posixWarm.sh: a POSIX warm shell's own part. */
const posixWarm = withoutComments(posixWarmFile);

/** The warm shell says its pid once (on stderr): its calls' process group. */
export const shellPidTag = '__SB_WARM_SHELL__';

/**
 * What a POSIX warm shell is sent once, before its first call: posixWarm.sh (its signals while a call runs, its pid,
 * the function that reaps a call), then callDefinitions (whose exports' snapshot is `$(export -p)`: a fork, there is
 * no builtin way to list them) and the starting exports.
 */
export function posixWarmPrelude(): string {
  return `__sb_shelltag=${shellPidTag}\n${posixWarm}${callDefinitions()}__sb_base0=$(export -p)\n`;
}

/** Whether every name can be exported by a POSIX shell (the rest need the spawn path's exec environment). */
export function assignable(env: Record<string, string>): boolean {
  return Object.keys(env).every((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k));
}

/**
 * The line that runs one call: a subshell with the call's variables (`env`: job token, run markers) exported, its
 * stdin /dev/null; posixWarm.sh's __sb_reap then reports its pid, waits for it and prints the end line (exit status,
 * whether a group member lives on, the subshell's pid again).
 */
export function posixWarmCall(command: string, opts: WrapOptions, env: Record<string, string>): WarmCall {
  const { marker, tags, assignments } = warmCallParameters(command, opts, env);
  const script = `__sb_busy=1; ( ${assignments.join('; ')} ) </dev/null & __sb_reap ${tags.pid} ${tags.end}\n`;
  return { script, marker, tags };
}
