# shellcheck shell=sh disable=SC2154  # __sb_g, __sb_sigs and __sb_tenths are set by the line before it
# Ends a process group gently where the Core cannot signal it itself (endGently.ts endGroupScript; an SSH host runs
# it), after a line that sets __sb_g (the group), __sb_sigs (the gentle signals' names) and __sb_tenths (the grace,
# in tenths of a second): the gentle signals, a wait of up to the grace while any of the group lives, then KILL.
# (`kill -SIG -PGID`: dash rejects `--`.) Exits 0.
kill -0 -"$__sb_g" 2>/dev/null || exit 0
for __sb_sig in $__sb_sigs; do kill -"$__sb_sig" -"$__sb_g" 2>/dev/null; done
# "Lives" leaves zombies out where `ps -o pgid= -o stat=` says which they are (Z); without ps, kill -0 is all there is.
__sb_live() {
  kill -0 -"$__sb_g" 2>/dev/null || return 1
  __sb_ps=$(ps -e -o pgid= -o stat= 2>/dev/null) || return 0
  printf '%s\n' "$__sb_ps" | grep -Eq "^ *$__sb_g +[^Z]"
}
# The grace is timed by /proc/uptime (hundredths; `1xx - 100` keeps a leading 0 from reading as octal) where there
# is one, else by counting tenths: a slow `ps` must not stretch it.
__sb_now() { read -r __sb_u __sb_x 2>/dev/null < /proc/uptime && echo $((${__sb_u%.*} * 100 + 1${__sb_u#*.} - 100)); }
__sb_t0=$(__sb_now); i=0
while __sb_live; do
  if [ -n "$__sb_t0" ]; then [ $(($(__sb_now) - __sb_t0)) -ge $((__sb_tenths * 10)) ] && break
  else [ $i -ge "$__sb_tenths" ] && break; fi
  sleep 0.1; i=$((i+1))
done
kill -KILL -"$__sb_g" 2>/dev/null; exit 0
