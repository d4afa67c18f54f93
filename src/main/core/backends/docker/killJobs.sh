# shellcheck shell=sh disable=SC2154  # the __sb_* values are set by the line before it
# Ends a container's calls (containerConfig.ts killJobsScript; dockerJobs.ts runs it with the container's shell), after
# a line that sets __sb_pattern (an ERE of the `__sb_job=TOKEN` entries), __sb_sigs (the gentle signals' names),
# __sb_tenths (the grace, in tenths of a second) and __sb_group (a warm shell's process group, or empty). Every
# process with a token in its environment, and the group each leads, gets the gentle signals, then up to the grace
# to go, then KILL. All matches are collected before the first signal: killing a child first would wake its shell,
# which would run on. Exits 0.
# A warm shell's call: also the members of the shell's group but the shell, as they are at the first look only (the
# shell may take its next call while this still waits), and those still alive after.
g=
if [ -n "$__sb_group" ]; then
  # shellcheck disable=SC2086  # `set -- $s`: the stat line's fields
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$__sb_group" ] && continue
    IFS= read -r s 2>/dev/null < "$d/stat" || continue
    s=${s##*") "}; set -- $s; [ "$3" = "$__sb_group" ] && [ "$1" != Z ] && g="$g $p"
  done
fi
# Alive: not gone and not a zombie (one waiting to be reaped is no longer running anything).
alive() { IFS= read -r s 2>/dev/null < "/proc/$1/stat" || return 1; s=${s##*") "}; [ "${s%% *}" != Z ]; }
match() {
  m=; for p in $g; do alive "$p" && m="$m $p"; done; g=$m
  for d in /proc/[0-9]*; do p=${d#/proc/}; [ "$p" = "$$" ] && continue
    if tr '\0' '\n' < "$d/environ" 2>/dev/null | grep -qxE "$__sb_pattern"; then m="$m $p"; fi
  done
}
# Group signals first (they fail harmlessly for non-leaders), so a shell and its children go together.
hit() { for p in $m; do kill -"$1" -"$p" 2>/dev/null; done; for p in $m; do kill -"$1" "$p" 2>/dev/null; done; }
match; [ -z "$m" ] && exit 0
for sig in $__sb_sigs; do hit "$sig"; done
i=0; while [ $i -lt "$__sb_tenths" ]; do sleep 0.1; match; [ -z "$m" ] && exit 0; i=$((i+1)); done
hit KILL; exit 0
