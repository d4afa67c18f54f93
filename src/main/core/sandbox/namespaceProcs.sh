# shellcheck shell=sh disable=SC2154,SC2016  # __sb_ns and __sb_pg are set by the line before it; awk's $ are awk's
# A sandboxed SSH shell's PID namespace, seen from its host (remoteSandbox.ts namespaceGroupScript and
# namespaceKillScript; sshProvider.ts runs them there). After a line that sets __sb_ns (`pid:[N]`, as a shell inside
# said of itself) and __sb_pg: given a process group as the namespace numbers it (`NSpgid:`'s last field), it prints
# the host's id of that group (nothing when the group is gone); given none, it sends KILL to every process in the
# namespace. One awk over every /proc/PID/status, not a process per /proc entry: that took seconds on a busy host.
if [ -n "$__sb_pg" ]; then __sb_pick='/^Pid:/ { pid = $2 } /^NSpgid:/ && NF > 2 && $NF == pg { print pid, $2 }'
else __sb_pick='/^Pid:/ { pid = $2 } /^NSpid:/ && NF > 2 { print pid }'; fi
cat /proc/[0-9]*/status 2>/dev/null | awk -v pg="$__sb_pg" "$__sb_pick" | while read -r __sb_p __sb_h; do
  [ "$(readlink "/proc/$__sb_p/ns/pid" 2>/dev/null)" = "$__sb_ns" ] || continue
  if [ -n "$__sb_pg" ]; then echo "$__sb_h"; exit 0; fi
  kill -KILL "$__sb_p" 2>/dev/null
done
exit 0
