# shellcheck shell=sh disable=SC2016,SC2025
# The ENV file of a pane's sh, dash, ash or ksh (osc7Env.ts): written by local/pty.ts and ssh/remoteCommand.ts, read
# by the shell once interactive. PS1's `$(...)` expands at every prompt, not here (SC2016); these shells have no
# readline `\[...\]` (SC2025): they would print it.
PS1='$(printf "\033]7;file://%s%s\007" "${HOSTNAME:-}" "$PWD")'"$PS1"
rm -f -- "$ENV"; unset ENV
