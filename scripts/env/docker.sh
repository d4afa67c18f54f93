#!/usr/bin/env bash
# Starts (up) or stops (down) a private dockerd with a busybox test image (and a python one when debootstrap works).
# Writes .test-env/docker.json {socket, image, pythonImage|null, pidFile}. Idempotent; needs root, docker.io, busybox-static.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
base="$root/.test-env/docker"
json="$root/.test-env/docker.json"
image=switchboard-test-busybox:latest
python_image=switchboard-test-python:latest
mkdir -p "$base"
# shellcheck source=lib/engine.sh
. "$root/scripts/env/lib/engine.sh"
# shellcheck source=lib/run.sh
. "$root/scripts/env/lib/run.sh"

# The socket and the exec root (where containerd puts its own sockets) go in the checkout's short private folder.
run="$(test_run_dir "$root")/docker"
sock="$run/docker.sock"
exec_root="$run/exec"
data_root="$base/data"
pid_file="$base/dockerd.pid"
log_file="$base/dockerd.log"

dk() { docker -H "unix://$sock" "$@"; }

running() {
  [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null && dk info >/dev/null 2>&1
}

down() {
  stop_service
  echo "dockerd stopped"
}

start_dockerd() {
  for bin in dockerd docker containerd runc; do
    command -v "$bin" >/dev/null || { echo "missing $bin: apt-get install -y docker.io" >&2; exit 1; }
  done
  make_test_run_dir "$root" >/dev/null
  mkdir -p "$run" "$exec_root" "$data_root"
  rm -f "$sock"
  # A pid file makes the next dockerd refuse to start: a stale one, or a dockerd of ours that does not answer here
  # (one started before the sockets moved to the short folder), which must not share the data root with a new one.
  stop_service
  setsid dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver=vfs \
    --data-root "$data_root" --exec-root "$exec_root" --pidfile "$pid_file" \
    -H "unix://$sock" >"$log_file" 2>&1 </dev/null 9>&- &
  for _ in $(seq 1 300); do
    if dk info >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "dockerd did not answer on $sock within 60s; last log lines:" >&2
  tail -20 "$log_file" >&2
  exit 1
}

build_busybox() {
  dk image inspect "$image" >/dev/null 2>&1 && return 0
  local tar
  tar=$(mktemp)
  busybox_rootfs_tar "$tar"
  dk import -c 'ENV PATH=/bin:/usr/bin:/sbin:/usr/sbin' "$tar" "$image" >/dev/null
  rm -f "$tar"
  echo "built $image"
}

# The Debian mirror this machine's apt already uses (deb822 sources or the classic list), so the image comes
# from the same place as every other package here.
apt_mirror() {
  local uri
  uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
  [ -n "$uri" ] || uri=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; exit } }' /etc/apt/sources.list 2>/dev/null | head -n 1)
  echo "$uri"
}

# Best effort: a Debian minbase with python3, for execute_code tests. Prints the image name or nothing.
build_python() {
  if dk image inspect "$python_image" >/dev/null 2>&1; then echo "$python_image"; return 0; fi
  local cache="$base/python-rootfs.tar"
  if [ ! -s "$cache" ]; then
    if ! command -v debootstrap >/dev/null; then
      (apt-get install -y debootstrap || { apt-get update && apt-get install -y debootstrap; }) >&2 || return 1
    fi
    local dir="$base/python-rootfs"
    rm -rf "$dir"
    local mirror suite
    mirror=$(apt_mirror)
    # shellcheck source=/dev/null  # the host's own file, not this repository's
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    [ -n "$mirror" ] || { echo "no Debian mirror in the apt sources" >&2; return 1; }
    debootstrap --variant=minbase --include=python3-minimal "$suite" "$dir" "$mirror" >&2 || { rm -rf "$dir"; return 1; }
    rm -rf "$dir/var/cache/apt/archives/"*.deb "$dir/var/lib/apt/lists/"*
    tar -C "$dir" --numeric-owner -cf "$cache.part" . && mv "$cache.part" "$cache"
    rm -rf "$dir"
  fi
  dk import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$cache" "$python_image" >&2 || return 1
  echo "$python_image"
}

up() {
  running || start_dockerd
  build_busybox
  local py
  if py=$(build_python); then
    py_json="\"$py\""
    echo "python image ready: $py"
  else
    py_json=null
    echo "python image not built (debootstrap failed); execute_code docker tests will skip" >&2
  fi
  printf '{"socket":"%s","image":"%s","pythonImage":%s,"pidFile":"%s"}\n' "$sock" "$image" "$py_json" "$pid_file" > "$json.part"
  mv "$json.part" "$json"
  cat "$json"
}

# Concurrent `up` runs (several test sessions) must not start two daemons on one data root.
exec 9>"$base/.lock"
flock 9
case "${1:-up}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
