#!/usr/bin/env bash
# bench_lmc.sh - the multi-LID engines (dr, colorl) against fera, updn,
# minhop and dfsssp, inside OpenSM over ibsim, on the same fabrics and LMC
# in one run.  Never a timed test: it measures and reports.
#
#   bench/bench_lmc.sh          random 64 switches / 512 CAs (3 seeds) at LMC
#                               1, 2, 3 and 256 / 4096 (1 seed) at LMC 2 and
#                               3, plus updn at LMC 0 on each ->
#                               bench/results/lmc.csv, lmc.md, plots
#   bench/bench_lmc.sh --smoke  one small fabric at LMC 2, into a temporary
#                               directory; non-zero if dr or colorl fell back
#                               to another engine or has a verifier finding
#                               or a credit loop
#
# Per (fabric, LMC, engine): OpenSM's routing window from its own log (the
# plugin writing no dumps of its own: dr is run a second time with them),
# the engine OpenSM used, `ibrouting verify` on OpenSM's dumps (with the
# plugin's ibrouting-dlids.dump beside them for dr and colorl, so flows
# follow the designated DLIDs hosts get from the SA; OpenSM's engines and
# fera are measured on base LIDs, what their hosts use): max link load,
# mean path, findings; ibdmchk's credit loops (base LIDs); and from the
# engine's log line the CA LIDs it would need without a limit, renamed
# LIDs, and the pairs off their chosen path (dr: fallback pairs, colorl:
# pairs moved).  updn and dnup need a root: the SM's switch, as ours take
# by default.  Fabrics are generated with their LIDs aligned to the LMC
# (the small ones to 8, for every LMC in one ibsim), so that OpenSM keeps
# them (unaligned ones fragment the LID space: at 4096 CAs and LMC 3
# OpenSM runs out of LIDs); updn at LMC 0 runs on the fabric as
# generated, LIDs packed.
set -euo pipefail
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
top=$(cd "$(dirname "$0")/.." && pwd)
smoke=false
out=$top/bench/results
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=true; out=$(mktemp -d) ;;
	--out) out=$2; shift ;;
	*) echo "usage: bench/bench_dr.sh [--smoke] [--out DIR]" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$out"
git -C "$top" rev-parse --short HEAD > "$out/lmc.commit" 2>/dev/null || true
build=${BUILD_DIR:-$top/build}
[ -x "$build/ibrouting" ] && [ -f "$build/.libs/libibrouting.so" ] || {
	echo "bench_lmc.sh: build first (scripts/run-tests.sh or make in $build)" >&2; exit 2; }
export IBROUTING=$build/ibrouting PLUGIN_DIR=$build/.libs FABRICS_DIR=$top/tests/fabrics
. "$top/tests/lib.sh"
. "$top/tests/e2e_lib.sh"
e2e_requirements

if $smoke; then
	runs="random:sw=16,ca=128,seed=1@2"
else
	runs=""
	for seed in 1 2 3; do
		for lmc in 1 2 3; do runs="$runs random:sw=64,ca=512,seed=$seed@$lmc"; done
	done
	runs="$runs random:sw=256,ca=4096,seed=1@2 random:sw=256,ca=4096,seed=1@3"
fi
# RUNS="SPEC@LMC ..." replaces the runs, APPEND=1 adds their rows to an
# existing lmc.csv (to redo part of a run); the tables and plots are made
# from the whole CSV.
runs=${RUNS:-$runs}
# (opensm_run sets $engines)
# COMPARED="ENGINE ..." replaces the engines (pira too: every engine)
compared=${COMPARED:-dr colorl fera updn minhop dfsssp}
csv=$out/lmc.csv
[ "${APPEND:-}" = 1 ] && [ -f "$csv" ] ||
	echo "fabric,lmc,engine,used,route_ms,findings,credit_loops,max_link_load,mean_path,ca_lids_needed,ca_lids_available,renamed_lids,pairs_off_path" > "$csv"

# field ENGINE NAME LOGFILE: the counter "N NAME" of ENGINE's INFO line
# field ENGINE 'NAME|SINGULAR' LOG: a figure of the engine's INFO line
# (a count of 1 takes the singular)
field() { sed -nE "s/.*build_lid_matrices: $1: .* ([0-9]+) ($2)[,)].*/\1/p" "$3" | head -n 1; }

measure() {
	local spec=$1 lmc=$2 engine=$3 name dir extra used ms
	local needed renamed off
	name=$(echo "$spec-$lmc-$engine" | tr ':=,' '___')
	dir=$TMP/$name
	extra="lmc $lmc"
	case $engine in updn|dnup) extra="$extra
root_guid_file $TMP/roots" ;; esac
	# the timed run: no plugin dumps (writing them is not routing); on the
	# big fabric no OpenSM dumps either (hundreds of MB at LMC 2 and 3:
	# loads are measured offline there, see below)
	if $big; then
		OSM_DEBUG=0x07 IBROUTING_CONF=/dev/null opensm_run "$name" "$engine" "$extra" || true
	else
		IBROUTING_CONF=/dev/null opensm_run "$name" "$engine" "$extra" || true
	fi
	used=$(sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured on all switches.*/\1/p' "$dir/osm.log" | head -n 1)
	ms=$(routing_ms "$dir/osm.log")
	if ! $big && { [ "$engine" = dr ] || [ "$engine" = colorl ]; }; then
		# once more with the plugin's dumps, for the designated DLIDs
		mkdir -p "$dir-dumps/ibr"
		printf 'dump_dir %s/ibr\n' "$dir-dumps" > "$TMP/plugin.conf"
		mv "$dir/osm.log" "$TMP/timed.log"
		rm -rf "$dir"
		IBROUTING_CONF=$TMP/plugin.conf opensm_run "$name" "$engine" "$extra" || true
		mv "$dir-dumps/ibr" "$dir/ibr"
		rm -rf "$dir-dumps"
		mv "$TMP/timed.log" "$dir/osm.log"
	fi
	[ ! -f "$dir/ibr/ibrouting-dlids.dump" ] || [ ! -d "$dir/dump" ] ||
		mv "$dir/ibr/ibrouting-dlids.dump" "$dir/dump/"
	judge_dump "$dir"
	needed="" renamed="" off=""
	case $engine in
	dr|colorl)
		needed=$(field "$engine" "CA LIDs needed|CA LID needed" "$dir/osm.log")
		renamed=$(field "$engine" "renamed LIDs|renamed LID" "$dir/osm.log")
		off=$(field "$engine" "$([ "$engine" = dr ] && echo "fallback pairs|fallback pair" || echo "pairs moved|pair moved")" "$dir/osm.log") ;;
	esac
	echo "$(echo "$spec" | tr , ';'),$lmc,$engine,${used:-none},$ms,$findings,$loops,$load,$mean,$needed,$((cas << lmc)),$renamed,$off" >> "$csv"
	echo "  lmc $lmc $engine: used ${used:-none}, $ms ms, findings $findings, credit loops $loops, max load $load, mean path $mean${needed:+, CA LIDs needed $needed of $((cas << lmc)), pairs off their path $off}"
	# the dumps of the big fabrics run to hundreds of MB
	rm -rf "$dir/dump" "$dir/ibr"
}

last=""
for run in $runs; do
	spec=${run%@*} lmc=${run#*@}
	big=false
	case $spec in *sw=256,*) big=true ;; esac
	# ibsim afresh for every fabric, and on the big one for every run
	# (below): after a few runs at LMC 3 there ibsim served a broken
	# fabric
	if [ "$spec" != "$last" ] || $big; then
		[ -z "$last" ] || ibsim_stop
		net=$TMP/fabric.net
		if [ "$spec" != "$last" ]; then
			# updn at LMC 0 on the fabric as generated (LIDs packed)
			"$IBROUTING" generate -o "$net" "$spec"
			cas=$(grep -c '^Ca' "$net")
			grep -m 1 '^switchguid=' "$net" | sed 's/^switchguid=\(0x[0-9a-f]*\).*/\1/' > "$TMP/roots"
			echo "== $spec ($cas CAs)"
			ibsim_start "$net"
			measure "$spec" 0 updn
			ibsim_stop
		fi
		# the small fabrics serve every LMC with LIDs aligned to 8; the
		# big one has LIDs aligned to its LMC (not wider: the LFTs
		# OpenSM pushes run to the highest LID)
		"$IBROUTING" generate --lmc "$($big && echo "$lmc" || echo 3)" -o "$net" "$spec"
		ibsim_start "$net"
		last=$spec
	fi
	first=true
	for engine in $compared; do
		# the big fabric: ibsim afresh for every run too (after three
		# runs at LMC 3 it served a handful of nodes to the next)
		if $big && ! $first; then
			ibsim_stop
			ibsim_start "$net"
		fi
		first=false
		measure "$spec" "$lmc" "$engine"
	done
	# the big fabric: our engines' loads offline, on the same fabric file
	# (its LIDs, LMC 3, the lowest-LID root) along their designated DLIDs
	if $big && [ "$lmc" = 3 ]; then
		for engine in dr colorl fera; do
			"$IBROUTING" route -e "$engine" "$net" > "$TMP/offline.out"
			load=$(sed -n 's/^load      max link load \([0-9]*\) flows.*/\1/p' "$TMP/offline.out")
			mean=$(sed -n 's/.*mean path \([0-9.]*\) links.*/\1/p' "$TMP/offline.out")
			echo "$(echo "$spec" | tr , ';'),3,$engine (offline),offline,?,$(grep -q '^verify    OK' "$TMP/offline.out" && echo 0 || echo ?),?,$load,$mean,,,," >> "$csv"
			echo "  offline $engine: max load $load, mean path $mean"
		done
	fi
done
ibsim_stop

# The table: ratios against fera and updn of the same fabric and LMC, and
# against updn at LMC 0 for the window.
{
	echo "| fabric | LMC | engine | used | routing window ms | / updn same LMC | / updn LMC 0 | max link load | / fera | mean path | CA LIDs needed (available) | renamed LIDs | pairs off their path | findings | credit loops |"
	echo "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk -F, 'NR > 1 { row[NR] = $0; k = $1 SUBSEP $2
		if ($3 == "updn") updn[k] = $5 + 0; if ($3 == "fera") fera[k] = $8 + 0
		if ($3 == "fera (offline)") fera_off[k] = $8 + 0
		if ($3 == "updn" && $2 == 0) updn0[$1] = $5 + 0 }
	END { for (i = 2; i <= NR; i++) { split(row[i], f, ","); k = f[1] SUBSEP f[2]
		ref = f[3] ~ /offline/ ? fera_off[k] : fera[k]
		r1 = (updn[k] > 0 && f[5] + 0 > 0) ? sprintf("%.3f", f[5] / updn[k]) : "-"
		r0 = (updn0[f[1]] > 0 && f[5] + 0 > 0) ? sprintf("%.3f", f[5] / updn0[f[1]]) : "-"
		rl = (ref > 0 && f[8] + 0 > 0) ? sprintf("%.3f", f[8] / ref) : "-"
		lids = f[10] != "" ? f[10] " (" f[11] ")" : ""
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			f[1], f[2], f[3], f[4], f[5], r1, r0, f[8], rl, f[9], lids, f[12], f[13], f[6], f[7] } }' "$csv"
} > "$out/lmc.md"
cat "$out/lmc.md"

# Plots (when gnuplot is there): per (fabric, LMC), max link load against
# fera's and the routing window against updn's at LMC 0.
engines_plotted="dr colorl fera updn minhop dfsssp"
awk -F, -v list="$engines_plotted" 'BEGIN { n = split(list, e, " ") }
	NR > 1 { k = $1 SUBSEP $2; key[k] = 1
		load[k, $3] = $8; win[k, $3] = $5
		if ($3 == "fera") fera[k] = $8; if ($3 == "updn" && $2 == 0) u0[$1] = $5 }
	END { for (k in key) { split(k, p, SUBSEP); if (p[2] == 0) continue
		label = p[1] "@" p[2]; gsub(/random:sw=/, "", label); gsub(/;ca=/, "/", label); gsub(/;seed=/, "s", label)
		printf "%s", label
		for (i = 1; i <= n; i++)
			printf " %s", (fera[k] > 0 && load[k, e[i]] != "" && load[k, e[i]] != "?") ? load[k, e[i]] / fera[k] : "?"
		for (i = 1; i <= n; i++)
			printf " %s", (u0[p[1]] > 0 && win[k, e[i]] != "?" && win[k, e[i]] != "") ? win[k, e[i]] / u0[p[1]] : "?"
		printf "\n" } }' "$csv" | sort -V > "$out/lmc.dat"
# the load chart only when some load was measured (at 256 switches alone,
# RUNS=..., none is: gnuplot refuses a chart of no point)
load_plot=""
if awk '{ for (i = 2; i <= 7; i++) if ($i != "?") found = 1 } END { exit !found }' "$out/lmc.dat" 2>/dev/null; then
	load_plot="set output '$out/lmc_load.png'
set title 'max link load against fera on the same fabric and LMC (uniform all-to-all along the DLIDs hosts get)'
set ylabel 'max link load / fera'; set yrange [0:*]
plot '$out/lmc.dat' using 2:xtic(1) title 'dr', '' using 3 title 'colorl', '' using 4 title 'fera', '' using 5 title 'updn', '' using 6 title 'minhop', '' using 7 title 'dfsssp'"
fi
if command -v gnuplot >/dev/null && [ -s "$out/lmc.dat" ]; then
	gnuplot <<GP
set terminal pngcairo size 1100,540 noenhanced
set style data histograms; set style histogram clustered; set style fill solid 0.7
set boxwidth 0.9; set grid y; set key outside right top; set xtics rotate by -30
set datafile missing '?'
$load_plot
set output '$out/lmc_window.png'
set title 'routing window inside OpenSM against updn at LMC 0 on the same fabric'
set ylabel 'window / updn at LMC 0'; set logscale y; set yrange [*:*]
plot '$out/lmc.dat' using 8:xtic(1) title 'dr', '' using 9 title 'colorl', '' using 10 title 'fera', '' using 11 title 'updn', '' using 12 title 'minhop', '' using 13 title 'dfsssp'
GP
fi

if $smoke; then
	bad=$(awk -F, 'NR > 1 && ($3 == "dr" || $3 == "colorl") && ($4 != $3 || $6 != "0" || $7 != "0")' "$csv")
	rows=$(awk -F, 'NR > 1 && ($3 == "dr" || $3 == "colorl")' "$csv" | wc -l)
	if [ -n "$bad" ] || [ "$rows" -lt 2 ]; then
		echo "bench_lmc smoke: dr or colorl failed: $bad"
		exit 1
	fi
	echo "bench_lmc smoke: dr and colorl used as asked, 0 verifier findings, 0 credit loops"
fi
