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
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
