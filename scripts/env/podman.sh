#!/usr/bin/env bash
# Starts (up) or stops (down) a private Podman API service (Podman's Docker-compatible API) with the busybox test
# image (and the python one when scripts/env/docker.sh built its rootfs). Writes .test-env/podman.json in the shape
# of docker.json {socket, image, pythonImage|null, pidFile}, so the Docker backend's suites run against it too.
# Idempotent; needs root, podman, busybox-static.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
base="$root/.test-env/podman"
json="$root/.test-env/podman.json"
image=switchboard-test-busybox:latest
python_image=switchboard-test-python:latest
mkdir -p "$base"
# shellcheck source=lib/engine.sh
. "$root/scripts/env/lib/engine.sh"
# shellcheck source=lib/run.sh
. "$root/scripts/env/lib/run.sh"

# The socket and the run root (Podman refuses one over 50 characters) go in the checkout's short private folder.
run="$(test_run_dir "$root")/podman"
sock="$run/podman.sock"
pid_file="$base/service.pid"
log_file="$base/service.log"
conf="$base/containers.conf"

# Podman's own storage and state, apart from any system podman: vfs (no overlay in nested containers), the
# cgroupfs manager (no systemd here), file events, and no default ulimits (this machine's hard open-files limit is
# below podman's default, and every container start fails on it).
pm() { CONTAINERS_CONF="$conf" podman --root "$base/storage" --runroot "$run/state" --storage-driver vfs "$@"; }
api() { curl -sf --unix-socket "$sock" "http://d/v1.41/$1"; }

running() {
  [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null && api _ping >/dev/null 2>&1
}

down() {
  stop_service
  # Containers the tests left behind: their conmon processes outlive the service.
  if [ -f "$conf" ] && [ -d "$run/state" ]; then pm rm -af -t 0 >/dev/null 2>&1 || true; fi
  # Exec sessions' monitors linger (--exit-delay) after their containers are gone.
  pkill -KILL -f "conmon .*$base/" 2>/dev/null || true
  echo "podman service stopped"
}

start_service() {
  for bin in podman curl; do
    command -v "$bin" >/dev/null || { echo "missing $bin: apt-get install -y podman curl" >&2; exit 1; }
  done
  make_test_run_dir "$root" >/dev/null
  mkdir -p "$run"
  printf '[containers]\ndefault_ulimits = []\n\n[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' > "$conf"
  rm -f "$sock"
  # A service of ours that does not answer here (one started before the sockets moved to the short folder).
  stop_service
  # Podman's database remembers the run root its storage was made with: storage made under another one (before the
  # sockets moved to the short folder, or a checkout moved) is the tests' own, and is made again.
  if [ -d "$base/storage" ] && [ "$(cat "$base/runroot" 2>/dev/null)" != "$run/state" ]; then
    pkill -KILL -f "conmon .*$base/" 2>/dev/null || true
    # Its containers' /dev/shm mounts outlive them.
    awk -v s="$base/storage/" 'index($2, s) == 1 { print $2 }' /proc/mounts | sort -r | xargs -r umount -l
    rm -rf "$base/storage"
  fi
  echo "$run/state" > "$base/runroot"
  # shellcheck disable=SC2016  # $$ is the inner bash's pid, expanded there
  setsid bash -c 'echo $$ > "$1"; shift; exec "$@"' _ "$pid_file" \
    env CONTAINERS_CONF="$conf" podman --root "$base/storage" --runroot "$run/state" --storage-driver vfs \
    system service --time=0 "unix://$sock" >"$log_file" 2>&1 </dev/null 9>&- &
  for _ in $(seq 1 300); do
    if api _ping >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "podman did not answer on $sock within 60s; last log lines:" >&2
  tail -20 "$log_file" >&2
  exit 1
}

import_image() { # name tarball
  pm image exists "$1" && return 0
  pm import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$2" "$1" >/dev/null
  echo "imported $1"
}

build_busybox() {
  pm image exists "$image" && return 0
  local tar
  tar=$(mktemp)
  busybox_rootfs_tar "$tar"
  import_image "$image" "$tar"
  rm -f "$tar"
}

up() {
  running || start_service
  build_busybox
  # The Debian rootfs scripts/env/docker.sh debootstrapped (it runs first); without it, python tests skip here too.
  local py_json=null cache="$root/.test-env/docker/python-rootfs.tar"
  if [ -s "$cache" ] && import_image "$python_image" "$cache"; then py_json="\"$python_image\""; fi
  printf '{"socket":"%s","image":"%s","pythonImage":%s,"pidFile":"%s"}\n' "$sock" "$image" "$py_json" "$pid_file" > "$json.part"
  mv "$json.part" "$json"
  cat "$json"
}

exec 9>"$base/.lock"
flock 9
case "${1:-up}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
