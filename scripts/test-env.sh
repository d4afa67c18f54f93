#!/usr/bin/env bash
# Starts (up) or stops (down) the real services the integration tests use: a loopback sshd, a private dockerd.
# Each scripts/env/<name>.sh writes .test-env/<name>.json when its service is ready. Sockets and run roots live in a
# short private folder (scripts/env/lib/run.sh), so a checkout at any path works; `down` removes that folder.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
action=${1:-up}
# shellcheck source=env/lib/run.sh
. scripts/env/lib/run.sh
mkdir -p .test-env
[ "$action" = up ] && make_test_run_dir "$root" >/dev/null
status=0
for svc in scripts/env/*.sh; do
  [ -e "$svc" ] || continue
  name=$(basename "$svc" .sh)
  if ! bash "$svc" "$action" > ".test-env/$name.log" 2>&1; then
    echo "test-env: $name failed to $action (see .test-env/$name.log)" >&2
    tail -5 ".test-env/$name.log" >&2 || true
    status=1
  fi
done
# Only once every service stopped: a daemon still running would lose its socket.
if [ "$action" = down ] && [ $status = 0 ]; then remove_test_run_dir "$root"; fi
exit $status
