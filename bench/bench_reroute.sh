#!/usr/bin/env bash
# bench_reroute.sh - fera's re-route pass on degraded fat trees, Clos
# networks and a random fabric: every end port routed again
# (`-o reroute_all=1`)
# against only those whose route crosses a link above the load bound (the
# default), one run each, interleaved, so both are measured in the same
# minute.  Never a timed test: it measures and reports.
#
#   bench/bench_reroute.sh [SPEC ...]   (default: the fabrics below;
#       CI runs it on two small ones: every figure must be there)
#
# Prints a Markdown table: per fabric, the bound no routing goes below,
# then for each setting fera's compute ms, its re-route pass's ms and the
# max link load; for the default also the end ports routed again.
set -euo pipefail
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
top=$(cd "$(dirname "$0")/.." && pwd)
ibr=${BUILD_DIR:-$top/build}/ibrouting
[ -x "$ibr" ] || { echo "bench_reroute: build first ($ibr missing)" >&2; exit 2; }
[ $# -gt 0 ] || set -- fattree:ports=36,levels=3,broken=8,seed=1 \
	fattree:ports=36,levels=3,broken=8,seed=2 \
	fattree:ports=36,levels=3,broken=8,seed=3 \
	fattree:ports=52,levels=3,broken=8,seed=1 \
	fattree:ports=24,levels=3,broken=8,seed=1 \
	fattree:ports=24,levels=3,broken=30,seed=3 \
	kary:k=8,n=3,cut=10,seed=1 kary:k=8,n=3,down=2,seed=1 \
	clos:leaf=36,spine=18,ca=648,cut=12,seed=1 \
	clos:leaf=36,spine=18,ca=648,down=2,seed=2 \
	random:sw=1024,ca=16384,seed=1
# field NAME OUTPUT: one figure of a route's summary
field() {
	case $1 in
	switches) sed -n 's/^fabric .*: \([0-9]*\) switches, \([0-9]*\) CA ports.*/\1 \/ \2/p' <<<"$2" ;;
	bound) sed -n 's/^bound .*under \([0-9]*\) flows.*/\1/p' <<<"$2" ;;
	ms) sed -n 's/^time *\([0-9.]*\) ms compute.*/\1/p' <<<"$2" ;;
	reroute) sed -n 's/^phases .*re-route passes \([0-9.]*\) ms.*/\1/p' <<<"$2" ;;
	load) sed -n 's/^load *max link load \([0-9]*\) flows.*/\1/p' <<<"$2" ;;
	again) sed -n 's/^engine .* \([0-9]*\) end ports\{0,1\} routed again.*/\1/p' <<<"$2" ;;
	esac
}
echo "fera, \`ibrouting route -e fera --lmc 0 -j 2 gen:SPEC\` with \`-o reroute_all=1\` and without, one run each, interleaved, commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date +%F), $(nproc) cores; ms; max link load in flows"
echo
echo "| fabric | switches / CAs | bound | every end port: ms | its re-route pass | max load | heavy only: ms | its re-route pass | end ports routed again | max load |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for spec in "$@"; do
	all=$("$ibr" route -v -e fera -o reroute_all=1 --lmc 0 -j 2 "gen:$spec" 2>&1) ||
		{ echo "bench_reroute: $spec failed: $all" >&2; exit 1; }
	heavy=$("$ibr" route -v -e fera --lmc 0 -j 2 "gen:$spec" 2>&1) ||
		{ echo "bench_reroute: $spec failed: $heavy" >&2; exit 1; }
	row="| $spec | $(field switches "$all") | $(field bound "$all") | $(field ms "$all") | $(field reroute "$all") | $(field load "$all") | $(field ms "$heavy") | $(field reroute "$heavy") | $(field again "$heavy") | $(field load "$heavy") |"
	# a figure missing is an error, not a blank (a fabric at the bound
	# after the first pass makes no re-route pass: choose degraded ones)
	case $row in *"|  |"*) echo "bench_reroute: $spec: a figure is missing: $row" >&2; exit 1 ;; esac
	echo "$row"
done
