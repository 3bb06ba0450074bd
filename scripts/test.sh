#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what it needs (npm packages,
# Debian packages, the test VS Code), builds, lints, then the unit tests, the
# extension-host integration tests and the browser UI tests in a real VS Code.
# The last line is the total "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
LOG_DIR=test-artifacts/logs
mkdir -p "$LOG_DIR"
passed=0; failed=0; status=0

step() { echo; echo "== $*"; }
tally() { # add the "N passed, N failed" lines of a log
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -n "$line" ]; then
    passed=$((passed + $(echo "$line" | awk '{print $1}')))
    failed=$((failed + $(echo "$line" | awk '{print $3}')))
  fi
}
run_suite() { # name, command...
  local name=$1; shift
  step "$name"
  "$@" 2>&1 | tee "$LOG_DIR/$name.log"
  local rc=${PIPESTATUS[0]}
  tally "$LOG_DIR/$name.log"
  if [ "$rc" -ne 0 ]; then echo "!! $name failed (exit $rc)"; status=1; fi
}

step "install npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # Pi 1.6 (a dev dependency, run under the test Node 24) declares Node >= 22: its EBADENGINE notices are expected.
  npm ci --no-audit --no-fund --loglevel=error || exit 1
fi
step "build, compile, lint"
npm run build || exit 1
npm run compile || exit 1
npm run lint || exit 1

# Node 24 (for code-server, and for Pi 1.6 as a test oracle), code-server, Chromium.
step "install the test VS Code (code-server), Node 24, Chromium"
bash scripts/vscode-test/install.sh || exit 1

run_suite unit npx mocha

if [ "${ARBOR_SKIP_VSCODE_TESTS:-0}" != "1" ]; then
  run_suite integration node out/test/integration/run.js
  run_suite e2e node out/test/e2e/run.js
  run_suite electron node out/test/electron/run.js
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] || status=1
exit $status
