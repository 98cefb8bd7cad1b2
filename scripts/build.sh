#!/usr/bin/env bash
# Builds out of tree in build/ (quickstart.sh and run-tests.sh use it):
# autoreconf when ./configure is missing, configure when build/ has no
# Makefile (with the arguments given, e.g. --enable-werror), then make;
# with BUILD_TESTS=1 the test programs too (make check TESTS=, which runs
# none), so that make check then prints the tests' results alone.
# Each step is announced in one line before it starts; what autoreconf,
# libtool, configure and make print goes to build/build.log, whose last
# lines are shown if a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
log=$PWD/build/build.log
: > "$log"

# step WHAT CMD...: one line, then CMD with its output in the log
step() {
	local what=$1
	shift
	echo "== $what"
	if ! "$@" >> "$log" 2>&1; then
		echo "$what failed; the last lines of $log:" >&2
		tail -n 40 "$log" >&2
		exit 1
	fi
}

[ -x configure ] || step "autoreconf: generating ./configure (a minute)" autoreconf -fi
cd build
[ -f Makefile ] || step "configure${*:+ $*}" ../configure "$@"
step "building: make -j$(nproc) (a minute or two; output in build/build.log)" make -j"$(nproc)"
[ "${BUILD_TESTS:-}" != 1 ] ||
	step "building the tests' programs (a minute)" make -j"$(nproc)" check TESTS=
