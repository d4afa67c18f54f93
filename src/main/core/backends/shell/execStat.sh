# shellcheck shell=sh disable=SC2154  # __sb_p and __sb_max are set by the line before it
# What a path is, and a file's bytes (execFileOps.ts execStat, execReadFile): run by `sh -c` on a target that has exec
# but no file operations, after a line that sets __sb_p (the path) and __sb_max (empty: only what it is). Prints
# `__SB_FILE__<kind> <size>` (d, f, o for other, m for missing); then, for a file of at most __sb_max bytes, its
# bytes as base64. head's failure goes to stderr (merged) beside its reason, where base64's status alone would hide it.
if [ -d "$__sb_p" ]; then echo __SB_FILE__d 0
elif [ -f "$__sb_p" ]; then __sb_s=$(wc -c < "$__sb_p" 2>/dev/null | tr -d ' '); echo __SB_FILE__f "${__sb_s:-0}"
  if [ -n "$__sb_max" ] && [ "${__sb_s:-0}" -le "$__sb_max" ]; then
    { head -c "$__sb_max" -- "$__sb_p" || echo __SB_FAIL__ >&2; } | base64
  fi
elif [ -e "$__sb_p" ]; then echo __SB_FILE__o 0; else echo __SB_FILE__m 0; fi
