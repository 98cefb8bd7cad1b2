#!/usr/bin/env bash
# Installs the Debian packages the build, the tests and the demo need
# (listed in .ci/packages), only when some are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=$(cat .ci/packages)
if dpkg -s $pkgs >/dev/null 2>&1; then
	exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
missing=$(for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || printf '%s ' "$p"; done)
echo "== installing Debian packages with apt-get (a minute or more): $missing"
log=$(mktemp)
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends $pkgs; } > "$log" 2>&1; then
	echo "apt-get failed; its output:" >&2
	cat "$log" >&2
	rm -f "$log"
	exit 1
fi
rm -f "$log"
