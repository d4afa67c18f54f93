# The exports diff (shellWrap.ts exportsDiff): run by a wrapped command's or a warm shell's EXIT trap, on the target,
# with POSIX awk, mawk or busybox. Reads the starting `export -p`, a line __sb_exports_now__, then the current one;
# prints the exports file. Variables (-v): header (the file's first line), divert (non-empty: credentials become
# `#secret NAME` lines), names (an ERE of withheld names, upper case), values (an ERE of credential-shaped values).
function secret(k, r,   i) {
  i = index(r, "=")
  return divert != "" && (toupper(k) ~ names || (i > 0 && substr(r, i + 1) ~ values))
}
function skip(k) { return k ~ /^(PWD|OLDPWD|SHLVL|_|__sb_.*|SSH_[A-Z_]*|SB_CORE_[A-Z_]*)$/ }
function keep() { if (name != "") { if (part) cur[name] = rec; else base[name] = rec }; name = "" }
function scan(s,   i, c, n) {
  n = length(s)
  for (i = 1; i <= n; i++) {
    c = substr(s, i, 1)
    if (q == 1) { if (c == "\047") q = 0 }
    else if (q == 3) { if (c == "\\") i++; else if (c == "\047") q = 0 }
    else if (q == 2) { if (c == "\\") i++; else if (c == "\"") q = 0 }
    else if (c == "\\") i++
    else if (c == "\047") q = 1
    else if (c == "\"") q = 2
    else if (c == "$" && substr(s, i + 1, 1) == "\047") { q = 3; i++ }
  }
}
q { rec = rec "\n" $0; scan($0); next }
$0 == "__sb_exports_now__" { keep(); part = 1; next }
{
  keep()
  if (!match($0, /^(export|declare -[A-Za-z]+) [A-Za-z_][A-Za-z0-9_]*/)) next
  name = substr($0, 1, RLENGTH); sub(/^.* /, "", name)
  rec = $0
  scan(substr($0, RLENGTH + 1))
}
END {
  keep()
  if (!part) exit 1
  print header
  for (k in cur) if (!skip(k) && (!(k in base) || base[k] != cur[k])) {
    if (secret(k, cur[k])) print "#secret " k; else print cur[k]
  }
  for (k in base) if (!skip(k) && !(k in cur)) { print "unset " k; if (secret(k, base[k])) print "#secret " k }
}
