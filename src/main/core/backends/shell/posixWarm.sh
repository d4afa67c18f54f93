# shellcheck shell=sh disable=SC2154  # __sb_shelltag is set before it
# A POSIX-sh warm shell's own part (posixWarmCall.ts posixWarmPrelude), sent once before callSteps.sh and __sb_prog,
# with __sb_shelltag set. A call shares the shell's process group, so a `kill 0` (the `trap 'kill 0' EXIT` idiom)
# signals the shell too: while it runs a call it shrugs the usual signals off (a subshell starts with them at their
# defaults again) and waits on for its call (a caught signal interrupts `wait`); between calls they end it as before.
trap '[ -n "$__sb_busy" ] || exit 143' HUP INT QUIT TERM USR1 USR2 ALRM
# The shell says its pid once (on stderr): its calls' process group.
printf '%s %s\n' "$__sb_shelltag" "$$" >&2
__sb_pmax=32768; read -r __sb_pmax 2>/dev/null < /proc/sys/kernel/pid_max
# __sb_reap PIDTAG ENDTAG, right after a call's subshell was started with `&`: reports its pid on stderr, waits for
# it, then prints the end line (exit status, whether a group member lives on, the subshell's pid again). A member of
# the shell's process group other than the shell is found with builtins only (a zombie does not count): what a call
# started has a higher pid than its subshell, so only those stat files are read (`read` takes a byte per system call),
# unless the pids may have wrapped around since (the subshell's pid is in the top quarter of pid_max): then every one.
__sb_reap() {
  __sb_p=$!; __sb_te=$2; printf '%s %s\n' "$1" "$__sb_p" >&2
  while :; do wait "$__sb_p"; __sb_rc=$?; [ "$__sb_rc" = 127 ] && break; kill -0 "$__sb_p" 2>/dev/null || break; done
  __sb_busy=
  __sb_left=0; __sb_all=; [ "$__sb_p" -gt "$((__sb_pmax * 3 / 4))" ] && __sb_all=1
  for __sb_f in /proc/[0-9]*/stat; do __sb_q=${__sb_f#/proc/}; __sb_q=${__sb_q%/stat}
    [ "$__sb_q" -gt "$__sb_p" ] || [ -n "$__sb_all" ] || continue; [ "$__sb_q" = "$$" ] && continue
    IFS= read -r __sb_s 2>/dev/null < "$__sb_f" || continue; __sb_s=${__sb_s##*") "}
    # shellcheck disable=SC2086  # the stat line's fields
    set -- $__sb_s
    [ "$3" = "$$" ] && [ "$1" != Z ] && { __sb_left=1; break; }
  done
  printf '\n%s %s %s %s\n' "$__sb_te" "$__sb_rc" "$__sb_left" "$__sb_p"
}
