#!/usr/bin/env bash
# Installs Hermes from this checkout: Node 24 (from the npm registry if the machine's node is older),
# dependencies, the build, and a `hermes` launcher on PATH (/usr/local/bin when writable, else
# ~/.local/bin). Safe to run again after `git pull`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh

npm ci --no-audit --no-fund --loglevel=error
npm run build --silent

NODE_BIN="$(command -v node)"
HERMES_JS="$(pwd)/bin/hermes.js"
if [ -n "${HERMES_BIN_DIR:-}" ]; then
  BIN_DIR="$HERMES_BIN_DIR"
elif [ -w /usr/local/bin ]; then
  BIN_DIR=/usr/local/bin
else
  BIN_DIR="$HOME/.local/bin"
fi
mkdir -p "$BIN_DIR"
cat > "$BIN_DIR/hermes" <<LAUNCHER
#!/usr/bin/env sh
exec "$NODE_BIN" "$HERMES_JS" "\$@"
LAUNCHER
chmod +x "$BIN_DIR/hermes"
echo "installed: $BIN_DIR/hermes ($("$BIN_DIR/hermes" --version))" >&2
case ":$PATH:" in
  *":$BIN_DIR:"*) ;;
  *) echo "note: add $BIN_DIR to PATH, e.g.  export PATH=\"$BIN_DIR:\$PATH\"" >&2 ;;
esac
