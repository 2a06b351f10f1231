#!/usr/bin/env bash
# Dependencies and build of this checkout, each skipped when already done. Sourced by install.sh and
# test.sh after ensure-node.sh, from the checkout's root.

# What node_modules was installed from: the lock file's hash and the Node major it was installed under.
deps_key() {
  node -e 'const h = require("node:crypto").createHash("sha256");
    h.update(require("node:fs").readFileSync("package-lock.json"));
    process.stdout.write(`${h.digest("hex")} node${process.versions.node.split(".")[0]}`);'
}

# `npm ci` unless node_modules was installed from this very package-lock.json.
install_deps() {
  local stamp=node_modules/.hermes-deps key
  key="$(deps_key)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
    echo "dependencies: up to date with package-lock.json" >&2
    return 0
  fi
  echo "dependencies: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error
  mkdir -p node_modules
  echo "$key" >"$stamp"
}

# True when dist/ is missing or older than anything the build reads.
build_stale() {
  local out=dist/bundle/hermes.js inputs=() f
  [ -f "$out" ] || return 0
  for f in src package.json package-lock.json tsconfig.json tsconfig.build.json scripts/bundle.mjs; do
    [ -e "$f" ] && inputs+=("$f")
  done
  [ -n "$(find "${inputs[@]}" -newer "$out" -print -quit)" ]
}

# `npm run build` unless dist/ is newer than its sources (npm ci's `prepare` has usually just built it).
build_if_stale() {
  if build_stale; then
    echo "build: npm run build" >&2
    npm run build --silent
  else
    echo "build: up to date" >&2
  fi
}
