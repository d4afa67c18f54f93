# shellcheck shell=sh disable=SC2154  # __sb_d is set by the line before it
# Enters the folder __sb_d, or its nearest existing parent, or / (as wrapCommand does): the start of what a container
# runs without a warm shell (containerConfig.ts enterDirScript; dockerProvider.ts), after a line that sets __sb_d.
while [ ! -d "$__sb_d" ] && [ "$__sb_d" != / ]; do __sb_d=$(dirname -- "$__sb_d"); done
cd -- "$__sb_d" 2>/dev/null || cd /
unset __sb_d
