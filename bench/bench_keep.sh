#!/usr/bin/env bash
# bench_keep.sh - the cost of a hybrid's provisional pass after one switch
# down: the final engine's prior tables kept onto the changed
# fabric (provisional.c), timed alone (bench/keep_time.c), on one and two
# threads, best of 5.  Never a timed test: it measures and reports.
#
#   bench/bench_keep.sh     random 512 / 4096 (switch 100 of the file
#                           down) and the 16-ary 3-tree (768 / 4096, its
#                           10th switch, a top one, down); fera at LMC 0,
#                           dr and colorl at LMC 2
#   FABRICS="SPEC@N ..." (N: the switch of the file taken down),
#   ENGINES="ENGINE@LMC ...", BUILD_DIR (default build/)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
ibr=$build/ibrouting
lib=$build/.libs/libibrcore.a
[ -x "$ibr" ] && [ -f "$lib" ] || { echo "bench_keep.sh: build first ($ibr, $lib)" >&2; exit 2; }
fabrics=${FABRICS:-"random:sw=512,ca=4096,seed=1@100 kary:k=16,n=3@10"}
engines=${ENGINES:-"fera@0 dr@2 colorl@2"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -std=gnu11 -I"$top/include" -I"$top/src/core" -I"$build" \
	-o "$tmp/keep_time" "$top/bench/keep_time.c" "$lib" -lglpk -lpthread -lm
echo "bench_keep.sh at commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores"
for item in $fabrics; do
	spec=${item%@*} nth=${item#*@}
	for e in $engines; do
		name=${e%@*} lmc=${e#*@}
		"$ibr" generate --lmc "$lmc" -o "$tmp/whole.net" "$spec" > /dev/null
		g=$(sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*/\1/p' "$tmp/whole.net" | sed -n "${nth}p")
		awk -v guid="$g" -f "$top/tests/switch_down.awk" "$tmp/whole.net" > "$tmp/down.net"
		echo "# $spec, switch S-$g down"
		"$tmp/keep_time" "$tmp/whole.net" "$tmp/down.net" "$lmc" "$name" 5 2 |
			sed "s|$tmp/whole.net -> $tmp/down.net|$spec|"
	done
done
