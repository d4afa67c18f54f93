// Shell integration for shells without PROMPT_COMMAND (sh, dash, ash, ksh): an ENV file whose prompt says the cwd.
import program from './osc7Env.sh';

/**
 * The text of an ENV file, which such a shell reads once it is interactive, after its profiles set PS1. It puts an
 * OSC 7 (file://host/cwd) at the front of the prompt (these shells expand `$(…)` in PS1 at every prompt), so the
 * pane's header follows `cd` as bash's PROMPT_COMMAND makes it; then it deletes itself. The program is osc7Env.sh.
 */
export const osc7EnvFile = program;

/**
 * The shells that read ENV once interactive and have no PROMPT_COMMAND: only they get the ENV file (any other would
 * leave it behind; bash named sh reads it too, and deletes it).
 */
export const envReadingShells: readonly string[] = [
  'sh',
  'dash',
  'ash',
  'busybox',
  'ksh',
  'ksh93',
  'mksh',
  'pdksh',
  'yash',
  'posh',
];
