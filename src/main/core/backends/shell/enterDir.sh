# shellcheck shell=sh disable=SC2154  # __sb_d is set by the line before it
# Enters the folder __sb_d, or its nearest existing parent, or / (as callSteps.sh does), after a line that sets
# __sb_d: the start of what a container or an SSH host runs without a warm shell (docker/containerConfig.ts
# enterDirScript, ssh/remoteCommand.ts enterDir).
while [ ! -d "$__sb_d" ] && [ "$__sb_d" != / ]; do __sb_d=$(dirname -- "$__sb_d"); done
cd -- "$__sb_d" 2>/dev/null || cd /
unset __sb_d
