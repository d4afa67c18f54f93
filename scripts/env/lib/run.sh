# shellcheck shell=bash
# The short private folder for a checkout's test sockets and run roots (sourced, not run). A unix socket path may
# hold 107 bytes and Podman's run root 50 characters, so neither can sit below a checkout at any path; they live in
# /tmp/sb-env-<hash of the checkout path>, mode 0700, and .test-env keeps everything else (storage, logs, JSON).
# The name is fixed per checkout so that `up` and `down`, run apart, find the same folder.

# The folder for the checkout at $1 (printed, not created).
test_run_dir() {
  printf '/tmp/sb-env-%s' "$(printf '%s' "$1" | sha256sum | cut -c1-12)"
}

# Creates the folder for the checkout at $1 and prints it. /tmp is everyone's, so a folder someone else made first
# (or a symlink) is refused rather than used: the services' sockets must not be reachable through it.
make_test_run_dir() {
  local dir
  dir=$(test_run_dir "$1")
  mkdir -m 700 "$dir" 2>/dev/null || true
  if [ -L "$dir" ] || [ ! -d "$dir" ] || [ "$(stat -c '%u %a' "$dir")" != "$(id -u) 700" ]; then
    echo "test-env: $dir is not a folder of mode 700 owned by $(id -un); remove it and run again" >&2
    return 1
  fi
  echo "$dir"
}

# Removes the folder for the checkout at $1, once its services are stopped (mounts a daemon left below it first).
remove_test_run_dir() {
  local dir
  dir=$(test_run_dir "$1")
  [ -d "$dir" ] && [ ! -L "$dir" ] || return 0
  awk -v p="$dir/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  rm -rf --one-file-system "$dir"
}
