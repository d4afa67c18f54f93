// The text a warm shell is fed: once a program that does what wrapCommand's script does, then one short line per call.
//
// A warm shell is a bash reading commands on its stdin (`bash -s`) with job control on, so each call runs in a
// subshell of its own process group (killed whole on timeout or cancel, the shell itself untouched) and sees
// nothing another call left: cwd, exported variables and the rest are the identity's, restored per call exactly as
// wrapCommand does in a fresh shell. bash reads a script from a pipe one byte at a time, so the fixed program is sent
// once (in `__sb_prog`) and a call sends only its parameters.
//
// Forking is most of what a call costs (a fork of bash takes milliseconds on a small VM), so the shell forks the next
// call's subshell as soon as a call is over: it waits, with nothing of any call in it yet, for its parameters on the
// shell's own stdin, and a call only hands them over. The shell meanwhile does nothing but wait for it: every page
// either process writes while both live is copied (with a TLB flush on each CPU that ran it), and that copying, not
// the fork itself, was most of a call's cost in the shell.
import { randomHex } from '../../platform/index.js';
import {
  envFileWord,
  exportsDiff,
  exportsFileHeader,
  missingCwdStatus,
  physicalCwd,
  shellQuote,
  trapOwnCommands,
  writeEnvFile,
  type WrapOptions,
  type Wrapped,
} from './shellWrap.js';

/**
 * A signature of every exported variable (name, value) into `__sb_s`, with bash builtins only: `${!X*}` lists the
 * variables, `@a` their attributes, `@Q` quotes a value. Two equal signatures mean `export -p` would print the same
 * set; comparing them costs no process, where `$(export -p)` forks once per use.
 */
const signature =
  `__sb_s=; for __sb_n ` +
  `in ${[...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_'].map((c) => `\${!${c}*}`).join(' ')}; ` +
  `do [[ \${!__sb_n@a} == *x* ]] && __sb_s+="$__sb_n=\${!__sb_n@Q};"; done`;

const expandsOrAssigns = /[=$`'"\\*?[{]|\(\(/;
const assigningBuiltin = new RegExp(
  String.raw`(^|[^\w.-])(export|unset|read|readonly|eval|set|source|typeset|declare|local|let|getopts|for|select|` +
    String.raw`mapfile|readarray|printf|command|builtin|trap|alias|exec|wait|enable|shopt)(?![\w.-])`,
);

/**
 * Whether a command could change the shell's exported variables: an `=` (assignment, `${x:=…}`, `$((x+=1))`), an
 * arithmetic `((x++))`, a builtin that assigns or runs other text (`export`, `read`, `eval`, `.` …), or anything that
 * could spell such a word only when the shell expands it: quotes, `\`, `$`, a backquote, a glob or a brace (`e""xport`,
 * `$c X`, `expor? X`, `e{x,}port`). A command with none of these only runs programs and builtins that leave the
 * variables alone, so its exports need no before-and-after comparison, which is most of what a warm call costs the
 * shell.
 */
export function mayChangeExports(command: string): boolean {
  return expandsOrAssigns.test(command) || assigningBuiltin.test(command) || /(^|[\s;&|(){}])\.(\s|$)/.test(command);
}

/**
 * The functions every call's program uses, defined once in the warm shell (so parsed once: bash parses an `eval`'s
 * text anew each time, and the steps below were most of what the shell spent on a call that runs `true`). Each call's
 * subshell inherits them. `snapshot` takes the exports' snapshot into `__sb_s`: bash with builtins (signature), POSIX
 * sh with `$(export -p)`.
 * - `__sb_enter` enters the cwd (or, saying so, its nearest parent; a `cwdMustExist` one that is missing ends the
 *   call with the missing-cwd marker) and takes the exports' snapshot before the command when it is to be compared.
 * - `__sb_exit MARKER DONE` is the EXIT trap's work: save changed exports, print the marker line as wrapCommand prints
 *   it ("\n<marker><cwd>\n"), then the done line when the command ran to its end, and exit with the command's status
 *   (`__sb_ec`, taken by the trap before it calls this).
 */
function callFunctions(snapshot: string): string {
  return [
    `__sb_sig() { ${snapshot}; return 0; }`,
    '__sb_enter() {',
    '__sb_d=$__sb_cwd',
    `if [ -n "$__sb_must" ] && [ ! -d "$__sb_d" ]; then printf "\\n%s%s\\n" "$__sb_mark" "${missingCwdStatus}"; ` +
      'exit 2; fi',
    'while [ ! -d "$__sb_d" ] && [ "$__sb_d" != / ]; do __sb_d=$(dirname -- "$__sb_d"); done',
    'cd -- "$__sb_d" 2>/dev/null || cd /',
    '[ "$__sb_d" = "$__sb_cwd" ] || printf "[the cwd %s no longer exists; running in %s]\\n" "$__sb_cwd" "$(pwd)"',
    'if [ -n "$__sb_env" ] && [ -n "$__sb_snap" ]; then __sb_sig; __sb_old=$__sb_s; fi',
    '}',
    '__sb_exit() {',
    trapOwnCommands,
    `[ -z "$__sb_env" ] || [ -z "$__sb_snap" ] || { __sb_sig; [ "$__sb_s" = "$__sb_old" ] || ${writeEnvFile}}`,
    // `cd -P .` makes $PWD the physical cwd, as `pwd -P` prints it, without a process. Where $PWD is not a directory
    // (the command removed its cwd, where bash's `cd -P .` succeeds with "/." added, or assigned PWD) the spawn path's
    // way says. Both lines then go out in one write: one packet over SSH.
    `if [ -d "$PWD" ] && command cd -P . 2>/dev/null; then __sb_w=$PWD; else ${physicalCwd}; fi`,
    'if [ -n "$__sb_fin" ] && [ -n "$2" ]; then printf "\\n%s%s\\n%s %s\\n" "$1" "$__sb_w" "$2" "$__sb_fin"; ' +
      'else printf "\\n%s%s\\n" "$1" "$__sb_w"; fi',
    'exit $__sb_ec',
    '}',
  ].join('\n');
}

/**
 * One call's program, run by `eval "$__sb_prog"` in the call's subshell with its parameters in `__sb_mark`,
 * `__sb_done`, `__sb_cwd`, `__sb_must`, `__sb_env`, `__sb_snap` (compare exports), `__sb_base` and `__sb_cmd`: the
 * same steps, in the same order, as wrapCommand's script, through the functions of callFunctions. Where the call has
 * a done tag and its command ran to its end (no `exit`, no signal), the exit status follows the marker line on the
 * done tag's line, so the call is answered without waiting for the shell to reap the subshell. The starting
 * environment (`__sb_base`) is the warm shell's own, taken once when it starts, unless the call exports more than run
 * markers (a snapshot is never written to a file: it holds inherited values). The exports file is loaded here, not in
 * a function: bash's `declare -x` lines in it would declare locals there.
 *
 * The trap first turns off what a command may have turned on and the trap's own work must not meet: `set -x` (it
 * would trace the trap into the output), `set -u` (an unset name would end the trap with an error in the output, and
 * the exports unsaved) and `set -e`. It is set in double quotes so the marker is fixed when it is set (a command that
 * reuses `__sb_mark` or `__sb_done` cannot lose them); both are hex or empty, nothing in them needs quoting.
 */
const callProgram = [
  // The subshell's own positional parameters: none, as in a fresh `sh -c` (a POSIX warm shell sets its own).
  'set --',
  'exec 2>&1',
  'if [ -n "$__sb_env" ] && [ -f "$__sb_env" ] && [ -O "$__sb_env" ]; then IFS= read -r __sb_h < "$__sb_env"; ' +
    `if [ "$__sb_h" = ${shellQuote(exportsFileHeader)} ]; then . "$__sb_env" >/dev/null 2>&1; ` +
    `else rm -f "$__sb_env"; fi; fi`,
  '__sb_enter',
  `trap "{ __sb_ec=\\$?; set +eux; } 2>/dev/null; __sb_exit '$__sb_mark' '$__sb_done'" EXIT`,
  // `__sb_fin` is set only when the command ran to its end: the EXIT trap of a subshell that a signal ends sees
  // `$?` as it was before, so only then is the status certain before the shell has reaped the subshell.
  'eval "$__sb_cmd"',
  '{ __sb_fin=$?; set +x; } 2>/dev/null',
  'exit $__sb_fin',
].join('\n');

/**
 * What a warm shell (bash or POSIX sh) defines once for its calls: the exports diff's awk program, callFunctions and
 * the per-call program. `snapshot` takes the exports' snapshot into `__sb_s`.
 */
export function callDefinitions(snapshot: string): string {
  return `__sb_awk=${shellQuote(exportsDiff)}\n${callFunctions(snapshot)}\n__sb_prog=${shellQuote(callProgram)}\n`;
}

/** The length of every call's end tag (`__SB_WARM_END_` and 16 hex digits): the shell reads it in one `read -N`. */
const endTagLength = '__SB_WARM_END_0123456789abcdef__'.length;

/** The next call's subshell (see callLoop). */
const subshell =
  '( set +m; IFS= read -r -N 10 __sb_n || exit 0; IFS= read -r -N "$((10#$__sb_n))" __sb_raw || exit 0; ' +
  'exec </dev/null; printf -v __sb_call %b "$__sb_raw"; eval "$__sb_call" ) &';

/**
 * The shell's loop. It forks the next call's subshell, which reads a ten-digit length and then that many
 * bytes of parameters, ASCII only (see asciiParameters), from the shell's stdin with `read -N` (one read, where a
 * script line is read a byte at a time), points its stdin at /dev/null, as on the spawn path, and runs them. The
 * shell reads nothing until that subshell has exited, so the parameters are the subshell's alone; then it reads
 * the call's end tag that follows them, and reports the end. A subshell that finds the stdin closed exits, and
 * so does the shell: that is how a retired shell ends. A subshell killed while it waited leaves the next call's
 * parameters where the shell expects an end tag: the shell sees that it is not one and exits (the call says its
 * shell ended), never reading the rest as its own script.
 *
 * The subshell is forked at the top level of the loop's body, not in a function (a command's `return` or `local`
 * would work there, FUNCNAME would be set) nor in a condition or an && / || list (its command would run with `set -e`
 * ignored). The next one is forked once the end tag is read, before the end line is printed, so it is ready when the
 * next call comes: the fork overlaps the answer's way to the client and back.
 */
const callLoop = [
  // One line: bash has read all of it before the first subshell is forked, which then owns the stdin.
  subshell,
  `while :; do __sb_p=$!; wait "$__sb_p"; __sb_rc=$?; IFS= read -r -N ${endTagLength} __sb_end || exit; ` +
    `[[ $__sb_end == __SB_WARM_END_*__ ]] || exit; ` +
    `__sb_left=0; kill -0 -- -"$__sb_p" 2>/dev/null && __sb_left=1; ${subshell} printf '\\n%s %s %s %s\\n' ` +
    `"$__sb_end" "$__sb_rc" "$__sb_left" "$__sb_p"; done`,
].join(' ');

/**
 * A call's parameters as printable ASCII for `printf %b`: every byte outside printable ASCII, and every backslash,
 * becomes `\xHH`. Its length in bytes is then its length in characters whatever the shell's locale, which `read -N`
 * counts in; `%b` turns it back into the same bytes.
 */
export function asciiParameters(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  let escaped = 0;
  for (const byte of bytes) if (!printable(byte)) escaped++;
  // Written into one buffer of the final size: adding a character at a time to a string made a chain of a million
  // pieces for a 1 MB command, some 40 MB of the Core's memory.
  const out = Buffer.allocUnsafe(bytes.length + 3 * escaped);
  let at = 0;
  for (const byte of bytes) {
    if (printable(byte)) out[at++] = byte;
    else {
      out[at++] = 0x5c; // backslash
      out[at++] = 0x78; // x
      out[at++] = hexDigits.charCodeAt(byte >> 4);
      out[at++] = hexDigits.charCodeAt(byte & 15);
    }
  }
  return out.toString('latin1');
}

const hexDigits = '0123456789abcdef';
/** Printable ASCII other than the backslash: sent as it is. */
const printable = (byte: number): boolean => byte >= 0x20 && byte < 0x7f && byte !== 0x5c;

/** What a warm shell is sent once, before its first call; the loop in it then takes every call. */
export function warmPrelude(): string {
  // `set -m`: every `&` job gets a process group of its own. The call's subshell turns it off again, so what a
  // command puts in the background stays in the call's group, as in a fresh `bash -c`.
  return `set -m\n${callDefinitions(signature)}__sb_base0=$(export -p)\n${callLoop}\n`;
}

/**
 * Whether a command names its shell's pid (`$$`): in a warm shell that is the shell, not a shell of the call's
 * own, so `kill $$` would end the shell instead of the call. A backend runs such a command in a shell of its own.
 */
export function namesOwnPid(command: string): boolean {
  return /\$\$|\$\{\$\}/.test(command);
}

/** The control lines a warm shell prints for one call: its process group on stderr, its end on stdout. */
export interface WarmCallTags {
  /** `<pid tag> <pgid>` on stderr once the call's subshell started. */
  pid: string;
  /**
   * `<done tag> <exit status>` on stdout, the line after the marker line, printed by the call's EXIT trap when the
   * command ran to its end: the call's answer can go out then, before its subshell has been reaped.
   */
  done: string;
  /**
   * `\n<end tag> <exit status> <0|1> <group>` on stdout once the subshell was reaped (1: something is still in its
   * process group); nothing of the call follows it. The shell takes its next call after it. The group is the pid
   * line's again: stdout may be read before stderr (warmRun.ts).
   */
  end: string;
}

export interface WarmCall extends Wrapped {
  tags: WarmCallTags;
}

/**
 * One call's tags, marker and the assignments its subshell runs before the program (`eval "$__sb_prog"`). `early`:
 * the program prints the done line (see WarmCallTags.done); a shell whose calls are answered only at the end line
 * (the POSIX warm shell) leaves it out.
 */
export function warmCallParameters(
  command: string,
  opts: WrapOptions,
  exports: Record<string, string>,
  early = false,
): {
  marker: string;
  tags: WarmCallTags;
  assignments: string[];
} {
  const id = randomHex(8);
  const marker = `__SB_CWD_${id}__`;
  const tags = { pid: `__SB_WARM_PID_${id}__`, done: `__SB_WARM_DONE_${id}__`, end: `__SB_WARM_END_${id}__` };
  const snap = opts.envFile !== undefined && mayChangeExports(command);
  const assignments = [
    ...Object.entries(exports).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
    `__sb_mark=${marker}`,
    `__sb_done=${early ? tags.done : "''"}`,
    `__sb_cwd=${shellQuote(opts.cwd)}`,
    `__sb_must=${opts.cwdMustExist ? '1' : "''"}`,
    `__sb_env=${opts.envFile ? envFileWord(opts.envFile) : "''"}`,
    `__sb_keep=${opts.envFile && opts.secretsInMemory ? '1' : "''"}`,
    `__sb_snap=${snap ? '1' : "''"}`,
    // The exports diff skips run markers (SB_CORE_*) and our own variables (a job token), so the shell's own
    // starting environment stands for the call's.
    !snap || Object.keys(exports).every((k) => /^(SB_CORE_[A-Z_]*|__sb_.*)$/.test(k))
      ? '__sb_base=$__sb_base0'
      : '__sb_base=$(export -p)',
    `__sb_cmd=${shellQuote(command)}`,
    'eval "$__sb_prog"',
  ];
  return { marker, tags, assignments };
}

/**
 * What runs one call in a warm shell: the parameters for the subshell waiting for them (which first says its
 * process group on stderr, the shell's control channel, before pointing its own stderr at stdout), then the end tag
 * for the shell, which reports the exit status after everything the call printed. `exports` are the call's own
 * variables (run markers), exported in the subshell only.
 */
export function warmCall(command: string, opts: WrapOptions, exports: Record<string, string>): WarmCall {
  const { marker, tags, assignments } = warmCallParameters(command, opts, exports, true);
  const parameters = asciiParameters([`printf '%s %s\\n' ${tags.pid} "$BASHPID" >&2`, ...assignments].join('; '));
  const script = `${String(parameters.length).padStart(10, '0')}${parameters}${tags.end}`;
  return { script, marker, tags };
}
