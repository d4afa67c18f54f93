# shellcheck shell=sh disable=SC2154,SC2088  # the __sb_* values are set by the line before it; `~` is literal
# The SSH sandbox's probe (remoteSandbox.ts): run once per connection by the remote account's shell, after a line
# that sets __sb_state (its Switchboard folder under the home), __sb_seccomp_x86_64 and __sb_seccomp_aarch64 (the
# seccomp programs, base64), __sb_paths (the paths to look at, a line each, `~/` in the home), __sb_tools (the deny
# table's tools, by spaces), __sb_rows (a repository's deny-table rows, a line each) and __sb_roots (the writable
# roots, a line each). Its lines: `home`, `arch`, `bwrap ok` or `bwrap no WHY`, `p DIR` (PATH), `e d|f PATH`,
# `r WORKTREE`, `m GITDIR`, `t TOOL`.
__sb_nl='
'
__sb_s="$HOME/$__sb_state"; umask 077; mkdir -p "$__sb_s" && chmod 700 "$__sb_s" || exit 1
printf 'home %s\n' "$HOME"; __sb_a=$(uname -m); printf 'arch %s\n' "$__sb_a"
case $__sb_a in
  x86_64) __sb_prog=$__sb_seccomp_x86_64 ;; aarch64) __sb_prog=$__sb_seccomp_aarch64 ;; *) __sb_prog= ;;
esac
__sb_f="$__sb_s/seccomp-$__sb_a.bpf"
# shellcheck disable=SC2015  # an empty program writes nothing; a failed write leaves no filter, which bwrap then says
[ -z "$__sb_prog" ] || printf %s "$__sb_prog" | base64 -d > "$__sb_f.$$" && mv -f "$__sb_f.$$" "$__sb_f"
if ! command -v bwrap >/dev/null 2>&1; then echo "bwrap no bubblewrap (bwrap) is not installed on the host"
elif [ -z "$__sb_prog" ]; then printf "bwrap no no seccomp filter for %s\n" "$__sb_a"
else __sb_e=$(bwrap --ro-bind / / --dev /dev --unshare-user --disable-userns --unshare-pid --proc /proc \
    --ro-bind /proc/sys /proc/sys --unshare-ipc --unshare-uts --unshare-net --cap-drop ALL --die-with-parent \
    --new-session --seccomp 9 -- true 9<"$__sb_f" 2>&1) && echo "bwrap ok" ||
  printf "bwrap no bubblewrap cannot create its namespaces on the host: %s\n" "$(printf %s "$__sb_e" | head -1)"
fi
IFS=:; for __sb_d in $PATH; do case $__sb_d in /*) printf "p %s\n" "$__sb_d" ;; esac; done; unset IFS
__sb_kind() {
  if [ -d "$__sb_p" ]; then printf "e d %s\n" "$__sb_p"
  elif [ -e "$__sb_p" ]; then printf "e f %s\n" "$__sb_p"; fi
}
while IFS= read -r __sb_p; do case $__sb_p in "~/"*) __sb_p="$HOME/${__sb_p#"~/"}" ;; "~") __sb_p=$HOME ;; esac
  __sb_kind
done <<__SB_PATHS__
$__sb_paths
__SB_PATHS__
# shellcheck disable=SC2086  # the tools are words
for __sb_t in $__sb_tools; do command -v "$__sb_t" >/dev/null 2>&1 && printf "t %s\n" "$__sb_t"; done
# Repositories under the writable roots, as the local walk finds them: hidden and dependency folders skipped.
set -f; IFS=$__sb_nl
for __sb_r in $__sb_roots; do
  case $__sb_r in "~/"*) __sb_r="$HOME/${__sb_r#"~/"}" ;; "~") __sb_r=$HOME ;; esac
  [ -d "$__sb_r" ] || continue; find "$__sb_r" -maxdepth 5 -mindepth 1 \( -type d \( -name node_modules -o \
    -name vendor -o -name target -o -name dist -o -name build -o -name venv -o -name .venv -o -name __pycache__ -o \
    \( -name '.*' ! -name .git \) \) \) -prune -o -type d -name .git -print 2>/dev/null | head -200
  [ -d "$__sb_r/.git" ] && printf "%s/.git\n" "$__sb_r"
done | while IFS= read -r __sb_g; do __sb_w=${__sb_g%/.git}; printf "r %s\n" "$__sb_w"
  for __sb_n in $__sb_rows .git; do __sb_p="$__sb_w/$__sb_n"
    __sb_kind
  done
  [ -d "$__sb_g/modules" ] && find "$__sb_g/modules" -maxdepth 5 -name config -type f 2>/dev/null |
    while IFS= read -r __sb_c; do __sb_m=${__sb_c%/config}; [ -e "$__sb_m/HEAD" ] || continue
      printf "m %s\ne f %s\n" "$__sb_m" "$__sb_c"
      [ -d "$__sb_m/hooks" ] && printf "e d %s/hooks\n" "$__sb_m"; done
done
exit 0
