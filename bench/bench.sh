#!/usr/bin/env bash
# bench.sh - the benchmark suite: our engines and OpenSM's, side by side, on
# the same fabrics in one run.  Never a timed test: it measures and reports.
#
#   bench/bench.sh            the whole suite -> bench/results/ (CSV, plots;
#                             bench/publish.sh then makes BENCHMARKS.md)
#   bench/bench.sh --offline-only   redo only the offline part (same DIR)
#   bench/bench.sh --smoke    a small size, into a temporary directory; exits
#                             non-zero if one of our engines fell back, or has a
#                             verifier finding or a credit loop (what CI runs)
#
# Inside OpenSM over ibsim, per fabric and engine: OpenSM's routing window
# from its own log ('building routing with' .. 'tables configured'), the
# engine OpenSM actually used, our verifier's verdict and ibdmchk's credit
# loops on OpenSM's dumps, max link load, mean path, DLIDs used, and our
# explicit entries and default ports.  `zero-cost` (an engine that
# computes nothing, in a plugin of its own: bench/zero_cost.c) measures
# OpenSM's own share of the window.  Offline,
# `ibrouting route` beyond ibsim's comfortable sizes: compute time, peak
# memory and the memset lower bound of writing every LFT byte.
set -euo pipefail
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
top=$(cd "$(dirname "$0")/.." && pwd)
smoke=false offline_only=false
out=$top/bench/results
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=true; out=$(mktemp -d) ;;
	--offline-only) offline_only=true ;;
	--out) out=$2; shift ;;
	*) echo "usage: bench/bench.sh [--smoke] [--offline-only] [--out DIR]" >&2; exit 2 ;;
	esac
	shift
done
if ! $smoke && ! command -v gnuplot >/dev/null; then
	echo "bench.sh: the plots need gnuplot: apt-get install gnuplot-nox" >&2
	exit 2
fi
mkdir -p "$out"
# the commit measured: `commit` for the runs inside OpenSM, offline.commit
# for the offline part (--offline-only redoes that alone)
$offline_only || git -C "$top" rev-parse --short HEAD > "$out/commit" 2>/dev/null || true
git -C "$top" rev-parse --short HEAD > "$out/offline.commit" 2>/dev/null || true

# Build (out of tree, as the tests do) unless a build exists.
build=${BUILD_DIR:-$top/build}
if [ ! -x "$build/ibrouting" ] || [ ! -f "$build/.libs/libibrouting.so" ]; then
	(cd "$top" && { [ -x configure ] || autoreconf -fi >/dev/null; })
	mkdir -p "$build"
	(cd "$build" && { [ -f Makefile ] || "$top/configure" >/dev/null; } && make -j"$(nproc)" >/dev/null)
fi
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
cc -O2 -o "$TMP/memset_bound" "$top/bench/memset_bound.c"
# our engines once more with verify_before_push no: the price of the check
printf 'verify_before_push no\n' > "$TMP/noverify.conf"

# our engines: the registry's, as `ibrouting engines` lists them
ours=$("$IBROUTING" engines --names | tr '\n' ' ')
noverify=$(for e in $ours; do printf '%s-noverify ' "$e"; done)
opensm_engines="minhop updn dnup dfsssp nue lash"
if $smoke; then
	fabrics="random:sw=16,ca=128,seed=1 clos:leaf=4,spine=2,ca=32,seed=1 torus:dims=3x3,ca=1,broken=2,seed=1"
	big_fabrics=""
	offline_sizes="64:1024 128:2048"
	repeats=1
else
	fabrics=""
	for seed in 1 2 3; do
		fabrics="$fabrics random:sw=16,ca=128,seed=$seed random:sw=32,ca=256,seed=$seed"
		fabrics="$fabrics random:sw=64,ca=512,seed=$seed random:sw=64,ca=1024,seed=$seed"
	done
	fabrics="$fabrics random:sw=256,ca=4096,seed=1 random:sw=256,ca=4096,seed=2"
	fabrics="$fabrics clos:leaf=16,spine=8,ca=256,seed=1 clos:leaf=32,spine=16,ca=1024,seed=1"
	fabrics="$fabrics torus:dims=4x4x4,ca=2,broken=6,seed=1 torus:dims=8x8,ca=4,broken=8,seed=2"
	fabrics="$fabrics torus:dims=6x6x6,ca=2,broken=20,seed=3"
	# beyond: ibsim serves 512 switches / 8192 CAs, but one OpenSM run there
	# takes minutes of discovery here, so only our engines, updn and
	# zero-cost, once each (BIG=1 to include it)
	big_fabrics=""
	[ -z "${BIG:-}" ] || big_fabrics="random:sw=512,ca=8192,seed=1"
	offline_sizes="64:1024 128:2048 256:4096 512:8192 1024:16384 2048:32768"
	repeats=3
fi

if $offline_only; then fabrics="" big_fabrics=""; fi
csv=$out/opensm.csv
$offline_only || echo "fabric,switches,cas,engine,used,route_ms,findings,credit_loops,max_link_load,mean_path,dlids_used,explicit,default_ports,unreachable,cdg_cycles" > "$csv"

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "?" }'; }

# measure FABRIC-SPEC NETFILE ENGINE: one CSV row (routing window: median
# of $repeats runs; everything else from the last run).
measure() {
	spec=$1 net=$2 label=$3
	engine=${label%-noverify}
	conf=/dev/null
	[ "$engine" = "$label" ] || conf=$TMP/noverify.conf
	extra=""
	case $engine in updn|dnup) extra="root_guid_file $TMP/roots" ;; esac
	times=""
	for r in $(seq 1 "$repeats"); do
		name=run-$label-$r
		rm -rf "${TMP:?}/$name"
		IBROUTING_CONF=$conf opensm_run "$name" "$engine" "$extra" || true
		times="$times $(routing_ms "$TMP/$name/osm.log")"
	done
	dir=$TMP/$name
	used=$(sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured on all switches.*/\1/p' "$dir/osm.log" | head -n 1)
	route_ms=$(echo "$times" | tr ' ' '\n' | grep -v '^$' | grep -v '?' | median)
	judge_dump "$dir"
	if [ -f "$dir/verify.out" ]; then
		mkdir -p "$out/paths"
		sed -n 's/^paths     .* (links: flows): \(.*\)/\1  (links: CA pairs)/p' "$dir/verify.out" > "$out/paths/$(echo "$spec" | tr ':=,' '_-_')-$engine.txt"
	fi
	explicit=$(sed -n "s/.*build_lid_matrices: $engine: .* \([0-9]*\) explicit entr\(y\|ies\).*/\1/p" "$dir/osm.log" | head -n 1)
	defaults=$(sed -n "s/.*build_lid_matrices: $engine: .* \([0-9]*\) default ports\{0,1\}.*/\1/p" "$dir/osm.log" | head -n 1)
	[ "$engine" = "$label" ] || used=$used-noverify
	echo "$(echo "$spec" | tr , ';'),$switches,$cas,$label,${used:-none},$route_ms,$findings,$loops,$load,$mean,$dlids,${explicit:-},${defaults:-},$unreachable,$cycles" >> "$csv"
	echo "  $label: used ${used:-none}, ${route_ms} ms, verifier findings $findings ($unreachable unreachable, $cycles CDG cycles), ibdmchk credit loops $loops, max load $load"
}

for spec in $fabrics $big_fabrics; do
	net=$TMP/fabric.net
	"$IBROUTING" generate -o "$net" "$spec"
	switches=$(grep -c '^Switch' "$net")
	cas=$(grep -c '^Ca' "$net")
	# the SM sits on the first node of the file, a switch: the root of all
	grep -m 1 '^switchguid=' "$net" | sed 's/^switchguid=\(0x[0-9a-f]*\).*/\1/' > "$TMP/roots"
	echo "== $spec ($switches switches, $cas CAs)"
	ibsim_start "$net"
	engines="zero-cost $ours $noverify $opensm_engines"
	case " $big_fabrics " in *" $spec "*) engines="zero-cost $ours updn" repeats=1 ;; esac
	case $spec in clos:*) engines="$engines ftree" ;; esac
	for engine in $engines; do
		measure "$spec" "$net" "$engine"
	done
	ibsim_stop
done

# Offline: compute time, peak memory, memset bound.
off=$out/offline.csv
echo "switches,cas,lids,engine,compute_ms,peak_rss_kb,memset_ms,memset_cold_ms" > "$off"
for size in $offline_sizes; do
	sw=${size%%:*} ca=${size##*:}
	lids=$((sw + ca))
	read -r bound cold < <("$TMP/memset_bound" "$sw" $((lids + 1)) 5)
	for engine in $ours; do
		/usr/bin/time -f "%M" -o "$TMP/rss" "$IBROUTING" route -e "$engine" --repeat "$repeats" \
			"gen:random:sw=$sw,ca=$ca,seed=1" > "$TMP/route.out" 2>&1
		ms=$(sed -n 's/^time      \([0-9.]*\) ms.*/\1/p' "$TMP/route.out")
		echo "$sw,$ca,$lids,$engine,$ms,$(tail -n 1 "$TMP/rss"),$bound,$cold" >> "$off"
		echo "offline $sw/$ca $engine: $ms ms (memset bound $bound ms warm, $cold ms cold), peak $(tail -n 1 "$TMP/rss") kB"
	done
done

"$top/bench/report.sh" "$out"

if $smoke; then
	# our engines: used as asked, no finding, no credit loop, on every fabric
	bad=$(awk -F, -v ours="$ours" 'BEGIN { n = split(ours, o, " "); for (i = 1; i <= n; i++) mine[o[i]] = 1 }
		NR > 1 && ($4 in mine) && ($5 != $4 || $7 != "0" || $8 != "0") { print }' "$csv")
	rows=$(awk -F, -v ours="$ours" 'BEGIN { n = split(ours, o, " "); for (i = 1; i <= n; i++) mine[o[i]] = 1 }
		NR > 1 && ($4 in mine)' "$csv" | wc -l)
	if [ -n "$bad" ] || [ "$rows" = 0 ]; then
		echo "bench smoke: our engines failed:"; echo "$bad"
		echo "bench smoke: 0 passed, 1 failed"
		exit 1
	fi
	echo "bench smoke: $rows runs of our engines used as asked, 0 verifier findings, 0 credit loops"
fi
