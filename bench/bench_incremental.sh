#!/usr/bin/env bash
# bench_incremental.sh - the cost of one change:
# colorl, dr and fera routing from the prior tables (`ibrouting route
# --prior`, what the plugin does after a change) against the same engine
# afresh (option incremental=0), offline, on the same fabrics in one run.  Never a timed test: it measures and reports.
#
#   bench/bench_incremental.sh [--out FILE] [--repeat N]
#   FABRICS="SPEC@LMC ..." (default: the change-assimilation benchmark's
#   random 128/1024 and 256/2048 at LMC 2, a Clos and a k-ary 3-tree at
#   LMC 2; from 512/8192 on, the dumps --prior reads pass the readers'
#   1 GiB limit: ibrouting-dlids.dump lists every pair off its base LID)
#
# For each fabric: the tables of the whole fabric (dumped), then two
# changes: one inter-switch link cut (the generator's cut=1: every other
# port, GUID and LID as before) and one switch down with its CAs
# (tests/switch_down.awk: on a Clos or k-ary tree a top switch, else the
# first switch from the fifth on, not the root, whose loss leaves the
# rest connected).
# Per change and engine: compute ms (best of N), the entries that change
# on the switches there before (and those that had to: their port leads
# to what is gone; and those any legal tables under the run's orientation
# change: also the LIDs gone and the down hops into switches left without
# a route down), the LFT blocks holding them, the max link load along
# designated DLIDs, and the verifier's verdict.  Writes a Markdown table
# to FILE (default bench/results/incremental.md) and prints it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ibr=$top/build/ibrouting
# its lines read whole, not folded at 100 columns (ibrouting(1))
export IBROUTING_WIDTH=0
out=$top/bench/results/incremental.md
repeat=3
fabrics=${FABRICS:-"random:sw=128,ca=1024,seed=1@2 random:sw=256,ca=2048,seed=1@2 clos:leaf=36,spine=18,ca=576,seed=1@2 kary:k=8,n=3@2"}
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	*) echo "usage: bench/bench_incremental.sh [--out FILE] [--repeat N]" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$ibr" ] || { echo "bench_incremental: build first ($ibr missing)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# row FABRIC CHANGE ENGINE MODE OUTPUT: one table row from route's output
row() {
	local o=$5
	local ms prior load verdict
	ms=$(sed -n 's/^time *\([0-9.]*\) ms compute.*/\1/p' "$o")
	prior=$(sed -n 's/^prior *\([0-9]*\) of \([0-9]*\) entries changed (\([0-9.]*\)%), in \([0-9]*\) LFT blocks.*; \([0-9]*\) of them had to (\([0-9.]*\)%)[^;]*; [0-9]* (\([0-9.]*\)%) change in any legal tables.*/\3 | \6 | \7 | \4/p' "$o")
	load=$(sed -n 's/^load *max link load \([0-9]*\) flows.*/\1/p' "$o")
	verdict=$(sed -n 's/^verify *\(OK\).*/verified/p; s/^verify *FAIL.*/FINDINGS/p' "$o")
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" \
		"$ms" "$prior" "$load" "${verdict:-?}"
}

# route OUTPUT ARGS...: ibrouting route, its output kept
route() {
	local o=$1
	shift
	"$ibr" route --repeat "$repeat" "$@" > "$o" 2>&1 ||
		{ echo "bench_incremental: ibrouting route $* failed:" >&2; cat "$o" >&2; exit 1; }
}

{
echo "bench_incremental.sh at commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, best of $repeat runs; entries and blocks: on the switches there before the change"
echo
echo "| fabric | change | engine | run | compute ms | entries changed % | had to change % | any legal tables change % | LFT blocks | max link load | tables |"
echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
} > "$tmp/table"
for item in $fabrics; do
	spec=${item%@*} lmc=${item#*@}
	kind=${spec%%:*}
	name=$(echo "$spec" | sed 's/,seed=[0-9]*//')
	"$ibr" generate --lmc "$lmc" -o "$tmp/whole.net" "$spec" > /dev/null
	"$ibr" generate --lmc "$lmc" -o "$tmp/cut.net" "$spec,cut=1" > /dev/null
	if [ "$kind" = clos ] || [ "$kind" = kary ]; then
		cands=$(awk '/^Switch/ && /"(spine0|kary L0 S0)"/ { s = $3; gsub(/"|S-/, "", s); print s }' "$tmp/whole.net" | head -n 1)
	else
		# not the root (auto's): losing it
		# changes the orientation, and with it most routes
		root=$("$ibr" route -e fera --lmc "$lmc" "$tmp/whole.net" 2>/dev/null |
			sed -n 's/^root *switch 0x\([0-9a-f]*\).*/\1/p')
		cands=$(sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*/\1/p' "$tmp/whole.net" | sed -n '5,40p' | grep -v "^${root:-none}$")
	fi
	for g in $cands; do
		awk -v guid="$g" -f "$top/tests/switch_down.awk" "$tmp/whole.net" > "$tmp/down.net"
		"$ibr" route -e fera --lmc "$lmc" "$tmp/down.net" > /dev/null 2>&1 && break
	done
	for e in colorl dr fera; do
		rm -rf "$tmp/$e"
		route "$tmp/base.out" -e "$e" --lmc "$lmc" --dump-dir "$tmp/$e" "$tmp/whole.net"
		for change in cut down; do
			what="link cut"
			[ "$change" = down ] && what="switch $g down"
			route "$tmp/inc.out" -e "$e" --lmc "$lmc" --prior "$tmp/$e" "$tmp/$change.net"
			row "$name LMC $lmc" "$what" "$e" "from the prior tables" "$tmp/inc.out" >> "$tmp/table"
			route "$tmp/fresh.out" -e "$e" --lmc "$lmc" -o incremental=0 --prior "$tmp/$e" "$tmp/$change.net"
			row "$name LMC $lmc" "$what" "$e" "afresh" "$tmp/fresh.out" >> "$tmp/table"
		done
	done
	echo "bench_incremental: $name done" >&2
done
mkdir -p "$(dirname "$out")"
cp "$tmp/table" "$out"
cat "$out"
