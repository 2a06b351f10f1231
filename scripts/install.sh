#!/usr/bin/env bash
# Installs Hermes from this checkout: Node 24 where the launcher's users can run it, dependencies and
# the build (each skipped when already done), a `hermes` launcher in the bin folder and a copy of it
# as ./hermes in the checkout, which works at once without touching PATH. Safe to run again after
# `git pull`. Settings:
#   HERMES_PREFIX      launcher in $HERMES_PREFIX/bin, private Node in $HERMES_PREFIX/lib/hermes-node
#                      (default /usr/local when writable, as for root, so every user can run it; else ~/.local)
#   HERMES_BIN_DIR     the launcher's folder instead of $HERMES_PREFIX/bin
#   HERMES_NODE_CACHE  Node 24 packages kept between installs (default ~/.cache/hermes-node24)
set -euo pipefail
START="$(pwd -P)"
cd "$(dirname "$0")/.."
ROOT="$(pwd -P)"
source scripts/ensure-node.sh
source scripts/deps.sh

if [ -n "${HERMES_PREFIX:-}" ]; then
  PREFIX="$HERMES_PREFIX"
elif [ -w /usr/local/bin ] && [ -w /usr/local/lib ]; then
  PREFIX=/usr/local
else
  PREFIX="$HOME/.local"
fi
PREFIX="$(mkdir -p "$PREFIX" && cd "$PREFIX" && pwd -P)"
BIN_DIR="$(mkdir -p "${HERMES_BIN_DIR:-$PREFIX/bin}" && cd "${HERMES_BIN_DIR:-$PREFIX/bin}" && pwd -P)"
NODE_HOME="$PREFIX/lib/hermes-node"

# True when every user can open $1 for $2 (r: read, x: run) and reach it through its folders.
others_can() {
  node -e 'const fs = require("node:fs"), path = require("node:path");
    let p = fs.realpathSync(process.argv[1]);
    if (!(fs.statSync(p).mode & (process.argv[2] === "r" ? 0o004 : 0o001))) process.exit(1);
    while (p !== "/") { p = path.dirname(p); if (!(fs.statSync(p).mode & 0o001)) process.exit(1); }' "$1" "$2" 2>/dev/null
}

install_deps
build_if_stale

# The launcher's Node: the machine's own Node 24 when it is installed for every user (outside any home
# or cache folder), else a private copy in $NODE_HOME, readable by all, that no cache cleanup removes.
if [[ "$NODE_BIN" != "$HOME"/* && "$NODE_BIN" != "$NODE_CACHE"/* ]] && others_can "$NODE_BIN" x; then
  RUN_NODE="$NODE_BIN"
else
  if ! node_ok "$NODE_HOME/bin/node"; then
    case "$NODE_BIN" in
      */node_modules/node-linux-*/bin/node) PACKAGE_DIR="$(dirname "$(dirname "$NODE_BIN")")" ;;
      *) PACKAGE_DIR="$(node24_package)" ;;
    esac
    echo "node: copying Node $("$PACKAGE_DIR/bin/node" --version) into $NODE_HOME" >&2
    mkdir -p "$(dirname "$NODE_HOME")"
    rm -rf "$NODE_HOME.tmp.$$"
    cp -R "$PACKAGE_DIR" "$NODE_HOME.tmp.$$"
    chmod -R a+rX "$NODE_HOME.tmp.$$"
    rm -rf "$NODE_HOME"
    mv "$NODE_HOME.tmp.$$" "$NODE_HOME"
  fi
  RUN_NODE="$NODE_HOME/bin/node"
fi

quote() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
LAUNCHER="#!/bin/sh
# Written by scripts/install.sh: Hermes from this checkout on Node 24, whatever node PATH holds.
exec $(quote "$RUN_NODE") $(quote "$ROOT/bin/hermes.js") \"\$@\""
write_launcher() {
  printf '%s\n' "$LAUNCHER" >"$1.tmp.$$"
  chmod 755 "$1.tmp.$$"
  mv -f "$1.tmp.$$" "$1"
}
write_launcher "$BIN_DIR/hermes"
write_launcher "$ROOT/hermes"
echo "installed $BIN_DIR/hermes: hermes $("$BIN_DIR/hermes" --version) on Node $("$RUN_NODE" --version) ($RUN_NODE)" >&2

if [[ "$BIN_DIR" != "$HOME"/* ]] && ! others_can "$ROOT/bin/hermes.js" r; then
  echo "note: only some users can read $ROOT; for every user's hermes to work, install from a checkout" \
    "they can read (e.g. under /opt)" >&2
fi
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 &&
  ! command -v google-chrome >/dev/null 2>&1; then
  echo "note: no Chromium found: the browser tools stay hidden until it is installed" \
    "(Debian/Ubuntu: apt-get install chromium) or browser.executable_path names one" >&2
fi
HERE="$ROOT/hermes"
[ "$START" = "$ROOT" ] && HERE=./hermes
case ":$PATH:" in
  *":$BIN_DIR:"*) ;;
  *)
    case "$(basename "${SHELL:-sh}")" in
      bash) PROFILE="$HOME/.bashrc" ;;
      zsh) PROFILE="$HOME/.zshrc" ;;
      *) PROFILE="$HOME/.profile" ;;
    esac
    echo "$BIN_DIR is not on PATH: run $HERE for now, and for new shells add it with" >&2
    echo "  echo 'export PATH=\"$BIN_DIR:\$PATH\"' >> $PROFILE" >&2
    ;;
esac
