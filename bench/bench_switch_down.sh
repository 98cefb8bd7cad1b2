#!/usr/bin/env bash
# bench_switch_down.sh - the entries one switch down changes, for every
# switch of a fabric in turn, as the SM evaluation paper averages them
# (subnet-management-evaluation.md §3.2, Fig. 8(b): each switch removed,
# the mean of the table entries updated).  Offline: `ibrouting route
# --prior` from the whole fabric's tables (dumped once per engine), on the
# fabric without that switch and its CAs (tests/switch_down.awk).  Never a
# timed test: it counts entries.
#
#   bench/bench_switch_down.sh [--out FILE]
#   FABRICS="SPEC@LMC ..." (default: the change-assimilation benchmark's
#   random 128 / 1024 and 256 / 2048 at LMC 2), ENGINES="colorl dr",
#   IBROUTING=PATH (another build's tool, to compare)
#
# Per fabric and engine, over the switches whose loss leaves the rest
# connected (the others are counted apart) and whose routes were kept in
# place: the share of all LFT entries of the switches left that changes
# (mean, median, 90th percentile, max), and the share any legal tables
# under the run's orientation change (route's lower bound: ports to what
# is gone, LIDs gone, down hops into switches left without a route down);
# of all: how many switches changed more than 2%; apart: the runs routed
# afresh (more CA pairs broke than the engine's `incremental` allows),
# and the root's switch taken down (every route turns).  Writes a Markdown table to FILE (default
# bench/results/switch-down.md) and prints it.
set -euo pipefail
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
top=$(cd "$(dirname "$0")/.." && pwd)
ibr=${IBROUTING:-$top/build/ibrouting}
out=$top/bench/results/switch-down.md
fabrics=${FABRICS:-"random:sw=128,ca=1024,seed=1@2 random:sw=256,ca=2048,seed=1@2"}
engines=${ENGINES:-"colorl dr"}
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	*) echo "usage: bench/bench_switch_down.sh [--out FILE]" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$ibr" ] || { echo "bench_switch_down: build first ($ibr missing)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stats FILE: "mean | median | p90 | max" of the numbers in FILE
stats() {
	sort -g "$1" | awk '{ v[NR] = $1; s += $1 }
		END { if (!NR) { print "- | - | - | -"; exit }
		      printf "%.2f | %.2f | %.2f | %.2f\n", s / NR,
			     v[int((NR + 1) / 2)], v[int((NR * 9 + 9) / 10)], v[NR] }'
}

{
echo "bench_switch_down.sh at commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown) ($("$ibr" --version 2>&1 | head -n 1), $ibr): every switch down in turn, from the prior tables (offline); % of all LFT entries of the switches left"
echo
echo "| fabric | engine | switches down (kept in place) | changed % mean | median | p90 | max | any legal tables change % mean | median | p90 | max | over 2% | routed afresh (changed % mean) | not connected without it | the root down: changed % |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$tmp/table"
for item in $fabrics; do
	spec=${item%@*} lmc=${item#*@}
	"$ibr" generate --lmc "$lmc" -o "$tmp/whole.net" "$spec" > /dev/null
	for e in $engines; do
		rm -rf "$tmp/prior"
		"$ibr" route -e "$e" --lmc "$lmc" --dump-dir "$tmp/prior" "$tmp/whole.net" > "$tmp/whole.out" 2>&1 ||
			{ echo "bench_switch_down: $e on $spec failed:" >&2; cat "$tmp/whole.out" >&2; exit 1; }
		root=$(sed -n 's/^root *switch 0x\([0-9a-f]*\).*/\1/p' "$tmp/whole.out")
		: > "$tmp/changed"; : > "$tmp/least"; : > "$tmp/afresh"
		n=0 over=0 apart=0 at_root=-
		for g in $(sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*/\1/p' "$tmp/whole.net"); do
			awk -v guid="$g" -f "$top/tests/switch_down.awk" "$tmp/whole.net" > "$tmp/down.net"
			ok=true
			"$ibr" route -v -e "$e" --lmc "$lmc" --prior "$tmp/prior" "$tmp/down.net" > "$tmp/down.out" 2>&1 || ok=false
			if grep -q 'disconnected fabric' "$tmp/down.out"; then
				apart=$((apart + 1))
				continue
			fi
			if ! $ok; then
				echo "bench_switch_down: $e on $spec without $g failed:" >&2
				cat "$tmp/down.out" >&2
				exit 1
			fi
			p=$(sed -n 's/^prior .* changed (\([0-9.]*\)%).*/\1/p' "$tmp/down.out")
			l=$(sed -n 's/^prior .*; [0-9]* (\([0-9.]*\)%) change in any legal tables.*/\1/p' "$tmp/down.out")
			if [ "$g" = "$root" ]; then
				at_root=$p
				continue
			fi
			awk -v p="$p" 'BEGIN { exit !(p > 2) }' && over=$((over + 1))
			if ! grep -q 'pairs kept' "$tmp/down.out"; then
				echo "$p" >> "$tmp/afresh"
				continue
			fi
			n=$((n + 1))
			echo "$p" >> "$tmp/changed"
			[ -z "$l" ] || echo "$l" >> "$tmp/least"
		done
		printf '| %s | %s | %d | %s | %s | %d | %d (%s) | %d | %s |\n' "$spec" "$e" "$n" \
			"$(stats "$tmp/changed")" "$(stats "$tmp/least")" "$over" \
			"$(wc -l < "$tmp/afresh")" \
			"$(awk '{ s += $1 } END { if (NR) printf "%.2f", s / NR; else print "-" }' "$tmp/afresh")" \
			"$apart" "$at_root" >> "$tmp/table"
	done
done
mkdir -p "$(dirname "$out")"
cp "$tmp/table" "$out"
cat "$out"
