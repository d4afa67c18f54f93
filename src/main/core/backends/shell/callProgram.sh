# shellcheck shell=sh disable=SC2154,SC3045  # the values are set before it; dash, bash and busybox have `test -O`
# One wrapped command (shellWrap.ts wrapCommand runs it as the script's end; a warm shell holds it in __sb_prog and
# each call's subshell evals it), after the call's values: __sb_mark, __sb_done, __sb_cwd, __sb_must, __sb_env,
# __sb_keep, __sb_snap, __sb_base (the starting exports) and __sb_cmd. The steps are callSteps.sh's. The exports file
# is loaded here, not in a function: bash's `declare -x` lines in it would declare locals there. The EXIT trap is set
# in double quotes so the marker is fixed when it is set (a command that reuses __sb_mark or __sb_done cannot lose
# them; both are hex or empty). It first turns off what a command may have turned on and the trap's own work must not
# meet: `set -x` (it would trace the trap into the output), `set -u` and `set -e`.
# The subshell's own positional parameters: none, as in a fresh `sh -c`.
set --
exec 2>&1
# shellcheck disable=SC1090  # the identity's exports file, its path a value
if [ -n "$__sb_env" ] && [ -f "$__sb_env" ] && [ -O "$__sb_env" ]; then IFS= read -r __sb_h < "$__sb_env"
  if [ "$__sb_h" = "$__sb_hdr" ]; then . "$__sb_env" >/dev/null 2>&1; else rm -f "$__sb_env"; fi; fi
__sb_enter
# shellcheck disable=SC2064  # the marker and done tag expand now, on purpose (above)
trap "{ __sb_ec=\$?; set +eux; } 2>/dev/null; __sb_exit '$__sb_mark' '$__sb_done'" EXIT
# __sb_fin is set only when the command ran to its end: the EXIT trap of a subshell that a signal ends sees `$?` as it
# was before, so only then is the status certain before the shell has reaped the subshell.
eval "$__sb_cmd"
{ __sb_fin=$?; set +x; } 2>/dev/null
exit $__sb_fin
