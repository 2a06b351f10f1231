#!/usr/bin/env bash
# Runs what CI runs: build, typecheck, lint and every test, under Node 24.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh
[ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error
npm test
