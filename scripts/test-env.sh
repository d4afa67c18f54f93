#!/usr/bin/env bash
# Starts (up) or stops (down) the real services the integration tests use: a loopback sshd, a private dockerd.
# Each scripts/env/<name>.sh writes .test-env/<name>.json when its service is ready.
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:-up}
mkdir -p .test-env
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
exit $status
