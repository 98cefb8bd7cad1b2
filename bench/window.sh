#!/usr/bin/env bash
# window.sh - a quick look at OpenSM's routing window on a few fabrics,
# engines interleaved run by run so a busy moment of the machine hits them
# all alike; bench.sh is the suite of record.
#
#   bench/window.sh [-r RUNS] [-e "ENGINES"] [SPEC...]
#
# SPEC defaults to random:sw=256,ca=4096,seed=1 and seed=2; ENGINES to
# "updn zero-cost pira pira-noverify fera" (ENGINE-noverify: one of ours
# with verify_before_push no; updn with a root_guid_file naming the
# switch our engines root at; ENGINE@DIR: with the plugin of DIR, e.g.
# another build's .libs, to compare two builds in one run).  Prints per fabric and engine the median
# window and its ratio to updn's, and for ours the median phases the
# plugin logs at VERBOSE: fabric model, routing, verification, hops (the
# hop table walker, or the hop tables themselves in plugins that wrote
# them inside the window), and the hop tables written after the LFTs
# ("after").
# "to up" is from "building routing with" to OpenSM's SUBNET UP: the
# rest of the sweep (LFT distribution, multicast) included.  "ours" is the
# plugin's part of the window (to its tables handed to OpenSM); the rest
# is OpenSM's, sending the LFT blocks, as zero-cost's whole window is.
# BUILD_DIR names the build (default build/); OpenSM runs with -D
# $OSM_DEBUG (default 0x07: VERBOSE, no routing dumps).
set -euo pipefail
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
top=$(cd "$(dirname "$0")/.." && pwd)
runs=3
labels="updn zero-cost pira pira-noverify fera"
while getopts r:e: opt; do
	case $opt in
	r) runs=$OPTARG ;;
	e) labels=$OPTARG ;;
	*) echo "usage: bench/window.sh [-r RUNS] [-e ENGINES] [SPEC...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- random:sw=256,ca=4096,seed=1 random:sw=256,ca=4096,seed=2
build=${BUILD_DIR:-$top/build}
export IBROUTING=$build/ibrouting PLUGIN_DIR=$build/.libs FABRICS_DIR=$top/tests/fabrics
# zero-cost: a benchmark-only plugin (bench/zero_cost.c, built by make
# check, never installed) that OpenSM loads beside ours
[ -f "$build/bench/.libs/libibrouting-zero-cost.so" ] ||
	(cd "$build" && make bench/libibrouting-zero-cost.la >/dev/null)
export OSM_PLUGINS="ibrouting ibrouting-zero-cost"
export LD_LIBRARY_PATH=$build/bench/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
. "$top/tests/lib.sh"
. "$top/tests/e2e_lib.sh"
e2e_requirements
printf 'verify_before_push no\n' > "$TMP/noverify.conf"
export OSM_DEBUG=${OSM_DEBUG:-0x07}   # VERBOSE for the phases, no dumps

# ms from 'building routing with' to SUBNET UP in OpenSM's log
to_up_ms() {
	awk '
		function t(line,   a) { split($3, a, ":"); return (a[1] * 3600 + a[2] * 60 + a[3]) * 1000 + $4 / 1000 }
		/building routing with/ && !start { start = t() }
		/SUBNET UP/ && start && !end { end = t() }
		END { if (start && end) printf "%.1f\n", end - start; else print "?" }' "$1"
}

ratio() { awk -v w="$1" -v u="$2" 'BEGIN { if (u != "?" && u > 0 && w != "?" && w != "") printf "%.3f", w / u; else print "-" }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "?" }'; }

for spec in "$@"; do
	net=$TMP/fabric.net
	"$IBROUTING" generate -o "$net" "$spec"
	# the first switch (grep stops there: no SIGPIPE under pipefail)
	grep -m 1 '^switchguid=' "$net" | sed 's/^switchguid=\(0x[0-9a-f]*\).*/\1/' > "$TMP/roots"
	ibsim_start "$net"
	: > "$TMP/times"
	for r in $(seq 1 "$runs"); do
		for label in $labels; do
			plugin=$PLUGIN_DIR
			case $label in *@*) plugin=${label#*@} ;; esac
			engine=${label%@*}
			engine=${engine%-noverify} conf=/dev/null extra=""
			case ${label%@*} in *-noverify) conf=$TMP/noverify.conf ;; esac
			case $engine in updn|dnup) extra="root_guid_file $TMP/roots" ;; esac
			name=run-$(echo "$label" | tr '/@' '__')-$r
			rm -rf "${TMP:?}/$name"
			IBROUTING_CONF=$conf PLUGIN_DIR=$plugin opensm_run "$name" "$engine" "$extra" || true
			used=$(sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured on all switches.*/\1/p' "$TMP/$name/osm.log" | head -n 1)
			[ "$used" = "$engine" ] || echo "# $label run $r: OpenSM used ${used:-nothing}" >&2
			phases=$(sed -n 's/.*phases: fabric model \([0-9.]*\) ms, routing \([0-9.]*\) ms.*, verification \([0-9.]*\) ms, hop [a-z ]*\([0-9.][0-9.]*\) ms.*/\1 \2 \3 \4/p' "$TMP/$name/osm.log" | head -n 1)
			after=$(sed -n 's/.*: hop tables \([0-9.]*\) ms .*after the switches.*/\1/p' "$TMP/$name/osm.log" | head -n 1)
			echo "$label $(routing_ms "$TMP/$name/osm.log") ${phases:-- - - -} ${after:--} $(to_up_ms "$TMP/$name/osm.log") $(ours_ms "$TMP/$name/osm.log" | sed 's/?/-/')" >> "$TMP/times"
		done
	done
	[ -z "${WINDOW_KEEP:-}" ] || cp -r "$TMP" "$WINDOW_KEEP"
	ibsim_stop
	updn=$(awk '$1 == "updn" { print $2 }' "$TMP/times" | median)
	echo "== $spec ($runs runs, median; updn $updn ms)"
	printf '%-22s %9s %7s %9s %9s %9s %9s %9s %9s %9s %7s\n' engine window /updn model routing verify hops after "to up" ours /updn
	for label in $labels; do
		w=$(awk -v l="$label" '$1 == l { print $2 }' "$TMP/times" | median)
		cols=""
		for k in 3 4 5 6 7 8 9; do
			cols="$cols $(awk -v l="$label" -v k=$k '$1 == l && $k != "-" { print $k }' "$TMP/times" | median)"
		done
		# shellcheck disable=SC2086
		ours=${cols##* }
		printf '%-22s %9s %7s %9s %9s %9s %9s %9s %9s %9s %7s\n' "$label" "$w" \
			"$(ratio "$w" "$updn")" $cols "$(ratio "$ours" "$updn")"
	done
	[ -z "${WINDOW_KEEP:-}" ] || cp -r "$TMP" "$WINDOW_KEEP"
done
