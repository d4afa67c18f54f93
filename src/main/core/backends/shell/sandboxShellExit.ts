// How a shell that is a sandbox's main process ends: local and SSH sandboxes alike.
import program from './sandboxShellExit.sh';

/**
 * What a sandboxed warm shell runs when it ends (its stdin closed, or the gentle signals of an end): it waits while
 * something a call left running (`cmd &`) lives on in its sandbox, as an unsandboxed shell's leftovers live on, since
 * the sandbox's PID namespace, and all in it, ends with the shell. It waits deaf to a second gentle signal: an end
 * sends HUP and TERM to everything at once, and the shell dying at the TERM would cut short the traps of the others
 * (the end's SIGKILL still comes after the grace). /proc inside lists the sandbox's processes only: bwrap's init and
 * the shell. The program is sandboxShellExit.sh.
 */
export const SANDBOX_SHELL_EXIT = program;
