#!/usr/bin/env bash
# Makes this machine look like a fresh one to the test suite: removes what earlier runs left behind, so that no
# test can pass by reading a leftover. `.ci/run` calls it before `npm test`. Run it by hand only when no other
# checkout's tests are running: it stops their test services and removes the shared test user.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
user=sbtest
removed=()

# Test services an earlier run left running (its private dockerd and Podman service, its loopback sshds, the
# conmon monitors of Podman containers).
for p in $(pgrep -f 'dockerd .*--data-root [^ ]*/\.test-env/docker/data' 2>/dev/null) \
         $(pgrep -f 'sshd -f [^ ]*/\.test-env/ssh/sshd_' 2>/dev/null) \
         $(pgrep -f 'podman --root [^ ]*/\.test-env/podman/storage' 2>/dev/null) \
         $(pgrep -f 'conmon .*/\.test-env/podman/' 2>/dev/null); do
  kill -TERM "$p" 2>/dev/null && removed+=("process $p")
done
for _ in $(seq 50); do pgrep -f '\.test-env/(docker/data|ssh/sshd_|podman/)' >/dev/null 2>&1 || break; sleep 0.1; done

# What earlier runs left in /tmp (temp profiles, sockets, remote scratch dirs) and this checkout's .test-env.
shopt -s nullglob
for f in /tmp/switchboard-* /tmp/sb-* /tmp/.switchboard-* "$root/.test-env"; do
  [ -e "$f" ] || continue
  # Mounts a killed dockerd left below it must go first, or the removal stops at them.
  awk -v p="$f" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null
  rm -rf "$f" 2>/dev/null && removed+=("$f")
done

# The test user with its home and caches (~/.cache/switchboard); scripts/env/ssh.sh creates it anew.
if id "$user" >/dev/null 2>&1; then
  pkill -KILL -u "$user" 2>/dev/null || true
  home=$(getent passwd "$user" | cut -d: -f6)
  userdel "$user" 2>/dev/null || true
  [ -n "$home" ] && rm -rf "$home"
  removed+=("user $user and $home")
fi

# The unprivileged user the sandbox's tests run the Core as, and the SSH sandbox test's remote account with its home
# (scripts/asUser.ts makes each anew).
for u in sbperson sbremote; do
  if id "$u" >/dev/null 2>&1; then
    pkill -KILL -u "$u" 2>/dev/null || true
    userdel "$u" 2>/dev/null || true
    removed+=("user $u")
  fi
done
if [ -d /home/sbremote ]; then rm -rf /home/sbremote; removed+=("/home/sbremote"); fi
# Cgroups the sandboxes of earlier runs' Cores left (empty ones only: rmdir refuses one with a process in it).
for d in $(find /sys/fs/cgroup -maxdepth 6 -type d -name 'switchboard-*' 2>/dev/null | sort -r); do
  rmdir "$d" 2>/dev/null && removed+=("cgroup $d")
done
for f in /var/tmp/sb-*; do [ -e "$f" ] && rm -rf "$f" 2>/dev/null && removed+=("$f"); done

echo "fresh-machine: removed ${#removed[@]} leftover(s) of earlier runs"
for r in "${removed[@]}"; do echo "  $r"; done
