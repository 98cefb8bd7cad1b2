#!/bin/sh
# e2e_sa.sh - what applications see follows our tables.  OpenSM runs as a
# daemon (SA up) with pira, then fera, over the Fig. 1 fabric; for every
# ordered pair of the seven hosts:
#   - the SA answers a PathRecord query (OpenSM builds it by walking the
#     switches' new LFTs, so a broken route would get no record);
#   - ibtracert, which reads each switch's LFT hop by hop, crosses exactly
#     the output ports our offline tables give for the destination LID.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
need_tool saquery ibtracert

net=$FABRICS_DIR/fig1.net
hosts="4 7 11 12 13 14 15"
# the paper's root (LID 1, the SM's switch) and tie rule: its route of
# §2.2 below
printf 'root sm\nport_choice lowest\n' > "$TMP/paper.conf"
export IBROUTING_CONF=$TMP/paper.conf
ibsim_start "$net"

for engine in $("$IBROUTING" engines --names); do
	dir=$TMP/sa-$engine
	opensm_daemon "$dir" "$engine" || flunk "$engine: OpenSM did not come up"
	"$IBROUTING" route -e "$engine" --root-strategy sm --port-choice lowest --print-lfts "$net" |
		grep '^0x' > "$dir/offline.lft"

	records=0 traced=0 bad=""
	for s in $hosts; do
		for d in $hosts; do
			[ "$s" != "$d" ] || continue
			if LD_PRELOAD=$UMAD2SIM saquery PR --src-to-dst "$s:$d" 2>/dev/null |
			   grep -q "dlid\.*$d\$"; then
				records=$((records + 1))
			else
				bad="$bad PR($s:$d)"
			fi
			LD_PRELOAD=$UMAD2SIM ibtracert "$s" "$d" 2>/dev/null | trace_hops "$d" > "$dir/hops"
			if [ -s "$dir/hops" ] && ! grep -vxFf "$dir/offline.lft" "$dir/hops" >/dev/null; then
				traced=$((traced + 1))
			else
				bad="$bad trace($s:$d)"
			fi
		done
	done
	opensm_stop
	if [ -z "$bad" ]; then
		pass "$engine: $records/42 SA path records; $traced/42 ibtracert paths follow our tables hop by hop"
	else
		flunk "$engine: failures:$bad"
	fi
done
# The paper's legal route of §2.2 is the one FERa gives: 7 -> 2 -> 1 <- 3 <- 9 <- 14.
path=$(LD_PRELOAD=$UMAD2SIM ibtracert 7 14 2>/dev/null | grep -o 'lid [0-9]*-' | tr -d - | awk '{printf "%s ", $2}')
[ "$path" = "7 2 1 3 9 14 14 " ] && pass "ibtracert 7 14 after fera: $path" ||
	flunk "ibtracert 7 14 after fera: $path"
finish
