#!/usr/bin/env bash
# The main job on embedded defaults (no API key, no network):
# 1. installs and builds Arbor, then on a copy of the bundled sample Pi session
#    prints its tree and compaction plan, compacts it with the offline
#    summarizer, jumps to an earlier branch with a summary of the branch left
#    behind, and prints the resulting tree and the parsed summaries;
# 2. packages the extension (arbor.vsix), installs the test VS Code if needed,
#    starts code-server on 127.0.0.1 with Arbor installed and a sample
#    workspace holding Pi sessions, and prints the URL to open.
# `bash scripts/demo.sh --cli-only` stops after part 1.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing npm packages (npm ci)..."
  # --loglevel=error: the Pi 1.6 dev dependency (parity tests, run under the test Node 24) declares
  # Node >= 22; Arbor itself runs on Node >= 20 (package.json engines), so npm's EBADENGINE notices are expected.
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
echo "building (npm run build)..."
npm run --silent build >/dev/null
# The session copy lives in out/demo (replaced by each run), so demo runs leave no temporary folders behind.
WORK="$PWD/out/demo"
rm -rf "$WORK"
mkdir -p "$WORK"
SESSION="$WORK/sample-session.jsonl"
cp samples/sample-session.jsonl "$SESSION"
arbor() { node dist/cli.js "$@"; }
hr() { printf '\n==== %s\n' "$*"; }

hr "arbor tree $SESSION"
arbor tree "$SESSION"
hr "arbor plan-compaction (keepRecentTokens 1000)"
arbor plan-compaction "$SESSION" --keep-recent-tokens 1000
hr "arbor compact (offline summarizer, keepRecentTokens 1000): the summary as written, with the pinned entry"
arbor compact "$SESSION" --keep-recent-tokens 1000 --instructions "Keep exact file paths."
hr "arbor navigate --to 8c5b7af4 --summarize --label csv-question"
arbor navigate "$SESSION" --to 8c5b7af4 --summarize --label csv-question | head -n 2
hr "arbor summary (the branch summary just written)"
arbor summary "$SESSION"
hr "arbor check-summary (what that summary keeps of the branch it left)"
arbor check-summary "$SESSION"
hr "arbor tree (after compacting and jumping)"
arbor tree "$SESSION"
printf '\nThe session copy is %s; open it with Pi (pi --session FILE) or in VS Code with Arbor.\n' "$SESSION"

[ "${1:-}" = "--cli-only" ] && exit 0
hr "packaging the extension and starting VS Code (code-server)"
echo "packaging the extension (arbor.vsix)..."
npm run --silent package >/dev/null
echo "compiling the demo server..."
npm run --silent compile >/dev/null
echo "installing the test VS Code if needed (code-server and Node 24 from npm, Chromium from Debian; a few minutes the first time, progress below)..."
bash scripts/vscode-test/install.sh
exec node out/scripts/serveVscode.js arbor.vsix
