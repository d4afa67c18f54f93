# shellcheck shell=sh disable=SC2154,SC2016,SC2025,SC2089,SC2090  # __sb_shell is set before it; PS1 is literal
# How a container's interactive pane starts (containerConfig.ts interactiveShellScript; dockerProvider.ts runs it
# after enterDir.sh), after a line that sets __sb_shell (the target's docker_shell, or empty): that shell, else bash
# where the image has it, else sh with a prompt that reports the cwd with OSC 7 (busybox ash and dash have no
# PROMPT_COMMAND, but expand `$(...)` in PS1 at every prompt, and no readline `\[...\]`), so the pane header follows
# `cd` as it does with bash.
[ -z "$__sb_shell" ] || exec "$__sb_shell"
if command -v bash >/dev/null 2>&1; then exec bash; fi
PS1='$(printf "\033]7;file://%s%s\007" "${HOSTNAME:-}" "$PWD")\w \$ '; export PS1
exec sh
