# shellcheck shell=sh disable=SC2154  # the call's values (__sb_cwd, __sb_env ...) are set before callProgram.sh runs
# The steps of a wrapped command (shellWrap.ts): defined by its script for `sh -c`, or once by a warm shell for all
# its calls (warmProgram.ts, posixWarmCall.ts), then used by callProgram.sh. POSIX sh: bash, dash, busybox ash.
# __sb_sig: the exports' snapshot into __sb_s. Here a fork; a bash warm shell redefines it with builtins
# (warmShell.sh).
__sb_sig() { __sb_s=$(export -p); return 0; }
# __sb_enter: enters the cwd (or, saying so, its nearest parent; a `__sb_must` one that is missing ends the call with
# the missing-cwd marker line) and takes the exports' snapshot when they are to be compared.
__sb_enter() {
  __sb_d=$__sb_cwd
  if [ -n "$__sb_must" ] && [ ! -d "$__sb_d" ]; then printf "\n%s%s\n" "$__sb_mark" ":missing-cwd"; exit 2; fi
  while [ ! -d "$__sb_d" ] && [ "$__sb_d" != / ]; do __sb_d=$(dirname -- "$__sb_d"); done
  cd -- "$__sb_d" 2>/dev/null || cd /
  [ "$__sb_d" = "$__sb_cwd" ] || printf "[the cwd %s no longer exists; running in %s]\n" "$__sb_cwd" "$(pwd)"
  if [ -n "$__sb_env" ] && [ -n "$__sb_snap" ]; then __sb_sig; __sb_old=$__sb_s; fi
}
# __sb_exit MARKER DONE: the EXIT trap's work (its exit status in __sb_ec). First it drops the functions a command may
# have defined under the names of the commands it runs (an `rm` that moves to the trash, RVM's `cd`, a `printf` of its
# own: one that printed nothing made the exports diff read every variable as unset). Then, when the exports changed,
# it writes the exports file (exportsDiff.awk) through a temp file and a rename, only when the result differs (a
# concurrent call that changed nothing cannot undo another's export), and reports the exports that look like
# credentials as `<marker>:secret NAME HEX` frames (`-`: unset) when __sb_keep asks. Then the marker line with the
# physical cwd (`cd -P .` makes $PWD that without a process; where $PWD is not a directory, `pwd -P`, or the path as
# it was), and the done line when the command ran to its end; both in one write: one packet over SSH.
__sb_exit() {
  unset -f printf export command awk mkdir cmp mv rm sed od tr pwd cd umask eval test [ 2>/dev/null
  # shellcheck disable=SC2013  # a `#secret` line holds one name, a word
  [ -z "$__sb_env" ] || [ -z "$__sb_snap" ] || { __sb_sig; [ "$__sb_s" = "$__sb_old" ] || (umask 077
    mkdir -p "${__sb_env%/*}" && { printf "%s\n__sb_exports_now__\n" "$__sb_base"; export -p; } |
      awk -v divert="${__sb_keep-}" -v header="$__sb_hdr" -v names="$__sb_nre" -v values="$__sb_vre" "$__sb_awk" \
        > "$__sb_env.$$" &&
      { [ -z "${__sb_keep-}" ] || for __sb_n in $(sed -n "s/^#secret //p" "$__sb_env.$$"); do
          eval "__sb_s=\${$__sb_n+1}"
          if [ -n "$__sb_s" ]; then eval "__sb_v=\$$__sb_n"; printf "\n%s:secret %s %s\n" "$__sb_mark" "$__sb_n" \
            "$(printf %s "$__sb_v" | od -An -v -tx1 | tr -d " \n")"
          else printf "\n%s:secret %s -\n" "$__sb_mark" "$__sb_n"; fi
        done; } &&
      { cmp -s "$__sb_env.$$" "$__sb_env" || mv -f "$__sb_env.$$" "$__sb_env"; }
    rm -f "$__sb_env.$$") 2>/dev/null; }
  if [ -d "$PWD" ] && command cd -P . 2>/dev/null; then __sb_w=$PWD
  else __sb_w=$(pwd -P 2>/dev/null); [ -n "$__sb_w" ] || __sb_w=$PWD; fi
  if [ -n "$__sb_fin" ] && [ -n "$2" ]; then printf "\n%s%s\n%s %s\n" "$1" "$__sb_w" "$2" "$__sb_fin"
  else printf "\n%s%s\n" "$1" "$__sb_w"; fi
  exit "$__sb_ec"
}
