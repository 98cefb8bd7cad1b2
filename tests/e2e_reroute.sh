#!/bin/sh
# e2e_reroute.sh - repeated routing runs in one OpenSM, after real topology
# changes, under valgrind.  OpenSM runs as a daemon (sweep every second)
# with pira over the Fig. 1 fabric; ibsim's console cuts the link between
# switches 2 and 6, then restores it.  After each change OpenSM routes
# again with pira, and each time:
#   - the switches' tables equal `ibrouting route` offline on the fabric
#     OpenSM then saw (its fresh dumps), and `ibrouting verify` accepts them
#     as read back, once pira's way after the change has ended (reconf.h:
#     one push, or a step first where the union with the prior tables
#     is not clean);
#   - valgrind finds no invalid access and no leak in our plugin over the
#     three routing runs (OpenSM's own allocations are not ours to judge).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
need_tool valgrind

net=$FABRICS_DIR/fig1.net
ibsim_start "$net"
dir=$TMP/reroute
mkdir -p "$dir/dump" "$dir/cache"
cat > "$dir/opensm.conf" <<END
event_plugin_name ibrouting
routing_engine pira
sweep_interval 1
dump_files_dir $dir/dump/
force_log_flush TRUE
END
OSM_CACHE_DIR=$dir/cache LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$UMAD2SIM \
	valgrind --error-exitcode=3 --leak-check=full --show-leak-kinds=definite \
	--log-file="$dir/valgrind.log" \
	opensm -F "$dir/opensm.conf" -f "$dir/osm.log" -D 0x47 > "$dir/out" 2>&1 &
OSM_PID=$!

# change CMD: CMD on ibsim's console, then until OpenSM has settled after
# it (wait_settled: tables configured after the change, then two light
# sweeps with no heavy sweep since; a change may take two sweeps, each
# side's trap one); 300 s at most: valgrind on a loaded machine
change() {
	mark=0
	[ -z "$1" ] || { mark=$(wc -l < "$dir/osm.log"); echo "$1" >&7; }
	wait_settled "$mark" 300
}

# check_tables WHAT: switches == offline on OpenSM's current dumps, and
# the tables read back verify (OpenSM's opensm-lfts.dump is written by a
# heavy sweep, not by the re-route that ends a way in steps)
check_tables() {
	switch_lfts > "$dir/switches.lft"
	"$IBROUTING" route -e pira --print-lfts "$dir/dump" | grep '^0x' | sort > "$dir/offline.lft"
	links=$("$IBROUTING" verify "$dir/dump" | sed -n 's/.* \([0-9]*\) inter-switch links\{0,1\}[,;].*/\1/p')
	readback reroute
	if [ "$rb_findings" = 0 ] &&
	   cmp -s "$dir/switches.lft" "$dir/offline.lft"; then
		pass "$1: OpenSM routed with pira ($links inter-switch links); the $(wc -l < "$dir/switches.lft") switch entries equal offline routing of what OpenSM saw, verified"
	else
		flunk "$1: switch tables differ from offline routing of OpenSM's dump, or do not verify"
		diff "$dir/switches.lft" "$dir/offline.lft" | head -5 | sed 's/^/# /'
	fi
}

# after a change, pira's tables go the machine's way (reconf.h): one push,
# or a step first when its union with the prior tables is not clean
change "" || flunk "OpenSM never routed with pira"
check_tables "initial fabric"
{ change 'Unlink "S-sw2"[3]' && wait_way_done "$dir/osm.log" pira; } ||
	flunk "no routing after the link was cut, or its way did not end"
check_tables "link 2-6 cut"
{ change 'Link "S-sw2"[3] "S-sw6"[1]' && wait_way_done "$dir/osm.log" pira; } ||
	flunk "no routing after the link came back, or its way did not end"
check_tables "link 2-6 restored"
grep -q "ERR IB" "$dir/osm.log" && flunk "our engine logged errors" || pass "no ERR line of ours in $(grep -c 'pira tables configured' "$dir/osm.log") routing runs"

opensm_stop
# leak and error records whose stack passes through our plugin
ours=$(awk '/^==[0-9]+== *$/ { if (rec ~ /libibrouting|ibr_|pira|fera/ && rec ~ /(definitely lost|Invalid|uninitialised)/) n++; rec = ""; next }
	{ rec = rec $0 "\n" } END { print n + 0 }' "$dir/valgrind.log")
if [ "$ours" = 0 ] && grep -q "ERROR SUMMARY" "$dir/valgrind.log"; then
	pass "valgrind over $(grep -c 'pira tables configured' "$dir/osm.log") routing runs: no leak or invalid access in libibrouting ($(grep 'ERROR SUMMARY' "$dir/valgrind.log" | sed 's/^==[0-9]*== //') in OpenSM as a whole)"
else
	flunk "valgrind: $ours records in our plugin"
	grep -B2 -A12 "libibrouting" "$dir/valgrind.log" | head -40 | sed 's/^/# /'
fi
finish
