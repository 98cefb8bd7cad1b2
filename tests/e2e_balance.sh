#!/bin/sh
# e2e_balance.sh - balanced routing on fat trees, inside stock OpenSM over
# ibsim, with the plugin's default options (no options file) unless said.
#
# The measure: max link load under uniform all-to-all traffic between CA
# ports (the `load` line of `ibrouting verify`), from the tables READ BACK
# from the simulated switches (dump_fts, judged with `ibrouting verify
# --lfts` on the fabric of OpenSM's dump), normalised by hosts - 1 (1.0:
# no link carries more flows than a host's own link).
#   (a) 4-ary 3-tree (48 switches, 64 hosts): fera's load is within 10% of
#       OpenSM's ftree on the same fabric; fera's run passes every common
#       end-to-end check (check_run);
#   (b) the same tree with two inter-switch links cut (`cut=2`): OpenSM
#       used fera (no fallback), ibdmchk finds no credit loop in OpenSM's
#       dumps, our verifier nothing in the tables read back, and fera's
#       load is below that of OpenSM's updn with its own root detection
#       (minhop's if updn refuses);
#   (c) OpenSM's root_guid_file naming two top-level switches and a CA:
#       the CA passed over with a WRN IB27 line naming it, fera's INFO
#       line names a root set of 2 ("roots 2 (...)");
#   (d) an options file saying `port_choice lowest`: fera routes the Fig. 1
#       fabric to exactly the tables of `ibrouting route -e fera
#       --port-choice lowest --sm SM` (on the net file and on OpenSM's dump).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
started=$(date +%s.%N)

# used NAME: the engine OpenSM configured the tables of run NAME with
used() {
	sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured on all switches.*/\1/p' \
		"$TMP/$1/osm.log" | head -n 1
}

# norm LOAD HOSTS: LOAD / (HOSTS - 1), "?" when unknown
norm() {
	awk -v l="$1" -v h="$2" 'BEGIN { if (l ~ /^[0-9]+$/ && h > 1) printf "%.2f", l / (h - 1); else print "?" }'
}

# routed_by NAME ENGINE: one check, OpenSM used ENGINE (no fallback) and
# logged its INFO line
routed_by() {
	if [ "$(used "$1")" = "$2" ] && ! grep -q "building routing with 'minhop'" "$TMP/$1/osm.log"; then
		pass "$1: OpenSM routed with $2 ($(routing_ms "$TMP/$1/osm.log") ms)$(sed -n "s/.*build_lid_matrices: $2: /: /p" "$TMP/$1/osm.log" | head -n 1 | cut -c1-160)"
	else
		flunk "$1: OpenSM did not route with $2 but with '$(used "$1")':"
		grep -E "ERR|routing|tables configured" "$TMP/$1/osm.log" | head -10 | sed 's/^/# /'
	fi
}

# the GUIDs of the top-level switches of a kary net file (level 0)
top_switches() {
	awk '/^switchguid=/ { g = substr($1, 12) } /^Switch.*"kary L0 / { print g }' "$1"
}

# The plugin's default options: an empty options file (not /dev/null,
# which the plugin refuses with ERR IB30; not unset, which reads an
# installed SYSCONFDIR/opensm/opensm-plugin.conf if there is one).
: > "$TMP/defaults.conf"

# ---- (a) the intact 4-ary 3-tree: fera against ftree -----------------
net=$TMP/kary4-3.net
if ! "$IBROUTING" generate -o "$net" kary:k=4,n=3 2> "$TMP/gen.err"; then
	flunk "ibrouting generate kary:k=4,n=3: $(cat "$TMP/gen.err")"
	finish; exit 1
fi
ibsim_start "$net"
IBROUTING_CONF=$TMP/defaults.conf opensm_run a-fera fera || true
check_run a-fera fera "$net"
readback a-fera
fera_load=$rb_load hosts=$rb_hosts
if [ "$rb_findings" = 0 ] && [ "$hosts" = 64 ] && [ "$rb_links" = 128 ]; then
	pass "a-fera: 48 switches, $hosts hosts, $rb_links inter-switch links; the tables read back verify, max link load $fera_load flows ($(norm "$fera_load" "$hosts") normalised)"
else
	flunk "a-fera: tables read back: $rb_findings findings, $hosts hosts (64 expected), $rb_links inter-switch links (128 expected)"
	grep -E "^(fabric|load|verify|  )" "$TMP/a-fera/readback.out" | head -6 | sed 's/^/# /'
fi
IBROUTING_CONF=$TMP/defaults.conf opensm_run a-ftree ftree || true
readback a-ftree
ftree_load=$rb_load
if [ "$(used a-ftree)" != ftree ]; then
	flunk "a-ftree: OpenSM's ftree did not route the 4-ary 3-tree (used '$(used a-ftree)'): no reference load"
	grep -E "ERR|ftree|FatTree" "$TMP/a-ftree/osm.log" | head -8 | sed 's/^/# /'
elif [ "$fera_load" = "?" ] || [ "$ftree_load" = "?" ]; then
	flunk "a: loads not measured: fera $fera_load, ftree $ftree_load (see $TMP/a-*/readback.out)"
else
	ratio=$(awk -v a="$fera_load" -v b="$ftree_load" 'BEGIN { printf "%.3f", a / b }')
	if awk -v a="$fera_load" -v b="$ftree_load" 'BEGIN { exit !(a <= 1.10 * b) }'; then
		pass "a: fera's max link load $fera_load flows ($(norm "$fera_load" "$hosts")) is within 10% of ftree's $ftree_load ($(norm "$ftree_load" "$hosts")): ratio $ratio (tables read back)"
	else
		flunk "a: fera's max link load $fera_load flows ($(norm "$fera_load" "$hosts")) is not within 10% of ftree's $ftree_load ($(norm "$ftree_load" "$hosts")): ratio $ratio"
	fi
fi

# ---- (c) a root set from OpenSM's root_guid_file ---------------------
set -- $(top_switches "$net")
root1=${2:-} root2=${3:-}
ca=$(printf '0x%016x' "$(grep -m 1 '^caguid=' "$net" | sed 's/^caguid=\(0x[0-9a-f]*\).*/\1/')")
printf '# two top-level switches and a CA\n%s\n%s\n%s\n' "$root1" "$ca" "$root2" > "$TMP/roots"
IBROUTING_CONF=$TMP/defaults.conf opensm_run c-roots fera "root_guid_file $TMP/roots" || true
routed_by c-roots fera
log_has c-roots "WRN IB27: fera: .*$ca" "the CA $ca of root_guid_file is passed over"
log_has c-roots "build_lid_matrices: fera: .*roots 2 " "two roots ($root1, $root2) make the root set"
readback c-roots
if [ "$rb_findings" = 0 ]; then
	pass "c-roots: the tables read back verify; max link load $rb_load flows ($(norm "$rb_load" "$rb_hosts"))"
else
	flunk "c-roots: tables read back: $rb_findings findings"
	grep -E "^(verify|  )" "$TMP/c-roots/readback.out" | head -5 | sed 's/^/# /'
fi
ibsim_stop

# ---- (b) two inter-switch links cut: fera against updn ---------------
net=$TMP/kary4-3-cut2.net
"$IBROUTING" generate -o "$net" kary:k=4,n=3,cut=2,seed=1
ibsim_start "$net"
IBROUTING_CONF=$TMP/defaults.conf opensm_run b-fera fera || true
routed_by b-fera fera
judge_dump "$TMP/b-fera"
if [ "$loops" = 0 ] && [ "$findings" = 0 ]; then
	pass "b-fera: ibdmchk on OpenSM's dumps: $(grep -o 'Scanned:[0-9]* CA to CA paths' "$TMP/b-fera/ibdmchk.out"), no credit loops; our verifier: $(grep '^verify' "$TMP/b-fera/verify.out" | cut -c11-92)"
else
	flunk "b-fera: ibdmchk credit loops $loops, our verifier $findings findings on OpenSM's dumps"
	grep -E -- "-E-|credit" "$TMP/b-fera/ibdmchk.out" | head -5 | sed 's/^/# /'
fi
readback b-fera
fera_load=$rb_load hosts=$rb_hosts
if [ "$rb_findings" = 0 ] && [ "$rb_links" = 126 ]; then
	pass "b-fera: $rb_links inter-switch links (2 cut); the tables read back verify, max link load $fera_load flows ($(norm "$fera_load" "$hosts"))"
else
	flunk "b-fera: tables read back: $rb_findings findings, $rb_links inter-switch links (126 expected)"
fi
ref=updn
IBROUTING_CONF=$TMP/defaults.conf opensm_run b-updn updn || true
if [ "$(used b-updn)" != updn ]; then
	echo "# b: OpenSM's updn refused the cut tree (used '$(used b-updn)'); compared with minhop"
	ref=minhop
	IBROUTING_CONF=$TMP/defaults.conf opensm_run b-minhop minhop || true
fi
judge_dump "$TMP/b-$ref"
ref_loops=$loops
readback "b-$ref"
ref_load=$rb_load
if [ "$fera_load" = "?" ] || [ "$ref_load" = "?" ]; then
	flunk "b: loads not measured: fera $fera_load, $ref $ref_load"
elif [ "$fera_load" -lt "$ref_load" ]; then
	pass "b: fera's max link load $fera_load flows ($(norm "$fera_load" "$hosts")) is below $ref's $ref_load ($(norm "$ref_load" "$hosts"); its own roots, ibdmchk credit loops $ref_loops): ratio $(awk -v a="$fera_load" -v b="$ref_load" 'BEGIN { printf "%.3f", a / b }')"
else
	flunk "b: fera's max link load $fera_load flows ($(norm "$fera_load" "$hosts")) is not below $ref's $ref_load ($(norm "$ref_load" "$hosts"); ibdmchk credit loops $ref_loops): ratio $(awk -v a="$fera_load" -v b="$ref_load" 'BEGIN { printf "%.3f", a / b }')"
fi
ibsim_stop

# ---- (d) port_choice lowest: the papers' tables on Fig. 1 -------------
net=$FABRICS_DIR/fig1.net
ibsim_start "$net"
printf 'port_choice lowest\n' > "$TMP/lowest.conf"
IBROUTING_CONF=$TMP/lowest.conf opensm_run d-lowest fera || true
routed_by d-lowest fera
if grep -q ' 0x01 -> ' "$TMP/d-lowest/osm.log"; then
	flunk "d-lowest: OpenSM logged errors (the options file: $(cat "$TMP/lowest.conf")):"
	grep ' 0x01 -> ' "$TMP/d-lowest/osm.log" | head -5 | sed 's/^/# /'
else
	pass "d-lowest: no ERR line in OpenSM's log with 'port_choice lowest' in the options file"
fi
dir=$TMP/d-lowest
sm=$(sm_node_guid "$dir/dump/opensm-subnet.lst")
switch_lfts > "$dir/switches.lft"
for src in "$net" "$dir/dump"; do
	"$IBROUTING" route -e fera --port-choice lowest --sm "$sm" --print-lfts "$src" \
		2> "$dir/offline.err" | grep '^0x' | sort > "$dir/offline.lft" || true
	if [ -s "$dir/switches.lft" ] && cmp -s "$dir/switches.lft" "$dir/offline.lft"; then
		pass "d-lowest: $(wc -l < "$dir/switches.lft") LFT entries read back equal 'ibrouting route -e fera --port-choice lowest --sm $sm' on $(basename "$src")"
	else
		flunk "d-lowest: switch LFTs differ from 'ibrouting route -e fera --port-choice lowest' on $src ($(wc -l < "$dir/switches.lft") vs $(wc -l < "$dir/offline.lft") entries; stderr: $(head -c 300 "$dir/offline.err"))"
		diff "$dir/switches.lft" "$dir/offline.lft" | head -6 | sed 's/^/# /'
	fi
done
echo "# e2e_balance.sh: $(echo "$started $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }') s wall time"
finish
