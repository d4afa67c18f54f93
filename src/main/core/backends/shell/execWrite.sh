# shellcheck shell=sh disable=SC2154  # the __sb_* values are set by the line before it
# The last step of a file write made of shell commands (execFileOps.ts execWriteFile): run by `sh -c` on the target
# after a line that sets __sb_f (the destination), __sb_dir (its folder, made here when the base64 is on stdin),
# __sb_n (the write's nonce) and __sb_b64 (the file the base64 chunks were appended to; empty: the base64 is on
# stdin). Decodes into a temp file beside the destination (through a final symlink), gives it the original's mode and
# owner, flushes it and renames it over the destination; prints __SB_FILE__ok when it did. POSIX tools and
# `stat -c` (GNU and BusyBox); the mode and owner are kept where stat answers and chown may.
if [ -z "$__sb_b64" ]; then mkdir -p -- "$__sb_dir" || exit 1; fi
f=$__sb_f
[ -L "$f" ] && f=$(readlink -f -- "$f")
# A directory is refused by name: `mv` would put the temp file inside it.
[ -d "$f" ] && { echo 'Is a directory' >&2; exit 1; }
# The paths are absolute: their folder and name by expansion, not two more processes.
t="${f%/*}/.${f##*/}.sb-$__sb_n.tmp"
trap 'rm -f -- "$t"' EXIT
# noclobber: the temp file is new or the write fails (as SFTP's open with `wx`).
set -C
if [ -n "$__sb_b64" ]; then base64 -d < "$__sb_b64" > "$t" || exit 1; else base64 -d > "$t" || exit 1; fi
if [ -e "$f" ] && mo=$(stat -c "%a %u:%g" -- "$f" 2>/dev/null); then
  chmod "${mo% *}" "$t" || exit 1; chown "${mo#* }" "$t" 2>/dev/null
fi
{ sync -- "$t" 2>/dev/null || sync; }
mv -f -- "$t" "$f" || exit 1
echo __SB_FILE__ok
