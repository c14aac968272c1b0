#!/bin/sh
# Runs the test suite again on the current Node.js LTS, which stores runs with the built-in
# node:sqlite instead of better-sqlite3. That Node.js comes from the npm `node` package (a
# prebuilt binary, no compiler) installed into a directory outside the checkout, and goes first
# on PATH: the tests spawn `process.execPath` and `node`, and both must be the LTS.
# ARBOR_LTS_NODE picks the version (default 26, the active LTS).
set -eu

version="${ARBOR_LTS_NODE:-26}"
dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/arbor-node-$version"
mkdir -p "$dir"
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$version" >&2
bin="$dir/node_modules/node/bin"
actual="$("$bin/node" --version)"
case "$actual" in
  "v$version" | "v$version".*) ;;
  *)
    echo "test-node-lts: expected Node.js $version in $bin, got $actual" >&2
    exit 1
    ;;
esac
echo "test-node-lts: running the suite on Node.js $actual" >&2
PATH="$bin:$PATH" node node_modules/vitest/vitest.mjs run "$@"
