# shellcheck shell=sh disable=SC2154  # __sb_prompt, __sb_envfile, __sb_shells and __sb_target: the line before it
# A pane's shell on an SSH host (remoteCommand.ts loginShellCommand), run by `sh -c` after enterDir.sh, the pane's
# exports and its staged file, and after a line that sets __sb_prompt (bash's PROMPT_COMMAND printing OSC 7),
# __sb_envfile (osc7Env.sh's text), __sb_shells (the shells that read ENV, between spaces) and __sb_target (the
# target's name). Its arguments are the target's shell words; with none it becomes the user's login shell. Either
# reports its cwd with OSC 7 before each prompt: bash through PROMPT_COMMAND, a shell that reads ENV through a file
# of osc7Env.sh (unless the environment names an ENV of its own). A shell the host lacks is one line that says so.
[ -n "${PROMPT_COMMAND:-}" ] || export PROMPT_COMMAND="$__sb_prompt"
if [ $# -eq 0 ]; then __sb_name=${SHELL##*/}; else __sb_name=${1##*/}; fi
case " $__sb_shells " in
  *" $__sb_name "*)
    if [ -z "${ENV:-}" ] && __sb_e=$(mktemp 2>/dev/null); then
      printf %s "$__sb_envfile" >"$__sb_e" && export ENV="$__sb_e"
    fi
    ;;
esac
[ $# -gt 0 ] || exec "${SHELL:-/bin/sh}" -l
# A leading ~/ is the remote home.
# shellcheck disable=SC2088  # the ~/ a target's spec holds, matched as written
case $1 in
  "~/"*) __sb_program=$HOME/${1#"~/"} ;;
  *) __sb_program=$1 ;;
esac
command -v "$__sb_program" >/dev/null 2>&1 || {
  printf 'shell %s not found on %s\n' "$1" "$__sb_target" >&2
  exit 127
}
shift
exec "$__sb_program" "$@"
