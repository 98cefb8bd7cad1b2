#!/usr/bin/env bash
# bench_balance.sh - balanced routing: how evenly each engine spreads
# uniform all-to-all traffic, ours and OpenSM's, on fat trees, Clos
# networks, random irregular fabrics and tori, inside stock OpenSM over
# ibsim.  Never a timed test: it measures and reports.
#
#   bench/bench_balance.sh          the full list of fabrics ->
#                                   bench/results/balance.{csv,md} and
#                                   balance_load.png (gnuplot)
#   bench/bench_balance.sh --smoke  two small fabrics, into a temporary
#                                   directory; non-zero if one of our engines
#                                   fell back, or the tables read back from
#                                   the switches have a verifier finding, or
#                                   ibdmchk finds a credit loop (what CI runs)
#   --out DIR                       results into DIR
#   --name NAME                     results in NAME.{csv,md,commit} and
#                                   NAME_load.png (default: balance, or
#                                   topology with --topology)
#   FABRICS=..., COMPARED=...       other fabrics, other engines (labels as
#                                   in $compared below)
#   --topology                      the fabrics `auto` recognises:
#                                   Dragonfly+ intact and damaged,
#                                   Clos and k-ary trees with aggregation
#                                   nodes or hosts on spines, and the real
#                                   captures of tests/fabrics/real ->
#                                   bench/results/topology.{csv,md}
#
# A fabric is a generator SPEC or the path of a topology file (gzip'd or
# not), which ibsim serves as it is.
#
# Per fabric, one ibsim serves it to every engine in turn: ours (pira, fera,
# dr and colorl at `lmc 2`, the hybrid pira+fera), with the plugin's default
# options, and OpenSM's (ftree, updn with its own root detection, updn with
# a root_guid_file naming the switches our engines root at -- fera's root
# set as the plugin logged it: a fat tree's top level, a Clos's spines,
# elsewhere auto's measured switch --, minhop, dnup, dfsssp,
# nue, lash).
# Per run: the engine OpenSM actually used (ftree gives up on degraded
# trees, updn without a root on irregular fabrics, and OpenSM falls back),
# the routing window from OpenSM's log (routing_ms; a hybrid: its first,
# provisional pass), and the tables READ BACK from the switches (dump_fts,
# switch_lfts), judged by `ibrouting verify --lfts` on the fabric of the
# run's dump: our verifier's findings and the max link load under uniform
# all-to-all traffic between CA ports, normalised by hosts - 1 (1.0: no
# link carries more flows than a host's own link), and the bound no
# routing of the fabric goes below.  ftree and updn leave switch-to-switch
# LIDs unrouted, and updn on cut trees leaves switches without hosts
# unable to reach some hosts (findings): the load is measured all the
# same when every CA pair is delivered, else over the pairs delivered
# (the CSV's partial_load, with undelivered_pairs); our engines' root
# set, from the plugin's log (roots_opt), tells the verifier which root
# LIDs owe no route.  dr and colorl: also the load along
# the designated DLIDs hosts get from the SA, as the plugin logs it
# ("max link load N flows along designated DLIDs"); the read-back load is
# along base LIDs.  ibdmchk's credit loops on the run's dump (OpenSM's;
# a hybrid's final pass: the plugin's own, dump_dir, as OpenSM writes its
# dumps at SUBNET UP only, before the final pass).
#
# The fabric is generated with packed LIDs (lmc 0); the engines at lmc 2
# (dr, colorl) run last, OpenSM assigning their LIDs.
set -eu  # no pipefail: e2e_lib.sh's pipelines (switch_lfts's grep) may end non-zero
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
top=$(cd "$(dirname "$0")/.." && pwd)
smoke=false topology=false name=
out=$top/bench/results
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=true; out=$(mktemp -d) ;;
	--out) out=$2; shift ;;
	--topology) topology=true ;;
	--name) name=$2; shift ;;
	*) echo "usage: bench/bench_balance.sh [--smoke] [--topology] [--out DIR] [--name NAME]" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$out"
results=balance
! $topology || results=topology
results=${name:-$results}
git -C "$top" rev-parse --short HEAD > "$out/$results.commit" 2>/dev/null || true
build=${BUILD_DIR:-$top/build}
[ -x "$build/ibrouting" ] && [ -f "$build/.libs/libibrouting.so" ] || {
	echo "bench_balance.sh: build first (scripts/run-tests.sh or make in $build)" >&2; exit 2; }
export IBROUTING=$build/ibrouting PLUGIN_DIR=$build/.libs FABRICS_DIR=$top/tests/fabrics
. "$top/tests/lib.sh"
. "$top/tests/e2e_lib.sh"
e2e_requirements
started=$(date +%s)

# the plugin's default options: an empty options file (/dev/null is
# refused with ERR IB30; unset reads an installed one if there is one)
: > "$TMP/defaults.conf"

ours="pira fera dr colorl pira+fera"
# (not $engines: opensm_run sets it)
compared=${COMPARED:-"pira fera pira+fera ftree updn updn-rootfile minhop dnup dfsssp nue lash dr colorl"}

# links SPEC: the inter-switch links of a generated fabric
links() {
	"$IBROUTING" generate "$1" | awk '/^Switch/ { sw = 1; next } /^$/ { sw = 0 }
		sw && /^\[[0-9]+\][ \t]+"S-/ { n++ } END { print n / 2 }'
}

if $smoke; then
	fabrics="kary:k=4,n=3,cut=2,seed=1 clos:leaf=8,spine=4,uplinks=1,oversub=2"
elif $topology; then
	real=$top/tests/fabrics/real
	df=dfplus:groups=9,leaves=4,spines=4,global=2
	fabrics="$df $df,isolate=2,seed=1 $df,down=2,seed=1 $df,cut=6,seed=1"
	fabrics="$fabrics dfplus:groups=16,leaves=6,spines=6 dfplus:groups=16,leaves=6,spines=6,isolate=3,down=2,seed=1"
	fabrics="$fabrics clos:leaf=16,spine=8,ca=256,agg=1 clos:leaf=16,spine=8,ca=256,spinehosts=2"
	fabrics="$fabrics kary:k=4,n=3,agg=1 kary:k=8,n=3,agg=1,cut=6,seed=1"
	fabrics="$fabrics $real/loginoff-2014-fdr.topo $real/topograph-dgx-ndr.topo.gz $real/selene-storage.topo.gz"
else
	fabrics=""
	for k in 4 8; do
		for n in 2 3; do
			base=kary:k=$k,n=$n
			l=$(links "$base")
			c1=$(awk -v l="$l" 'BEGIN { c = int(l / 100 + 0.5); print c < 1 ? 1 : c }')
			c3=$(awk -v l="$l" 'BEGIN { c = int(3 * l / 100 + 0.5); print c < 1 ? 1 : c }')
			fabrics="$fabrics $base $base,cut=$c1,seed=1"
			[ "$c3" = "$c1" ] || fabrics="$fabrics $base,cut=$c3,seed=1"
			fabrics="$fabrics $base,down=1,seed=1"
		done
	done
	fabrics="$fabrics clos:leaf=16,spine=8,uplinks=1,oversub=1 clos:leaf=16,spine=8,uplinks=1,oversub=2"
	fabrics="$fabrics random:sw=64,ca=512,seed=1 random:sw=256,ca=4096,seed=1"
	fabrics="$fabrics torus:dims=4x4x4,ca=2,broken=6,seed=1"
	# the issue's own table: an 8-ary 3-tree with 6 links cut, a Clos of
	# 24 leaves x 12 spines with 16 hosts a leaf
	fabrics="$fabrics kary:k=8,n=3,cut=6,seed=1 clos:leaf=24,spine=12,ca=384"
fi
fabrics=${FABRICS:-$fabrics}

csv=$out/$results.csv
echo "fabric,switches,hosts,engine,used,route_ms,max_link_load,load_norm,designated_load,designated_norm,credit_loops,findings,partial_load,partial_norm,undelivered_pairs,bound,bound_norm" > "$csv"

# readback NAME (tests/e2e_lib.sh): the tables the switches hold, judged
# by `ibrouting verify --lfts` (see the top).
readback_and_clean() {
	readback "$1"
	rm -f "$TMP/$1"/*.fts "$TMP/$1"/*.lft
}

# norm LOAD HOSTS: LOAD / (HOSTS - 1)
norm() {
	awk -v l="$1" -v h="$2" 'BEGIN { if (l ~ /^[0-9]+$/ && h > 1) printf "%.3f", l / (h - 1); else print "?" }'
}

# hybrid_run NAME ENGINE: a hybrid needs OpenSM running for its final
# pass: a daemon, stopped once the final pass's INFO line (no "step") is
# followed by REROUTE COMPLETE (300 s at most; "used" then says so).  The
# plugin dumps every pass into $TMP/NAME/dump (OpenSM writes its own at
# SUBNET UP only, the provisional tables).
hybrid_run() {
	local d=$TMP/$1 final done=false
	mkdir -p "$d/dump"
	printf 'dump_dir %s/dump\n' "$d" > "$d/plugin.conf"
	IBROUTING_CONF=$d/plugin.conf OSM_DEBUG=0x07 opensm_daemon "$d" "$2" || true
	final="${2//+/[+]}: final pass [(][a-z]+[)]: [0-9]+ switches"
	! osm_wait 300 pushed_after "$d/osm.log" "$final" || done=true
	opensm_stop
	$done || echo "no final pass" > "$d/nofinal"
}

# measure SPEC LABEL: one run of engine LABEL, one CSV row
measure() {
	local spec=$1 label=$2 engine extra="" name dir used ms des=""
	engine=${label%-rootfile}
	# updn with a root file naming the switches our engines root at: fera's
	# root set as the plugin logged it (roots_opt), else the file's guess
	[ "$label" != updn-rootfile ] || [ ! -s "$TMP/run-fera/roots.guid" ] ||
		cp "$TMP/run-fera/roots.guid" "$TMP/roots"
	case $label in
	updn-rootfile) extra="root_guid_file $TMP/roots" ;;
	dr|colorl) extra="lmc 2" ;;
	esac
	name=run-$(echo "$label" | tr '+' '_')
	dir=$TMP/$name
	rm -rf "$dir"
	case $engine in
	*+*)	hybrid_run "$name" "$engine"
		sed '/tables configured on all switches/q' "$dir/osm.log" > "$dir/first.log"
		ms=$(routing_ms "$dir/first.log") ;;
	*)	IBROUTING_CONF=$TMP/defaults.conf opensm_run "$name" "$engine" "$extra" || true
		ms=$(routing_ms "$dir/osm.log") ;;
	esac
	used=$(sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured on all switches.*/\1/p' "$dir/osm.log" | head -n 1)
	[ ! -f "$dir/nofinal" ] || used="$used (no final pass)"
	case $engine in dr|colorl)
		des=$(sed -n "s/.*build_lid_matrices: $engine: .*max link load \([0-9]*\) flows along designated DLIDs.*/\1/p" "$dir/osm.log" | head -n 1) ;;
	esac
	judge_dump "$dir"
	readback_and_clean "$name"
	if [ "$label" = updn-rootfile ]; then used=${used:+$used-rootfile}; fi
	echo "$(echo "$spec" | tr , ';'),$switches,$hosts,$label,${used:-none},$ms,$rb_load,$(norm "$rb_load" "$hosts"),$des,$([ -z "$des" ] || norm "$des" "$hosts"),$loops,$rb_findings,$rb_partial,$([ -z "$rb_partial" ] || norm "$rb_partial" "$hosts"),$rb_undelivered,$rb_bound,$(norm "$rb_bound" "$hosts")" >> "$csv"
	echo "  $label: used ${used:-none}, $ms ms, max link load $rb_load ($(norm "$rb_load" "$hosts"))${des:+, along designated DLIDs $des ($(norm "$des" "$hosts"))}, credit loops $loops, verifier findings $rb_findings$([ -z "$rb_partial" ] || echo ", over delivered pairs only $rb_partial ($rb_undelivered pairs not delivered)")"
	# ibsim served a broken fabric (seen after runs at high LMC): afresh
	if [ "$rb_hosts" != "$hosts" ]; then
		echo "  (OpenSM saw $rb_hosts of $hosts CA ports: ibsim restarted)"
		ibsim_stop
		ibsim_start "$net"
	fi
	rm -rf "$dir/dump" "$dir/cache"
}

for spec in $fabrics; do
	net=$TMP/fabric.net
	case $spec in
	*.gz) gzip -dc "$spec" > "$net"; spec=$(basename "$spec" .gz) ;;
	*/*) cp "$spec" "$net"; spec=$(basename "$spec") ;;
	*) "$IBROUTING" generate -o "$net" "$spec" ;;
	esac
	# the counts as the tool reads the file (a capture's CAs may declare
	# ports that are not cabled)
	set -- $("$IBROUTING" route -e pira "$net" 2>/dev/null |
		sed -n 's/^fabric .*: \([0-9]*\) switches, \([0-9]*\) CA ports.*/\1 \2/p')
	switches=${1:-?} hosts=${2:-?}
	# the top level: a fat tree's level 0, a Clos's spines; else the
	# SM's switch (the first node of the file)
	awk '/^switchguid=/ { g = substr($1, 12) } /^Switch.*"(kary L0 |spine[0-9]+")/ { print g }' "$net" > "$TMP/roots"
	[ -s "$TMP/roots" ] || grep -m 1 '^switchguid=' "$net" | sed 's/^switchguid=\(0x[0-9a-f]*\).*/\1/' > "$TMP/roots"
	echo "== $spec ($switches switches, $hosts hosts, root file: $(wc -l < "$TMP/roots") switches)"
	ibsim_start "$net"
	for engine in $compared; do
		measure "$spec" "$engine"
	done
	ibsim_stop
done

# The tables: normalised loads, fabrics by engines, then every run.
{
	echo "Max link load under uniform all-to-all traffic between CA ports, normalised"
	echo "by hosts - 1, of the tables read back from the switches (dr, colorl: along"
	echo "the designated DLIDs, base LIDs in brackets).  \`*\`: OpenSM used another"
	echo "engine (named in the table below); \`!\`: ibdmchk found credit loops; ?: some"
	echo "walk of the tables read back is not delivered (CA LIDs unreachable from some"
	echo "switch) and no CA pair's flow can be measured; \`~\`: some CA pairs are not"
	echo "delivered (the second table counts them), the load is over the pairs that"
	echo "are.  bound: the load no routing of the fabric goes below (a host's own"
	echo "link carries hosts - 1 flows; a switch with h hosts sends h * (hosts - h)"
	echo "flows out over its inter-switch links)."
	echo "Measured with \`bench/bench_balance.sh\` at commit $(cat "$out/$results.commit" 2>/dev/null || echo "?")."
	echo
	awk -F, -v list="$compared" 'BEGIN { n = split(list, e, " ")
			printf "| fabric | switches | hosts | bound |"; for (i = 1; i <= n; i++) printf " %s |", e[i]; printf "\n"
			printf "| --- | ---: | ---: | ---: |"; for (i = 1; i <= n; i++) printf " ---: |"; printf "\n" }
		NR > 1 { if (!($1 in seen)) { seen[$1] = 1; order[++m] = $1; sw[$1] = $2; h[$1] = $3 }
			if ($17 != "" && $17 != "?") b[$1] = $17
			v = ($10 != "?" && $10 != "") ? $10 " (" $8 ")" : ($8 == "?" && $14 != "") ? $14 "~" : $8
			if ($5 != $4) v = v "*"; if ($11 != "0" && $11 != "?") v = v "!"
			cell[$1, $4] = v }
		END { for (j = 1; j <= m; j++) { f = order[j]; printf "| %s | %s | %s | %s |", f, sw[f], h[f], (f in b) ? b[f] : "?"
			for (i = 1; i <= n; i++) printf " %s |", ((f, e[i]) in cell) ? cell[f, e[i]] : ""
			printf "\n" } }' "$csv"
	echo
	echo "| fabric | switches | hosts | engine | used by OpenSM | routing window ms | max link load | normalised | along designated DLIDs | normalised | ibdmchk credit loops | verifier findings (read back) | over delivered pairs only | normalised | CA pairs not delivered | bound | normalised |"
	echo "| --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk -F, 'NR > 1 { printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n" }' "$csv"
} > "$out/$results.md"

# The plot: normalised load per fabric, one series per engine.
if command -v gnuplot >/dev/null; then
	# x: the fabric's index, each engine a little aside, in list order
	awk -F, -v list="$compared" 'BEGIN { k = split(list, e, " "); for (i = 1; i <= k; i++) at[e[i]] = i }
		NR > 1 { if (!($1 in idx)) idx[$1] = ++n
		v = ($10 != "?" && $10 != "") ? $10 : $8
		if (v != "?") printf "%.3f %s %s\n", idx[$1] + (at[$4] - (k + 1) / 2) * 0.6 / k, $4, v }' "$csv" > "$out/${results}_load.dat"
	xtics=$(awk -F, 'NR > 1 && !($1 in s) { s[$1] = ++n; l = $1; gsub(/;seed=1/, "", l); gsub(/;/, ",", l)
		printf "%s\"%s\" %d", (n > 1 ? ", " : ""), l, n }' "$csv")
	plots=""
	for e in $compared; do
		plots="$plots${plots:+, }'< awk \"\\\$2 == \\\"$e\\\"\" $out/${results}_load.dat' using 1:3 with points pointsize 1.3 title '$e'"
	done
	gnuplot <<GP || echo "bench_balance: gnuplot failed"
set terminal pngcairo size 1400,700 noenhanced
set output '$out/${results}_load.png'
set title 'max link load / (hosts - 1), uniform all-to-all, tables read back from the switches (dr, colorl: designated DLIDs)'
set ylabel 'normalised max link load'; set logscale y; set grid
set key outside right top
set xtics ($xtics) rotate by -40 font ',8'
set xrange [0.5:$(awk -F, 'NR > 1 && !($1 in s) { s[$1] = 1; n++ } END { print n + 0.5 }' "$csv")]
plot $plots
GP
fi
cat "$out/$results.md"
echo "bench_balance: $(($(date +%s) - started)) s; results in $out"

if $smoke; then
	bad=$(awk -F, -v ours="$ours" 'BEGIN { n = split(ours, o, " "); for (i = 1; i <= n; i++) mine[o[i]] = 1 }
		NR > 1 && ($4 in mine) && ($5 != $4 || $11 != "0" || $12 != "0") { print }' "$csv")
	rows=$(awk -F, -v ours="$ours" 'BEGIN { n = split(ours, o, " "); for (i = 1; i <= n; i++) mine[o[i]] = 1 }
		NR > 1 && ($4 in mine)' "$csv" | wc -l)
	if [ -n "$bad" ] || [ "$rows" = 0 ]; then
		echo "bench_balance smoke: our engines failed (fallback, verifier finding or credit loop):"; echo "$bad"
		exit 1
	fi
	echo "bench_balance smoke: $rows runs of our engines used as asked, 0 verifier findings, 0 credit loops"
fi
