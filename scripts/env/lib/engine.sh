# shellcheck shell=bash disable=SC2154  # json and pid_file are the caller's (see below)
# Shared by scripts/env/docker.sh and scripts/env/podman.sh (sourced, not run): the busybox test image's rootfs and
# stopping a service by its pid file. Callers set: base (the service's folder under .test-env), pid_file, json.

# A tarball of a busybox rootfs (static busybox, an applet link each, root and nobody) at $1.
busybox_rootfs_tar() {
  [ -x /bin/busybox ] || { echo "missing /bin/busybox: apt-get install -y busybox-static" >&2; exit 1; }
  # A dynamically linked busybox would not run in an image without libc.
  if ldd /bin/busybox >/dev/null 2>&1; then echo "/bin/busybox is not static: apt-get install -y busybox-static" >&2; exit 1; fi
  local tmp
  tmp=$(mktemp -d)
  mkdir -p "$tmp/rootfs/bin" "$tmp/rootfs/tmp" "$tmp/rootfs/root" "$tmp/rootfs/etc"
  chmod 1777 "$tmp/rootfs/tmp"
  chmod 700 "$tmp/rootfs/root"
  cp /bin/busybox "$tmp/rootfs/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] && continue
    ln -sf busybox "$tmp/rootfs/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$tmp/rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' > "$tmp/rootfs/etc/group"
  tar -C "$tmp/rootfs" -cf "$1" .
  rm -rf "$tmp"
}

# Stops the service whose pid is in $pid_file (TERM, then KILL after 10 s) and withdraws its $json.
stop_service() {
  rm -f "$json"
  [ -f "$pid_file" ] || return 0
  local pid
  pid=$(cat "$pid_file")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" || true; fi
  fi
  rm -f "$pid_file"
}
