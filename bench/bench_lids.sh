#!/usr/bin/env bash
# bench_lids.sh - the LID assignment paper's tables on our generator
# (lid-assignment-color-l §VI), next to the paper's own numbers.  Never a
# timed test: it measures and reports.
#
#   bench/bench_lids.sh [--seeds N] [--out DIR]   -> bench/results/lids.md (+ .csv)
#   bench/bench_lids.sh --smoke                   one small configuration
#
# Tables I and II: total LIDs allocated (2^ceil(lg k) per machine) by
# every heuristic, for paths by shortest-widest and by path selection, on
# random irregular fabrics X machines / Y switches (average switch degree
# 8, machines spread uniformly, 48-port switches: 512/16 needs 40), the
# mean over N seeds (the paper: 32).
# Tables III and IV: greedy, color/L and the exact ILP (GLPK, a time limit
# per destination; a destination that runs out keeps the best heuristic's
# answer and is counted) on the smaller configurations.  Table VI: max link load
# (normalised: every machine sends 1 in all) and LIDs of SRD-like routing
# (our fera: one LID per machine), destination renaming (our dr; its LIDs
# count FERa's base tree as one configuration) and "separate" (path
# selection + color/L).  The fat tree and tori of §VI-C: every heuristic
# and the ILP on an 8-port 3-tree and on 16x8 / 8x4x4 tori with 0..4
# broken links (up*/down* paths: the paper routes tori by dimension order,
# so its torus figures are not ours to match).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
seeds=4 smoke=false out=$top/bench/results
while [ $# -gt 0 ]; do
	case $1 in
	--seeds) seeds=$2; shift ;;
	--smoke) smoke=true; out=$(mktemp -d) ;;
	--out) out=$2; shift ;;
	*) echo "usage: bench/bench_lids.sh [--seeds N] [--smoke] [--out DIR]" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build=${BUILD_DIR:-$top/build}
ibr=$build/ibrouting
# its lines read whole, not folded at 100 columns (ibrouting(1))
export IBROUTING_WIDTH=0
[ -x "$ibr" ] || { echo "bench_lids.sh: build first ($ibr)" >&2; exit 2; }
git -C "$top" rev-parse --short HEAD > "$out/lids.commit" 2>/dev/null || true

if $smoke; then
	seeds=1
	big="128/16" small="64/16"
else
	big="128/16 256/16 512/16 128/32 256/32 512/32 128/64 256/64 512/64"
	small="64/16 128/16 192/16 64/32 128/32 192/32 64/64 128/64 192/64"
fi
csv=$out/lids.csv
echo "table,config,seed,scheme,heuristic,lids,exact,load" > "$csv"

# parse TABLE CONFIG SEED < `ibrouting lids` output: CSV rows
# "table,config,seed,scheme,heuristic,lids,exact,load" (portable awk).
parse() {
	awk -v t="$1" -v c="$2" -v s="$3" '
		/^paths / { scheme = $2; sub(/:$/, "", scheme)
			for (i = 1; i <= NF; i++) if ($i == "per") load[scheme] = substr($(i - 1), 2) }
		/^lids / { scheme = $2; sub(/:$/, "", scheme)
			line = $0; sub(/^lids +[^:]*: /, "", line)
			n = split(line, item, ", ")
			for (i = 1; i <= n; i++) {
				split(item[i], w, " "); exact = ""
				if (item[i] ~ /exact/) { exact = item[i]; sub(/.*exact /, "", exact); sub(/ of.*/, "", exact) }
				printf "%s,%s,%s,%s,%s,%s,%s,%s\n", t, c, s, scheme, w[1], w[2], exact, load[scheme]
			} }'
}

# study TABLE CONFIG SEED HEURISTICS: `ibrouting lids` on one random
# fabric X machines / Y switches, rows into the CSV.
study() {
	local table=$1 conf=$2 seed=$3 heur=$4 ca sw
	ca=${conf%/*} sw=${conf#*/}
	"$ibr" lids --heuristics "$heur" --ilp-seconds "$ilp_seconds" \
		"gen:random:sw=$sw,ca=$ca,ports=48,seed=$seed" | parse "$table" "$conf" "$seed" >> "$csv"
}

ilp_seconds=2
for conf in $big; do
	for seed in $(seq 1 "$seeds"); do
		study I-II "$conf" "$seed" "greedy,split-merge/S,split-merge/L,color/S,color/L"
	done
	echo "tables I-II: $conf, $seeds seeds"
done
for conf in $small; do
	for seed in $(seq 1 "$seeds"); do
		study III-IV "$conf" "$seed" "greedy,color/L,ilp"
	done
	echo "tables III-IV: $conf, $seeds seeds"
done

# Table VI: load and LIDs of fera (SRD-like), dr and separate (path
# selection + color/L, from the rows above) on the configurations of
# Tables I-II.  dr routes with LMC 4 (16 LIDs a machine; its LIDs needed
# are counted without a limit anyway).
vi=$out/lids-vi.csv
echo "config,seed,engine,load,lids" > "$vi"
for conf in $big; do
	ca=${conf%/*} sw=${conf#*/}
	for seed in $(seq 1 "$seeds"); do
		for engine in fera dr; do
			"$ibr" route -v -e "$engine" --lmc 4 "gen:random:sw=$sw,ca=$ca,ports=48,seed=$seed" > "$tmp/route.out"
			load=$(sed -n 's/^load      max link load \([0-9]*\) flows.*/\1/p' "$tmp/route.out")
			lids=$(sed -n 's/^engine .* \([0-9]*\) CA LIDs\{0,1\} needed.*/\1/p' "$tmp/route.out")
			echo "$conf,$seed,$engine,$(awk -v l="$load" -v n="$ca" 'BEGIN { printf "%.2f", l / (n - 1) }'),${lids:-$ca}" >> "$vi"
		done
	done
done

# Regular and near-regular fabrics (§VI-C): every heuristic and the ILP.
reg=$out/lids-regular.csv
echo "fabric,broken,scheme,heuristic,lids,exact" > "$reg"
if $smoke; then regular="fattree:ports=8,levels=3"; else
	regular="torus:dims=16x8,ca=1 torus:dims=8x4x4,ca=1 fattree:ports=8,levels=3"; fi
for base in $regular; do
	for broken in 0 1 2 3 4; do
		"$ibr" lids --heuristics all --ilp-seconds "$ilp_seconds" "gen:$base,broken=$broken,seed=1" |
			parse regular "$(echo "$base" | tr , ';')" "$broken" |
			awk -F, '{ printf "%s,%s,%s,%s,%s,%s\n", $2, $3, $4, $5, $6, $7 }' >> "$reg"
		$smoke && break
	done
	echo "regular: $base, broken 0..4"
done

"$top/bench/lids_report.sh" "$out"
