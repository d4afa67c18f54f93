// Shell integration for shells without PROMPT_COMMAND (sh, dash, ash, ksh): an ENV file whose prompt says the cwd.

/**
 * The text of an ENV file, which such a shell reads once it is interactive, after its profiles set PS1. It puts an
 * OSC 7 (file://host/cwd) at the front of the prompt (these shells expand `$(…)` in PS1 at every prompt), so the
 * pane's header follows `cd` as bash's PROMPT_COMMAND makes it; then it deletes itself.
 */
export const osc7EnvFile =
  `PS1='$(printf "\\033]7;file://%s%s\\007" "\${HOSTNAME:-}" "$PWD")'"$PS1"\n` + 'rm -f -- "$ENV"; unset ENV\n';

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
