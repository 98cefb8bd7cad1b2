#!/bin/sh
# e2e_topology.sh - the fabrics `auto` recognises (topology.h), inside
# stock OpenSM over ibsim with the plugin's default options, tables read
# back from the simulated switches:
#   (a) a Dragonfly+ of 9 groups (4 leaves x 4 spines, 2 global links per
#       group pair, 144 hosts): the plugin logs the class and takes the 36
#       spines for roots; fera passes every common end-to-end check
#       (check_run: offline equality, hop tables, verify, ibdmchk) and its
#       max link load read back is within 1.05x OpenSM's ftree's;
#   (b) the same with two group pairs' direct links gone and a spine
#       down: fera routes, every host pair by two global hops where
#       needed, no credit loop (ibdmchk), nothing for our verifier, and
#       its load within 1.5x the bound (the groups' global links);
#   (c) a Clos with a SHARP aggregation node on every switch: the spines
#       are the roots, the aggregation nodes logged, and the tables read
#       back verify, every host reaching every host and every aggregation
#       node below a root it climbs to; OpenSM's dump directory holds the
#       plugin's ibrouting-dlids.dump (its root set) beside OpenSM's dumps,
#       and `ibrouting verify` on it, no --roots given, says OK.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

: > "$TMP/defaults.conf"

used() {
	sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured on all switches.*/\1/p' \
		"$TMP/$1/osm.log" | head -n 1
}

# routed_by_fera NAME: one check, OpenSM routed run NAME with fera (no
# fallback), with its routing window
routed_by_fera() {
	if [ "$(used "$1")" = fera ]; then
		pass "$1: OpenSM routed with fera ($(routing_ms "$TMP/$1/osm.log") ms)"
	else
		flunk "$1: OpenSM used '$(used "$1")'"
	fi
}

# generate NAME SPEC: the net file $TMP/NAME.net
generate() {
	if ! "$IBROUTING" generate -o "$TMP/$1.net" "$2" 2> "$TMP/gen.err"; then
		flunk "ibrouting generate $2: $(cat "$TMP/gen.err")"
		finish
		exit 1
	fi
}

# ---- (a) an intact Dragonfly+ ----------------------------------------
generate dfplus dfplus:groups=9,leaves=4,spines=4,global=2
net=$TMP/dfplus.net
ibsim_start "$net"
IBROUTING_CONF=$TMP/defaults.conf opensm_run a-fera fera || true
log_has a-fera "fera: topology: Dragonfly\\+: 9 groups, 36 leaves, 36 spines" \
	"the plugin recognised the Dragonfly+"
log_has a-fera "build_lid_matrices: fera: .*roots 36 \\(auto: the spines of a Dragonfly\\+" \
	"its 36 spines are the roots"
check_run a-fera fera "$net"
readback a-fera
fera_load=$rb_load
IBROUTING_CONF=$TMP/defaults.conf opensm_run a-ftree ftree || true
readback a-ftree
ftree_load=$rb_load
if [ "$(used a-ftree)" != ftree ] || [ "$ftree_load" = "?" ] || [ "$fera_load" = "?" ]; then
	flunk "a: no comparison: OpenSM used '$(used a-ftree)' for ftree; loads fera $fera_load, ftree $ftree_load"
elif awk -v a="$fera_load" -v b="$ftree_load" 'BEGIN { exit !(a <= 1.05 * b) }'; then
	pass "a: fera's max link load read back $fera_load flows, ftree's $ftree_load (at most 1.05x), the bound $rb_bound"
else
	flunk "a: fera's max link load $fera_load flows against ftree's $ftree_load (at most 1.05x)"
fi
ibsim_stop

# ---- (b) a damaged Dragonfly+ ----------------------------------------
generate dfcut dfplus:groups=9,leaves=4,spines=4,global=2,isolate=2,down=1,seed=3
net=$TMP/dfcut.net
ibsim_start "$net"
IBROUTING_CONF=$TMP/defaults.conf opensm_run b-fera fera || true
routed_by_fera b-fera
log_has b-fera "fera: topology: 2 group pairs without a direct global link" \
	"the isolated group pairs are noted"
judge_dump "$TMP/b-fera"
if [ "$loops" = 0 ] && [ "$findings" = 0 ]; then
	pass "b-fera: no credit loop (ibdmchk: $(grep -o 'Scanned:[0-9]* CA to CA paths' "$TMP/b-fera/ibdmchk.out")), our verifier: $(grep '^verify' "$TMP/b-fera/verify.out" | cut -c11-80)"
else
	flunk "b-fera: ibdmchk credit loops $loops, our verifier $findings findings"
	grep -E -- "-E-|credit|^verify|^  " "$TMP/b-fera/ibdmchk.out" "$TMP/b-fera/verify.out" | head -6 | sed 's/^/# /'
fi
readback b-fera
if [ "$rb_findings" = 0 ] && [ "$rb_load" != "?" ] && [ "$rb_bound" != "?" ] &&
   [ $((rb_load * 10)) -le $((rb_bound * 15)) ]; then
	pass "b-fera: the tables read back verify; max link load $rb_load flows, the bound $rb_bound (at most 1.5x)"
else
	flunk "b-fera: read back: $rb_findings findings, load $rb_load, the bound $rb_bound (at most 1.5x)"
	grep -E "^(load|bound|verify|  )" "$TMP/b-fera/readback.out" | head -6 | sed 's/^/# /'
fi
ibsim_stop

# ---- (c) aggregation nodes on every switch ----------------------------
generate agg clos:leaf=8,spine=4,ca=64,agg=1
net=$TMP/agg.net
ibsim_start "$net"
IBROUTING_CONF=$TMP/defaults.conf opensm_run c-fera fera || true
routed_by_fera c-fera
log_has c-fera "fera: topology: 12 CA ports named \"Aggregation Node\"" \
	"the aggregation nodes are logged"
log_has c-fera "build_lid_matrices: fera: .*roots 4 \\(auto: the top level of a 2-level fat tree" \
	"the 4 spines are the roots"
# OpenSM's own dumps (-D 0x47) and, beside them, the plugin's root set:
# verify judges them as they are, no --roots given
if "$IBROUTING" verify "$TMP/c-fera/dump" > "$TMP/c-fera/plain-verify.out" 2>&1 &&
   grep -q '^# roots ' "$TMP/c-fera/dump/ibrouting-dlids.dump"; then
	pass "c-fera: ibrouting verify on OpenSM's dump directory, no --roots: $(grep '^verify' "$TMP/c-fera/plain-verify.out" | cut -c11-90)"
else
	flunk "c-fera: ibrouting verify on OpenSM's dump directory: $(grep -E '^verify|rror' "$TMP/c-fera/plain-verify.out" | head -2)"
fi
readback c-fera
if [ "$rb_findings" = 0 ] && grep -q "CA pairs owe no route" "$TMP/c-fera/readback.out"; then
	pass "c-fera: the tables read back verify: $(grep '^load' "$TMP/c-fera/readback.out" | cut -c11-140)"
else
	flunk "c-fera: read back: $rb_findings findings"
	grep -E "^(load|verify|  )" "$TMP/c-fera/readback.out" | head -6 | sed 's/^/# /'
fi
ibsim_stop

finish
