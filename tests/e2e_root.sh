#!/bin/sh
# e2e_root.sh - the configured root dies under a running OpenSM.
#
# OpenSM runs as a daemon (sweep every second) with our plugin over the
# Fig. 1 fabric served by ibsim; root_guid_file names switch 3 (0x200003),
# not the SM's switch (switch 1, where the SM's host hangs).  Once OpenSM
# has routed from switch 3, ibsim's console unlinks every link of it (the
# switch dies; switches 8 and 9 and their hosts go with it, the rest keeps
# the cycle 2-5-10-6).  After the re-route:
#   - with root_fallback next (the default), for pira and for fera: the
#     log has WRN IB27 naming the dead root, OpenSM used our engine (no
#     minhop) and logged no error, the root is the next link of the chain
#     (the SM's switch); the tables read back from the switches (dump_fts)
#     verify (`ibrouting verify`: no loop, all delivered, acyclic),
#     ibdmchk finds no credit loop in the plugin's dump of them (opensm.fdbs;
#     OpenSM writes its own at a heavy sweep, not at the re-route that
#     ends a way in steps),
#     and they equal `ibrouting
#     route --root 0x200003` offline on the fabric OpenSM then saw, whose
#     own chain passes over the missing GUID the same way;
#   - the hybrid pira+fera: WRN IB27, both passes after the unlink from
#     the SM's switch, the tables read back verify;
#   - with root_fallback refuse: ERR IB12 naming the dead root, and
#     OpenSM's own fallback engine configures the tables (what it measured
#     of them is printed, not judged: they are OpenSM's).
# Prints the seconds from the unlink to the new prior tables.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

started=$(date +%s.%N)
net=$FABRICS_DIR/fig1.net
root=0x0000000000200003
sm_switch=0x0000000000200001
ibsim_start "$net"
printf '# the configured root: switch 3 of Fig. 1\n%s\n' "$root" > "$TMP/roots"

# count PATTERN LOG: lines of LOG matching PATTERN (grep -E), 0 if none
count() {
	grep -cE -- "$1" "$2" 2>/dev/null || true
}

# wait_for PATTERN LOG N: until LOG has N lines matching PATTERN (300 s
# at most)
wait_for() { osm_wait 300 has_lines "$@"; }
has_lines() { [ "$(count "$1" "$2")" -ge "$3" ]; }

now() { date +%s.%N; }

# runs ENGINE: the INFO line of each of ENGINE's runs in $dir/osm.log (not
# the VERBOSE phases line after it)
runs() { grep -F -e "build_lid_matrices: $1: " -e "build_lid_matrices: $1, " "$dir/osm.log" | grep ' switches, '; }

# routed_since MARK: after line MARK of $dir/osm.log, tables configured
# and then SUBNET UP (a heavy sweep's end: its dumps written)
routed_since() {
	tail -n +"$(($1 + 1))" "$dir/osm.log" | awk '/tables configured on all switches/ { r = 1 }
		r && /SUBNET UP/ { ok = 1 } END { exit !ok }'
}

# kill_root NAME ENGINE PLUGIN-CONF: OpenSM with ENGINE and opensm-plugin.conf
# PLUGIN-CONF (`root sm`: the chain's next link is the SM's switch, whose
# tables the test knows), routed once from the configured root; the root switch
# unlinked; returns once OpenSM has routed again (any engine) and brought
# the subnet up, its dumps of the new fabric written.  Sets dir, seconds.
kill_root() {
	dir=$TMP/$1
	mkdir -p "$dir/dump" "$dir/ours/dump"
	printf '%s\ndump_dir %s/ours/dump\n' "$3" "$dir" > "$dir/plugin.conf"
	# 0x47: VERBOSE for REROUTE COMPLETE (pushed_after); the phases lines
	# it adds are not runs (runs)
	IBROUTING_CONF=$dir/plugin.conf OSM_DEBUG=0x47 opensm_daemon "$dir" "$2" \
		"$(printf 'sweep_interval 1\nroot_guid_file %s\ndump_files_dir %s/dump/' "$TMP/roots" "$dir")" ||
		{ flunk "$1: OpenSM did not come up"; return 1; }
	if wait_for "tables configured on all switches" "$dir/osm.log" 1 &&
	   grep -q "build_lid_matrices: $2: .*root $root" "$dir/osm.log"; then
		pass "$1: $2 routed from the configured root $root"
	else
		flunk "$1: $2 did not route from $root first"
		grep -E "ERR|WRN|build_lid_matrices" "$dir/osm.log" | head -5 | sed 's/^/# /'
	fi
	# a hybrid: its final pass in place first (pushed)
	final_pass="build_lid_matrices: $(echo "$2" | sed 's/+/[+]/g'): final pass"
	case $2 in *+*) osm_wait 300 pushed_after "$dir/osm.log" "$final_pass" ||
		flunk "$1: no final pass pushed before the unlink" ;;
	esac
	finals=$(count "$final_pass" "$dir/osm.log")
	mark=$(wc -l < "$dir/osm.log")
	t0=$(now)
	echo "Unlink \"S-sw3\"" >&7
	if ! osm_wait 300 routed_since "$mark"; then
		flunk "$1: no re-route within 300 s of the unlink"
		return 1
	fi
	# a single engine's way after the change (reconf.h): a step first
	# when its union with the prior tables is not clean
	case $2 in *+*) ;; *) wait_way_done "$dir/osm.log" "$2" ||
		{ flunk "$1: the way after the unlink did not end"; return 1; } ;;
	esac
	seconds=$(echo "$t0 $(now)" | awk '{ printf "%.1f", $2 - $1 }')
	# the dumps of that sweep: OpenSM writes them before it logs SUBNET UP
	! grep -qi "NodeGUID:${root#0x}" "$dir/dump/opensm-subnet.lst" ||
		flunk "$1: the dumps after SUBNET UP still list the root"
}

# restore: the next OpenSM starts on the whole fabric
restore() {
	opensm_stop
	ibsim_do "ReLink \"S-sw3\""
}

# judge_readback NAME: the switches' tables (dump_fts) as an
# opensm-lfts.dump beside OpenSM's subnet list, judged by judge_dump
judge_readback() {
	mkdir -p "$TMP/$1/readback/dump"
	switch_lfts > "$TMP/$1/switches.lft"
	cp "$TMP/$1/dump/opensm-subnet.lst" "$TMP/$1/readback/dump/"
	lfts_dump "$TMP/$1/readback/dump/opensm-subnet.lst" 0 < "$TMP/$1/switches.lft" \
		> "$TMP/$1/readback/dump/opensm-lfts.dump"
	judge_dump "$TMP/$1/readback"
}

# ibdmchk_osm_dump DIR: ibdmchk on the routes OpenSM dumped for its last
# run (DIR/dump/opensm.fdbs: ibdmchk reads no other form), its report in
# DIR/ibdmchk.out
ibdmchk_osm_dump() {
	: > "$1/empty.mcfdbs"
	# ibdmchk 1.5.7 segfaults after its report: waited for by the
	# subshell (not exec'd), whose stderr, where the shell reports the
	# crash, goes nowhere
	(cd "$1" && ibdmchk -s dump/opensm-subnet.lst -f dump/opensm.fdbs \
		-m empty.mcfdbs > ibdmchk.out 2>&1 || true) 2>/dev/null
}

for engine in pira fera; do
	name=$engine-next
	kill_root "$name" "$engine" "root sm" || { restore; continue; }
	log_has "$name" "WRN IB27: $engine: root GUID $root of root_guid_file .* is not in the fabric; the root is the SM's switch" \
		"the dead root is named and passed over"
	routed=$(count "$engine tables configured on all switches" "$dir/osm.log")
	if [ "$routed" -ge 2 ] && ! grep -q "building routing with 'minhop'" "$dir/osm.log" &&
	   [ "$(runs "$engine" | tail -n 1 | grep -c "root $sm_switch")" = 1 ]; then
		pass "$name: re-routed by $engine in ${seconds} s from the unlink, root $sm_switch, no minhop: $(runs "$engine" | tail -n 1 | sed "s/.*build_lid_matrices: //" | cut -c1-80)"
	else
		flunk "$name: not re-routed by $engine from $sm_switch"
		grep -E "ERR|building routing|tables configured|build_lid_matrices" "$dir/osm.log" | tail -8 | sed 's/^/# /'
	fi
	# errors of ours; OpenSM's own (the traps of the dying links, which
	# it logs at the error level) are counted, not judged
	if grep ' 0x01 -> ' "$dir/osm.log" | grep -q 'ERR IB'; then
		flunk "$name: our engine logged errors:"
		grep ' 0x01 -> ' "$dir/osm.log" | grep 'ERR IB' | head -5 | sed 's/^/# /'
	else
		pass "$name: no ERR line of ours in OpenSM's log ($(count ' 0x01 -> ' "$dir/osm.log") error-level lines of OpenSM's, $(count ' 0x01 -> log_trap_info' "$dir/osm.log") of them traps)"
	fi
	judge_readback "$name"
	if [ "$findings" = 0 ] && [ "$cycles" = 0 ]; then
		pass "$name: $(wc -l < "$dir/switches.lft") entries read back from the switches: ibrouting $(grep '^verify' "$dir/readback/verify.out" | cut -c11-90)"
	else
		flunk "$name: tables read back: $findings findings, $cycles dependency cycles"
		grep -E "^verify|^  " "$dir/readback/verify.out" | head -5 | sed 's/^/# /'
	fi
	# the plugin's dumps of its last push: OpenSM writes its own at a
	# heavy sweep, not at the re-route that ends a way in steps
	ibdmchk_osm_dump "$dir/ours"
	if grep -q "no credit loops found" "$dir/ours/ibdmchk.out" && ! grep -q -- "-E-" "$dir/ours/ibdmchk.out"; then
		pass "$name: ibdmchk: $(grep -o 'Scanned:[0-9]* CA to CA paths' "$dir/ours/ibdmchk.out"), no credit loops found"
	else
		flunk "$name: ibdmchk reports problems:"
		grep -E -- "-E-|-W-|credit" "$dir/ours/ibdmchk.out" | head -10 | sed 's/^/# /'
	fi
	# the tool's chain on the fabric OpenSM saw: the same GUID passed over
	sm=$(sm_node_guid "$dir/dump/opensm-subnet.lst")
	"$IBROUTING" route -e "$engine" --root "$root" --sm "$sm" --print-lfts "$dir/dump" \
		2> "$dir/offline.err" | grep '^0x' | sort > "$dir/offline.lft" || true
	if grep -q "WRN: --root $root is not in the fabric" "$dir/offline.err" &&
	   [ -s "$dir/offline.lft" ] && cmp -s "$dir/switches.lft" "$dir/offline.lft"; then
		pass "$name: the switches hold what 'ibrouting route --root $root' computes offline on OpenSM's dump (the tool passes over the missing root too)"
	else
		flunk "$name: switch tables differ from 'ibrouting route --root $root' offline"
		{ cat "$dir/offline.err"; diff "$dir/switches.lft" "$dir/offline.lft" | head -5; } | sed 's/^/# /'
	fi
	restore
done

# A hybrid: both passes after the unlink route from the next link of the
# chain (the final pass keeps the provisional pass's root).
name=pira+fera-next
if kill_root "$name" pira+fera "root sm"; then
	wait_for "build_lid_matrices: pira[+]fera: final pass" "$dir/osm.log" $((finals + 1)) &&
	osm_wait 300 pushed_after "$dir/osm.log" "build_lid_matrices: pira[+]fera: final pass" ||
		flunk "$name: no final pass pushed after the unlink"
	log_has "$name" "WRN IB27: pira\+fera: root GUID $root of root_guid_file .* is not in the fabric; the root is the SM's switch" \
		"the dead root is named and passed over"
	after=$(runs pira+fera | grep -E "build_lid_matrices: pira\+fera: (provisional|final) pass" | tail -n 2)
	if echo "$after" | grep -q "provisional pass" && echo "$after" | grep -q "final pass" &&
	   [ "$(echo "$after" | grep -c "root $sm_switch")" = 2 ] &&
	   ! grep -q "building routing with 'minhop'" "$dir/osm.log" &&
	   ! grep ' 0x01 -> ' "$dir/osm.log" | grep -q 'ERR IB'; then
		pass "$name: provisional and final passes after the unlink, both from $sm_switch, no minhop, no ERR of ours"
	else
		flunk "$name: the passes after the unlink:"
		echo "$after" | sed 's/^/# /'
	fi
	judge_readback "$name"
	if [ "$findings" = 0 ] && [ "$cycles" = 0 ]; then
		pass "$name: $(wc -l < "$dir/switches.lft") entries read back from the switches: ibrouting $(grep '^verify' "$dir/readback/verify.out" | cut -c11-90)"
	else
		flunk "$name: tables read back: $findings findings, $cycles dependency cycles"
	fi
fi
restore

name=pira-refuse
if kill_root "$name" pira "$(printf 'root sm\nroot_fallback refuse')"; then
	log_has "$name" "ERR IB12: pira cannot route: root GUID $root of root_guid_file .* is not in the fabric \\(root_fallback refuse\\)" \
		"the engine refuses"
	if used=$(grep -E "tables configured on all switches" "$dir/osm.log" | tail -n 1 |
		sed 's/.* \([^ ]*\) tables configured on all switches.*/\1/') && [ -n "$used" ] && [ "$used" != pira ]; then
		judge_readback "$name"
		ibdmchk_osm_dump "$dir"
		loops=$(grep -c "Found credit loop" "$dir/ibdmchk.out" || true)
		pass "$name: OpenSM's own fallback, $used, configured the tables ${seconds} s after the unlink (read back, our verifier finds $findings findings, $cycles dependency cycles; ibdmchk $loops credit loops; not ours to judge)"
	else
		flunk "$name: no fallback engine configured the tables"
		grep -E "ERR|building routing|tables configured" "$dir/osm.log" | tail -5 | sed 's/^/# /'
	fi
fi
restore
echo "# e2e_root.sh: $(echo "$started $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }') s wall time, four OpenSM daemons"
finish
