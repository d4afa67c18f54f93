#!/usr/bin/env bash
# Installs the Debian packages the tests and the lint use (Chromium, sshd, dockerd, Podman, busybox, debootstrap,
# bubblewrap, tmux, shellcheck) when any is missing.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v ssh-keygen >/dev/null 2>&1 || need+=(openssh-client)
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v podman >/dev/null 2>&1 || need+=(podman)
command -v curl >/dev/null 2>&1 || need+=(curl)
[ -x /bin/busybox ] || need+=(busybox-static)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v script >/dev/null 2>&1 || need+=(bsdutils)
# The sandbox's tests: the person's shells the planted start-up files would run in, and the builds a developer runs
# inside (a Rust crate, a Python venv).
command -v zsh >/dev/null 2>&1 || need+=(zsh)
command -v fish >/dev/null 2>&1 || need+=(fish)
[ -x /usr/bin/cargo ] || need+=(cargo)
/usr/bin/python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
command -v prlimit >/dev/null 2>&1 || need+=(util-linux)
# `npm run lint` checks the shell programs (scripts/lint.mjs).
command -v shellcheck >/dev/null 2>&1 || need+=(shellcheck)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "warning: missing test packages: ${need[*]} (install them with apt-get as root; their tests will be skipped)" >&2
  exit 0
fi
echo "installing test packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
