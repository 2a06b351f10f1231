#!/usr/bin/env bash
# Runs what CI runs (.ci/run calls this): the programs the tests need, dependencies, then `npm test`
# (build, typecheck, lint and every test) under Node 24.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh
source scripts/deps.sh
bash scripts/test-deps.sh
install_deps
npm test
