// The text a POSIX-sh warm shell is fed: once a program that does what wrapCommand's script does, then one line per call.
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
import { randomBytes } from 'node:crypto';
import { envFileWord, exportsDiff, exportsFileHeader, missingCwdStatus, shellQuote, writeEnvFile, type WrapOptions } from './shellWrap.js';
import { mayChangeExports, type WarmCall } from './warmProgram.js';

/** The warm shell says its pid once (on stderr): its calls' process group. */
export const shellPidTag = '__SB_WARM_SHELL__';

/**
 * One call's program, run by `eval "$__sb_prog"` in the call's subshell with its parameters in `__sb_mark`,
 * `__sb_cwd`, `__sb_must`, `__sb_env`, `__sb_snap` (compare exports), `__sb_base` and `__sb_cmd`. The trap is set in
 * double quotes so the marker is fixed when it is set; the marker is hex, nothing in it needs quoting.
 */
const program = [
  'set --',
  'exec 2>&1',
  'if [ -n "$__sb_env" ] && [ -f "$__sb_env" ] && [ -O "$__sb_env" ]; then IFS= read -r __sb_h < "$__sb_env"; ' +
    `if [ "$__sb_h" = ${shellQuote(exportsFileHeader)} ]; then . "$__sb_env" >/dev/null 2>&1; else rm -f "$__sb_env"; fi; fi`,
  '__sb_d=$__sb_cwd',
  `if [ -n "$__sb_must" ] && [ ! -d "$__sb_d" ]; then printf "\\n%s%s\\n" "$__sb_mark" "${missingCwdStatus}"; exit 2; fi`,
  'while [ ! -d "$__sb_d" ] && [ "$__sb_d" != / ]; do __sb_d=$(dirname -- "$__sb_d"); done',
  'cd -- "$__sb_d" 2>/dev/null || cd /',
  '[ "$__sb_d" = "$__sb_cwd" ] || printf "[the cwd %s no longer exists; running in %s]\\n" "$__sb_cwd" "$(pwd)"',
  '[ -z "$__sb_env" ] || [ -z "$__sb_snap" ] || __sb_old=$(export -p)',
  `trap '__sb_ec=$?; [ -z "$__sb_env" ] || [ -z "$__sb_snap" ] || { [ "$(export -p)" = "$__sb_old" ] || ${writeEnvFile}}; ` +
    `printf "\\n%s" "'"$__sb_mark"'"; pwd -P 2>/dev/null || pwd; exit $__sb_ec' EXIT`,
  'eval "$__sb_cmd"',
].join('\n');

/**
 * What a POSIX warm shell is sent once, before its first call. A call shares the shell's process group, so a
 * `kill 0` (the `trap 'kill 0' EXIT` idiom) signals the shell too: while it runs a call it shrugs the usual signals
 * off (a subshell starts with them at their defaults again) and waits on for its call (a caught signal interrupts
 * `wait`); between calls they end it as before.
 */
export function posixWarmPrelude(): string {
  return `trap '[ -n "$__sb_busy" ] || exit 143' HUP INT QUIT TERM USR1 USR2 ALRM\nprintf '%s %s\\n' ${shellPidTag} "$$" >&2\n__sb_pmax=32768; read -r __sb_pmax 2>/dev/null < /proc/sys/kernel/pid_max\n__sb_awk=${shellQuote(exportsDiff)}\n__sb_prog=${shellQuote(program)}\n__sb_base0=$(export -p)\n`;
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
 * stdin /dev/null, its pid reported, waited for, then the end line (exit status, whether a group member lives on).
 */
export function posixWarmCall(command: string, opts: WrapOptions, env: Record<string, string>): WarmCall {
  const id = randomBytes(8).toString('hex');
  const marker = `__SB_CWD_${id}__`;
  const tags = { pid: `__SB_WARM_PID_${id}__`, end: `__SB_WARM_END_${id}__` };
  const snap = opts.envFile !== undefined && mayChangeExports(command);
  const assignments = [
    ...Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
    `__sb_mark=${marker}`,
    `__sb_cwd=${shellQuote(opts.cwd)}`,
    `__sb_must=${opts.cwdMustExist ? '1' : "''"}`,
    `__sb_env=${opts.envFile ? envFileWord(opts.envFile) : "''"}`,
    `__sb_snap=${snap ? '1' : "''"}`,
    // The exports diff skips job tokens and run markers, so the shell's own starting environment stands for the call's.
    !snap || Object.keys(env).every((k) => /^(SB_CORE_[A-Z_]*|__sb_.*)$/.test(k)) ? '__sb_base=$__sb_base0' : '__sb_base=$(export -p)',
    `__sb_cmd=${shellQuote(command)}`,
    'eval "$__sb_prog"',
  ];
  const script =
    `__sb_busy=1; ( ${assignments.join('; ')} ) </dev/null & ` +
    `__sb_p=$!; printf '%s %s\\n' ${tags.pid} "$__sb_p" >&2; ` +
    `while :; do wait "$__sb_p"; __sb_rc=$?; [ "$__sb_rc" = 127 ] && break; kill -0 "$__sb_p" 2>/dev/null || break; done; __sb_busy=; ${leftScan}; ` +
    `printf '\\n%s %s %s\\n' ${tags.end} "$__sb_rc" "$__sb_left"\n`;
  return { script, marker, tags };
}
