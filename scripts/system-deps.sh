#!/bin/sh
# Installs the system packages arbor's tests use, on Debian and Ubuntu: bubblewrap (the exec
# sandbox), socat (the bridge from a sandboxed command to arbor's egress proxy), git (plan worktrees), chromium (the dashboard's browser tests, driven by
# playwright-core, which never downloads a browser), redis-server (the fleet's tests start their
# own, on a free loopback port, without persistence) and python3 (the red-team test that races the
# file tools swaps a directory and a link with renameat2 through ctypes). Elsewhere it says what to install and carries on: tests that
# need a missing part skip with the reason printed (and fail instead when CI is set).
set -eu

missing=""
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
[ -x /usr/bin/socat ] || missing="$missing socat"
command -v git >/dev/null 2>&1 || missing="$missing git"
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: not a Debian or Ubuntu machine; install$missing with your package manager" >&2
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  run=""
elif command -v sudo >/dev/null 2>&1; then
  run="sudo"
else
  echo "system-deps: need root (or sudo) to install$missing" >&2
  exit 0
fi

echo "system-deps: installing$missing" >&2
$run apt-get update -q
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive $run apt-get install -y -q $missing
