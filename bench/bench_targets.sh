#!/usr/bin/env bash
# bench_targets.sh - issue 20's offline targets, measured as the issue
# words them: "in the same run", on this machine, with its core count.
#
# On a shared machine one run of each engine is no finer than the
# machine's noise.  So the engines run in rounds, process by
# process and interleaved (per round: every fabric, every thread count,
# fera `lowest`, fera, dr, colorl in turn), and every ratio is taken
# within one round, between runs seconds apart; the report gives each
# round's figure, the median, and in how many rounds the target held.
# Never a timed test: it measures and reports.
#
#   bench/bench_targets.sh --smoke  random 16 / 64 and 24 / 96, one
#       round, into a temporary file: every engine routes and verifies and
#       every figure of the report is there (CI; the figures mean nothing)
#   bench/bench_targets.sh [--rounds N]       (default 3)
#                          [--no-2048]        (1024 switches only: a
#                                              shorter round)
#                          [--mid SPEC] [--large SPEC]  (other fabrics
#                                              for the two sizes, for a
#                                              quick look: the targets
#                                              are the issue's at the
#                                              defaults below)
#                          [--ibrouting PATH --label TEXT]
#                          [--out FILE]       (default
#                                              bench/results/targets.md)
#
# Fabrics: gen:random:sw=1024,ca=16384,seed=1 at LMC 1 (the most the LID
# space holds at 16384 CAs), threads 1 and 2; gen:random:sw=2048,
# ca=32768,seed=1 at LMC 0 (path selection and colouring computed and
# reported; the tables are FERa's base), threads 2.  Compute: the
# engine's `time` line; peak RSS: GNU time's %M of the whole process.
set -euo pipefail
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
top=$(cd "$(dirname "$0")/.." && pwd)
ibr=${BUILD_DIR:-$top/build}/ibrouting
rounds=3
smoke=false
big=true
out=$top/bench/results/targets.md
mid=gen:random:sw=1024,ca=16384,seed=1
large=gen:random:sw=2048,ca=32768,seed=1
label="commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=true; rounds=1; mid=gen:random:sw=16,ca=64,seed=1
		large=gen:random:sw=24,ca=96,seed=1 ;;
	--rounds) rounds=$2; shift ;;
	--no-2048) big=false ;;
	--mid) mid=$2; shift ;;
	--large) large=$2; shift ;;
	--ibrouting) ibr=$2; shift ;;
	--label) label=$2; shift ;;
	--out) out=$2; shift ;;
	*) echo "usage: bench/bench_targets.sh [--smoke] [--rounds N] [--no-2048] [--mid SPEC] [--large SPEC] [--ibrouting PATH --label TEXT] [--out FILE]" >&2; exit 2 ;;
	esac
	shift
done
case $rounds in ''|*[!0-9]*|0) echo "bench_targets: --rounds wants a count >= 1, not '$rounds'" >&2; exit 2 ;; esac
[ -x "$ibr" ] || { echo "bench_targets: build first ($ibr missing)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench_targets: needs GNU time (/usr/bin/time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run ROUND FABRIC LMC THREADS ENGINE: appends "round,fabric,lmc,threads,
# engine,ms,rss_kb" to the CSV
run() {
	local round=$1 fabric=$2 lmc=$3 t=$4 e=$5 args
	case $e in
	fera-lowest) args=(-e fera --port-choice lowest) ;;
	*) args=(-e "$e") ;;
	esac
	/usr/bin/time -f '%M' -o "$tmp/rss" "$ibr" route "${args[@]}" --lmc "$lmc" -j "$t" "$fabric" > "$tmp/out" 2>&1 ||
		{ echo "bench_targets: ibrouting route ${args[*]} --lmc $lmc -j $t $fabric failed:" >&2; cat "$tmp/out" >&2; exit 1; }
	local name=${fabric#gen:}
	echo "$round,${name//,/;},$lmc,$t,$e,$(sed -n 's/^time *\([0-9.]*\) ms compute.*/\1/p' "$tmp/out"),$(tail -n 1 "$tmp/rss")" >> "$tmp/csv"
}

echo "round,fabric,lmc,threads,engine,compute_ms,peak_rss_kb" > "$tmp/csv"
for r in $(seq 1 "$rounds"); do
	for t in 1 2; do
		for e in fera-lowest fera dr colorl; do
			run "$r" "$mid" 1 "$t" "$e"
		done
	done
	if $big; then
		for e in fera-lowest fera dr colorl; do
			run "$r" "$large" 0 2 "$e"
		done
	fi
	echo "bench_targets: round $r of $rounds done" >&2
done

# target NAME WANT OP VALUES...: one row, each round's figure, the median,
# the rounds where it held (OP: le or ge against WANT)
target() {
	local name=$1 want=$2 op=$3
	shift 3
	printf '%s\n' "$@" | sort -g | awk -v name="$name" -v want="$want" -v op="$op" -v list="$*" '
		{ v[NR] = $1; held += (op == "le" ? $1 <= want : $1 >= want) }
		END { med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			gsub(/ /, ", ", list)
			printf "| %s | %s %s | %s | %.2f | %d of %d |\n", name, op == "le" ? "<=" : ">=", want, list, med, held, NR }'
}
# figure ROUND FABRIC LMC THREADS ENGINE COLUMN: one measurement (the
# CSV names a fabric with ; for its commas); fails when it is missing
figure() {
	local name=${2#gen:} v
	v=$(awk -F, -v r="$1" -v f="${name//,/;}" -v l="$3" -v t="$4" -v e="$5" -v c="$6" \
		'$1 == r && $2 == f && $3 == l && $4 == t && $5 == e && $c != "" { print $c }' "$tmp/csv")
	[ -n "$v" ] || { echo "bench_targets: no figure for round $1, $2, LMC $3, $4 thread(s), $5" >&2; return 1; }
	echo "$v"
}
# row NAME WANT OP EXPR A-ARGS B-ARGS: target's row of EXPR over a and b
# (figure's arguments after the round, five each) in every round
row() {
	local name=$1 want=$2 op=$3 expr=$4 r a b values=()
	shift 4
	for r in $(seq 1 "$rounds"); do
		a=$(figure "$r" "${@:1:5}") || exit 1
		b=$(figure "$r" "${@:6:5}") || exit 1
		values+=("$(awk -v a="$a" -v b="$b" "BEGIN { printf \"%.2f\", $expr }")")
	done
	target "$name" "$want" "$op" "${values[@]}"
}

m=${mid#gen:} l=${large#gen:}
{
	echo "Issue 20's offline targets, $label, $(date -u +%Y-%m-%d), $(nproc) cores, $rounds round(s) interleaved process by process (bench/bench_targets.sh); each figure is one round's, the ratios between runs of one round."
	echo
	echo "| target | wanted | per round | median | held |"
	echo "| --- | --- | --- | ---: | --- |"
	row "colorl / fera \`lowest\`, $m, LMC 1, 2 threads" 100 le 'a / b' \
		"$mid" 1 2 colorl 6 "$mid" 1 2 fera-lowest 6
	row "colorl / fera (balanced), same runs" 100 le 'a / b' \
		"$mid" 1 2 colorl 6 "$mid" 1 2 fera 6
	row "colorl peak RSS MB, $m, LMC 1, 2 threads" 512 le 'a / 1024' \
		"$mid" 1 2 colorl 7 "$mid" 1 2 colorl 7
	row "dr / fera \`lowest\`, $m, LMC 1, 2 threads" 10 le 'a / b' \
		"$mid" 1 2 dr 6 "$mid" 1 2 fera-lowest 6
	row "colorl 1 thread / 2 threads, $m" 1.6 ge 'a / b' \
		"$mid" 1 1 colorl 6 "$mid" 1 2 colorl 6
	row "dr 1 thread / 2 threads, $m" 1.6 ge 'a / b' \
		"$mid" 1 1 dr 6 "$mid" 1 2 dr 6
	if $big; then
		row "colorl s, $l, LMC 0, 2 threads" 30 le 'a / 1000' \
			"$large" 0 2 colorl 6 "$large" 0 2 colorl 6
		row "colorl peak RSS MB, $l" 1024 le 'a / 1024' \
			"$large" 0 2 colorl 7 "$large" 0 2 colorl 7
		row "dr s, $l, LMC 0, 2 threads" 1 le 'a / 1000' \
			"$large" 0 2 dr 6 "$large" 0 2 dr 6
		row "fera (balanced) s, $l, same runs (dr's base LID)" 1 le 'a / 1000' \
			"$large" 0 2 fera 6 "$large" 0 2 fera 6
	fi
	echo
	echo "Every run (compute ms, peak RSS MB):"
	echo
	echo "| round | fabric | LMC | threads | engine | compute ms | peak RSS MB |"
	echo "| ---: | --- | ---: | ---: | --- | ---: | ---: |"
	awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %.1f | %.0f |\n", $1, $2, $3, $4, $5, $6, $7 / 1024 }' "$tmp/csv"
} > "$tmp/table"
if $smoke; then
	cat "$tmp/table"
	echo "bench_targets smoke: $(($(wc -l < "$tmp/csv") - 1)) runs of fera, dr and colorl, every table verified, every figure of the report there"
	exit 0
fi
mkdir -p "$(dirname "$out")"
cp "$tmp/table" "$out"
cp "$tmp/csv" "${out%.md}.csv"
cat "$out"
