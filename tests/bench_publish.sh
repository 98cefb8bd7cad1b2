#!/bin/sh
# bench_publish.sh - BENCHMARKS.md is what bench/publish.sh makes of the
# files in bench/results, byte for byte: a page edited by hand, or results
# committed without the page generated again, fail here.  Needs neither
# the build nor OpenSM.  A distribution tarball carries neither the page
# nor the results (make distcheck): nothing to compare there.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$top/BENCHMARKS.md" ] || [ ! -d "$top/bench/results" ]; then
	echo "ok 1 - no BENCHMARKS.md and bench/results here (a tarball): nothing to compare"
	exit 0
fi
if "$top/bench/publish.sh" --check; then
	echo "ok 1 - BENCHMARKS.md is what bench/publish.sh makes of bench/results"
else
	echo "not ok 1 - BENCHMARKS.md differs from what bench/publish.sh makes of bench/results: run bench/publish.sh"
	exit 1
fi
