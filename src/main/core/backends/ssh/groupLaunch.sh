# shellcheck shell=sh disable=SC2154,SC2086  # __sb_boot is set by the line before it; `set -- $__sb_st` splits
# Starts a command's shell on an SSH host as the leader of its own process group (remoteCommand.ts groupCommand),
# after a line that sets __sb_boot: that shell's script, which prints the group line and runs the command. OpenSSH
# and dropbear already make each session's shell a session leader: then `exec` keeps the pid and `$$` is the group
# id. Elsewhere `setsid -w` makes a new group (it reports a signal death as a plain status, hence only as the
# fallback); its own complaint about a killed child goes to /dev/null, the group keeps the real stderr as fd 3.
# Field 5 of /proc/PID/stat is the process group (sh's own comm has no spaces to shift it).
__sb_pg=; if [ -r /proc/$$/stat ]; then read -r __sb_st < /proc/$$/stat; set -- $__sb_st; __sb_pg=$5; fi
if [ "$__sb_pg" = "$$" ] || ! command -v setsid >/dev/null 2>&1; then exec sh -c "$__sb_boot" 3>&2; fi
exec setsid -w sh -c "$__sb_boot" 3>&2 2>/dev/null
