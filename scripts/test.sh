#!/usr/bin/env bash
# `npm test`: builds, starts the real test services (sshd, dockerd), runs every unit, integration and e2e test.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
mkdir -p test-results

# The cheapest check first: a formatting, lint or type error fails the run before anything is built or started.
node scripts/lint.mjs || { echo "tests: lint failed (npm run lint shows where)"; exit 1; }

node scripts/build.mjs || { echo "tests: build failed"; exit 1; }
bash scripts/install-test-deps.sh || echo "warning: could not install test packages" >&2

if ! bash scripts/test-env.sh up; then
  if [ -n "${CI:-}" ]; then echo "tests: the test services did not start"; exit 1; fi
  echo "warning: some test services did not start; their suites will say they are skipped" >&2
fi
if [ -z "${SWITCHBOARD_KEEP_TEST_ENV:-}" ]; then trap 'bash scripts/test-env.sh down >/dev/null 2>&1' EXIT; fi

npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@"
status=$?

# One closing line in the plain form CI reads: "N passed, N failed, N skipped".
# shellcheck disable=SC2016  # JavaScript, not shell: its template strings are node's
node -e '
const r = JSON.parse(require("fs").readFileSync("test-results/vitest.json", "utf8"));
const skipped = r.numPendingTests + r.numTodoTests;
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
' || echo "tests: no results (vitest did not finish)"
exit $status
