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
  callProgram,
  callSteps,
  callValues,
  exportsDiffVariables,
  shellQuote,
  withoutComments,
  type WrapOptions,
  type Wrapped,
} from './shellWrap.js';
import warmLoopFile from './warmLoop.sh';

/** warmLoop.sh: a bash warm shell's own part. */
const warmLoop = withoutComments(warmLoopFile);

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
 * What a warm shell (bash or POSIX sh) defines once for its calls: the exports diff's awk program and values, the
 * functions of callSteps.sh (each call's subshell inherits them, parsed once: bash parses an `eval`'s text anew each
 * time) and callProgram.sh in `__sb_prog`, which each call's subshell evals after its parameters (warmCallParameters).
 */
export function callDefinitions(): string {
  return `${exportsDiffVariables}\n${callSteps}__sb_prog=${shellQuote(callProgram)}\n`;
}

/** The length of every call's end tag (`__SB_WARM_END_` and 16 hex digits): the shell reads it in one `read -N`. */
const endTagLength = '__SB_WARM_END_0123456789abcdef__'.length;

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

/**
 * What a warm shell is sent once, before its first call: callDefinitions, then warmLoop.sh (job control, the exports'
 * signature with builtins, the loop that takes every call: it says how).
 */
export function warmPrelude(): string {
  return `${callDefinitions()}__sb_endlen=${endTagLength}\n${warmLoop}`;
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
  // The exports diff skips run markers (SB_CORE_*) and our own variables (a job token), so the shell's own
  // starting environment stands for the call's.
  const base =
    !snap || Object.keys(exports).every((k) => /^(SB_CORE_[A-Z_]*|__sb_.*)$/.test(k)) ? '$__sb_base0' : '$(export -p)';
  const assignments = [
    ...Object.entries(exports).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
    ...callValues(command, opts, { marker, done: early ? tags.done : '', snap, base }),
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
