# shellcheck shell=sh disable=SC2154  # __sbp_m, __sbp_max and __sbp_hooks are set by the lines that follow
# The target probe's functions (targetProbe.ts): run by the target's exec (POSIX sh: a host, a container, a sandbox),
# followed by the lines probeScript composes, which set __sbp_m (the marker), __sbp_max (the bytes read of a file:
# one more than the probe judges) and __sbp_hooks (the hooks read at most), then call the functions with the paths as
# arguments. Every name is the probe's own (__sbp_*): the session's variables stay as they were.

# __sbp_paths PATH...: every path's `realpath -m` in one process, or by hand (__sbp_r) where there is none. Printed
# only when realpath took every path: busybox's takes `-m` for a path, prints the paths it can and fails, and its
# lines followed by the fallback's would pair paths with the wrong answers.
__sbp_paths() {
  printf '%s R\n' "$__sbp_m"
  if __sbp_o=$(command -p realpath -m -- "$@" 2>/dev/null) || __sbp_o=$(realpath -m -- "$@" 2>/dev/null); then
    printf '%s\n' "$__sbp_o"
  else for __sbp_x in "$@"; do __sbp_r "$__sbp_x"; done; fi
}

# __sbp_r PATH: `realpath -m` by hand: follow links from the left, and append what does not exist yet as written.
__sbp_r() {
  __sbp_p=$1; __sbp_rest=; __sbp_n=0
  while [ $__sbp_n -lt 64 ]; do __sbp_n=$((__sbp_n+1))
    if [ -L "$__sbp_p" ]; then __sbp_t=$(readlink -- "$__sbp_p"); case $__sbp_t in /*) __sbp_p=$__sbp_t;;
      *) __sbp_p=$(dirname -- "$__sbp_p")/$__sbp_t;; esac
    elif [ -e "$__sbp_p" ]; then __sbp_p=$(readlink -f -- "$__sbp_p" 2>/dev/null || printf '%s' "$__sbp_p"); break
    elif [ "$__sbp_p" = / ] || [ -z "$__sbp_p" ]; then break
    else __sbp_rest=/$(basename -- "$__sbp_p")$__sbp_rest; __sbp_p=$(dirname -- "$__sbp_p"); fi
  done
  __sbp_o="${__sbp_p%/}$__sbp_rest"; printf '%s\n' "${__sbp_o:-/}"
}

# __sbp_f PATH: one file's fact after its marker: missing, not a file, or its first __sbp_max bytes (all of them: too
# large). One process per file (head), none for the tests.
__sbp_f() {
  if [ ! -e "$1" ]; then echo missing
  elif [ -d "$1" ]; then echo directory
  elif [ ! -f "$1" ]; then echo special
  elif [ ! -r "$1" ]; then echo unreadable
  else echo text; command -p head -c "$__sbp_max" -- "$1" 2>/dev/null || head -c "$__sbp_max" -- "$1"
    printf '\n%s .\n' "$__sbp_m"
  fi
}

# __sbp_file INDEX PATH: the F section of the INDEXth file asked.
__sbp_file() { printf '%s F %s ' "$__sbp_m" "$1"; __sbp_f "$2"; }

# __sbp_git INDEX HOOKS DIR: the G section of the INDEXth git directory: its effective config (`git config -l -z`)
# and, when HOOKS is 1, the executable hooks of `git rev-parse --git-path hooks` (which honours core.hooksPath).
__sbp_git() {
  printf '%s G %s\n' "$__sbp_m" "$1"
  if ! command -v git >/dev/null 2>&1; then echo nogit; elif cd -- "$3" 2>/dev/null; then
    if [ "$2" = 1 ]; then
      __sbp_h=$(git rev-parse --git-path hooks 2>/dev/null)
      case $__sbp_h in ''|/*) ;; *) __sbp_h="$PWD/$__sbp_h";; esac
      echo "hooks $__sbp_h"
    else echo nohooks; fi
    printf '%s C\n' "$__sbp_m"; git config -l -z 2>/dev/null; printf '\n'
    if [ "$2" = 1 ] && [ -n "$__sbp_h" ]; then __sbp_n=0; for __sbp_x in "$__sbp_h"/*; do
      case $__sbp_x in *.sample) continue;; esac; { [ -f "$__sbp_x" ] && [ -x "$__sbp_x" ]; } || continue
      __sbp_n=$((__sbp_n+1)); [ $__sbp_n -gt "$__sbp_hooks" ] && break
      printf '%s H %s ' "$__sbp_m" "${__sbp_x##*/}"; __sbp_f "$__sbp_x"; done; fi
  else echo nodir; fi
}

# __sbp_tree INDEX PATH: what a recursive delete of PATH would reach: missing, or a directory or a file (a link
# counts as a file) and whether git tracks it or a file in it (`ls-files`) and whether .gitignore ignores it
# (`check-ignore`); both asked from its parent directory, in a subshell, with fsmonitor off, so the look starts no
# program a repository's config names.
__sbp_g() { git --no-pager -c core.fsmonitor=false "$@"; }
__sbp_tree() {
  printf '%s T %s ' "$__sbp_m" "$1"
  if [ -d "$2" ] && [ ! -L "$2" ]; then __sbp_d=dir; elif [ -e "$2" ] || [ -L "$2" ]; then __sbp_d='file'
  else echo missing; return; fi
  __sbp_p=$(dirname -- "$2"); __sbp_b=$(basename -- "$2")
  __sbp_k=$( (cd -- "$__sbp_p" && __sbp_g ls-files -- "$__sbp_b" 2>/dev/null | head -n 1) )
  if (cd -- "$__sbp_p" && __sbp_g check-ignore -q -- "$__sbp_b") 2>/dev/null
  then __sbp_i=ignored; else __sbp_i=kept; fi
  echo "$__sbp_d ${__sbp_k:+tracked} $__sbp_i"
}
