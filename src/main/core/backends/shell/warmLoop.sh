# shellcheck shell=bash disable=SC2154  # __sb_endlen is set before it
# A bash warm shell's own part (warmProgram.ts warmPrelude), sent once after callSteps.sh and __sb_prog, with
# __sb_endlen (the length of a call's end tag) set: job control, a builtins-only __sb_sig, the starting exports, and
# the loop that takes every call. Needs bash 4.4+ (`@Q`, `@a`).
# `set -m`: every `&` job gets a process group of its own. The call's subshell turns it off again, so what a command
# puts in the background stays in the call's group, as in a fresh `bash -c`.
set -m
# The exports' signature into __sb_s with builtins only: `${!X*}` lists the variables, `@a` their attributes, `@Q`
# quotes a value. Two equal signatures mean `export -p` would print the same set; comparing them costs no process.
__sb_sig() {
  __sb_s=
  for __sb_n in ${!A*} ${!B*} ${!C*} ${!D*} ${!E*} ${!F*} ${!G*} ${!H*} ${!I*} ${!J*} ${!K*} ${!L*} ${!M*} ${!N*} \
    ${!O*} ${!P*} ${!Q*} ${!R*} ${!S*} ${!T*} ${!U*} ${!V*} ${!W*} ${!X*} ${!Y*} ${!Z*} ${!a*} ${!b*} \
    ${!c*} ${!d*} ${!e*} ${!f*} ${!g*} ${!h*} ${!i*} ${!j*} ${!k*} ${!l*} ${!m*} ${!n*} ${!o*} ${!p*} \
    ${!q*} ${!r*} ${!s*} ${!t*} ${!u*} ${!v*} ${!w*} ${!x*} ${!y*} ${!z*} ${!_*}; do
    [[ ${!__sb_n@a} == *x* ]] && __sb_s+="$__sb_n=${!__sb_n@Q};"
  done
  return 0
}
__sb_base0=$(export -p)
# The loop, one compound command: bash has read all of it before the first subshell is forked, which then owns the
# stdin. Each call's subshell is forked before the call comes: it reads a ten-digit length and then that many bytes
# of parameters (printable ASCII: asciiParameters) with `read -N` (one read, where a script line is read a byte at a
# time), points its stdin at /dev/null and runs them. The shell reads nothing until that subshell has exited, so the
# parameters are the subshell's alone; then it reads the call's end tag that follows them and reports the end: exit
# status, 1 when something is still in the call's process group, the group. A subshell that finds the stdin closed
# exits, and so does the shell: that is how a retired shell ends. A subshell killed while it waited leaves the next
# call's parameters where the shell expects an end tag: the shell sees that it is not one and exits, never reading
# the rest as its own script. The subshell is forked at the top level of the loop's body, not in a function (a
# command's `return` or `local` would work there, FUNCNAME would be set) nor in a condition or an && / || list (its
# command would run with `set -e` ignored); the next one is forked once the end tag is read, before the end line is
# printed, so that the fork overlaps the answer's way to the client and back.
{
  ( set +m; IFS= read -r -N 10 __sb_n || exit 0; IFS= read -r -N "$((10#$__sb_n))" __sb_raw || exit 0
    exec </dev/null; printf -v __sb_call %b "$__sb_raw"; eval "$__sb_call" ) &
  while :; do
    __sb_p=$!; wait "$__sb_p"; __sb_rc=$?
    IFS= read -r -N "$__sb_endlen" __sb_end || exit
    [[ $__sb_end == __SB_WARM_END_*__ ]] || exit
    __sb_left=0; kill -0 -- -"$__sb_p" 2>/dev/null && __sb_left=1
    ( set +m; IFS= read -r -N 10 __sb_n || exit 0; IFS= read -r -N "$((10#$__sb_n))" __sb_raw || exit 0
      exec </dev/null; printf -v __sb_call %b "$__sb_raw"; eval "$__sb_call" ) &
    printf '\n%s %s %s %s\n' "$__sb_end" "$__sb_rc" "$__sb_left" "$__sb_p"
  done
}
