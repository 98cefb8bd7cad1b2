#!/bin/sh
# e2e_ds_refuse.sh - transition double_scheme refused inside OpenSM over
# ibsim (libibrouting(8), transition): pira+fera on a small fat tree, one
# OpenSM daemon per refusal, each with everything else the Double Scheme
# needs (lmc 2, qos TRUE, lifetimes 8) but one thing:
#   IB40  qos FALSE
#   IB39  lmc 0
#   IB41  max_op_vls 1: OpenSM sets OperVLs 1 (VL0) on every port, which
#         ibsim stores (SubnSet(PortInfo)) and reports back; read back here
#         on a CA port and a switch port.  All 64 linked ports are named
#         (16 CA ports, 48 switch ports), though OpenSM routes before it
#         sets the switch ports
#   IB42  packet_life_time 20: no drain bound
#   IB38  transition bogus in the plugin's file (safe_steps kept)
# They run in this order on one ibsim: IB40's ports still
# hold ibsim's default SL-to-VL table (OpenSM writes none with qos FALSE),
# and IB42's run starts with OperVLs 1 left on the switch ports by IB41's.
# For each: OpenSM's log holds that ERR line once and no other ERR line
# (the hybrid makes two passes or more, the check runs at the transition's
# start), with the values named; no Double Scheme line (no "double scheme
# step", no "transition by the Double Scheme"); the final pass logged and
# OpenSM routed with pira+fera alone (no fallback to minhop); the tables
# read back from the switches equal the plugin's dump, which `ibrouting
# verify` accepts.  One CA port and one switch port read back never hold
# the Double Scheme's restricted SL-to-VL table, but where qos is TRUE
# OpenSM's own (ibsim's default 0..14,7 masked by OperVLs), with qos FALSE
# ibsim's default.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
need_tool smpquery

net=$TMP/refuse.net
"$IBROUTING" generate -o "$net" kary:k=4,n=2 > /dev/null
ibsim_start "$net"

# Directed routes from the SM's node, switch "kary L0 S0" (the first of
# the net file, e2e_double_scheme.sh): 0,1,1 a CA, 0,1 port 2 a switch
# port facing a switch.
ca_path=0,1,1
LD_PRELOAD=$UMAD2SIM smpquery -D nodeinfo "$ca_path" 2>&1 | grep -q 'NodeType:.*Channel Adapter' ||
	flunk "directed route $ca_path does not reach a CA"
sl2vl() { LD_PRELOAD=$UMAD2SIM smpquery -D sl2vl "$@" 2>&1 | grep 'ports:' | head -1; }
opervls() { LD_PRELOAD=$UMAD2SIM smpquery -D portinfo "$@" 2>&1 | sed -n 's/^OperVLs:\.*//p'; }
restricted='| 0| 1| 2| 3| 0| 1| 2| 3| 4| 5| 6| 7| 4| 5| 6| 7|'
normal8='| 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|'
ibsim_default='| 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|'
normal1='| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0| 0|'

# final_done LOG: the last pass of the transition (final pass, or its
# last step) logged, and OpenSM's re-route after it complete.
final_done() {
	awk '/build_lid_matrices: pira\+fera: final pass \(fera\)(, step [0-9]+, the last)?: [0-9]+ switches/ { f = 1; next }
		f && /REROUTE COMPLETE/ { ok = 1 } END { exit !ok }' "$1" 2>/dev/null
}

# refuse NAME TRANSITION SL2VL OPENSM-CONF-LINES ERR-PATTERN: one OpenSM
# daemon with transition TRANSITION; its log holds exactly one ERR line,
# matching ERR-PATTERN (grep -E); SL2VL is the table expected back on the
# ports, a CA's and a switch's.
# (OpenSM reads opensm.conf line by line: a case's line after the
# common ones wins)
refuse() {
	name=$1 dir=$TMP/$1
	mkdir -p "$dir/ours"
	printf 'dump_dir %s/ours\ntransition %s\n' "$dir" "$2" > "$dir/plugin.conf"
	IBROUTING_CONF=$dir/plugin.conf OSM_DEBUG=0x07 opensm_daemon "$dir" pira+fera \
		"$(printf '%s\nsweep_interval 0\n%s' "$DS_LIFETIMES" "$4")" ||
		flunk "$name: OpenSM did not bring the subnet up"
	osm_wait 300 final_done "$dir/osm.log" || echo "# $name: no final pass pushed in 300 s"

	errs=$(grep -c ' 0x01 -> ' "$dir/osm.log" || true)
	passes=$(grep -c 'build_lid_matrices: pira+fera: .* pass (.*[0-9] switches, ' "$dir/osm.log" || true)
	if [ "$errs" = 1 ] && grep -qE -- "$5" "$dir/osm.log" && [ "$passes" -ge 2 ]; then
		pass "$name: one ERR line in $passes passes: $(grep ' 0x01 -> ' "$dir/osm.log" | sed 's/.*-> //' | cut -c1-230)"
	else
		flunk "$name: want one ERR line /$5/ in 2 passes or more, got $errs ERR lines in $passes passes:"
		grep ' 0x01 -> ' "$dir/osm.log" | sed 's/.*-> /# /' | cut -c1-230
	fi

	ds=$(grep -c 'double scheme\|transition by the Double Scheme\|LID half' "$dir/osm.log" || true)
	last=$(sed -n 's/.*build_lid_matrices: \(pira+fera: final pass (fera)[^:]*\): [0-9]* switches.*/\1/p' "$dir/osm.log" | tail -1)
	if [ "$ds" = 0 ] && final_done "$dir/osm.log" &&
	   grep -q "building routing with 'pira+fera'" "$dir/osm.log" &&
	   ! grep -q "building routing with '\(minhop\|updn\)'" "$dir/osm.log"; then
		pass "$name: no Double Scheme; OpenSM routed with pira+fera alone, last pass: $last"
	else
		flunk "$name: $ds Double Scheme lines, last pass '$last', or another engine:"
		grep 'double scheme\|building routing\|ERR\|pass' "$dir/osm.log" | sed 's/.*-> /# /' | cut -c1-200
	fi

	same_as_dump "$dir" '^verify    OK' "$name" $(roots_opt "$dir")

	ca=$(sl2vl "$ca_path") sw=$(sl2vl 0,1 2)
	case "$ca$sw" in
	*"$restricted"*) flunk "$name: SL-to-VL restricted: CA '$ca', switch '$sw'" ;;
	*"$3"*"$3"*) pass "$name: SL-to-VL unrestricted on a CA port and a switch port: $sw" ;;
	*) flunk "$name: SL-to-VL: CA '$ca', switch '$sw', want '$3'" ;;
	esac
	opensm_stop
}

# first: the ports still hold ibsim's default SL-to-VL table
refuse qos_false double_scheme "$ibsim_default" "$(printf 'lmc 2\nqos FALSE')" \
	'choose_transition: ERR IB40: pira\+fera: transition double_scheme needs "qos TRUE" in opensm\.conf \(OpenSM programs SL-to-VL tables only with QoS on\); going in safe steps$'
refuse lmc0 double_scheme "$normal8" "$(printf 'lmc 0\nqos TRUE')" \
	'choose_transition: ERR IB39: pira\+fera: transition double_scheme: the Double Scheme needs LMC >= 1: .*\(opensm\.conf has lmc 0\); going in safe steps$'
refuse one_vl double_scheme "$normal1" "$(printf 'lmc 2\nqos TRUE\nmax_op_vls 1')" \
	'choose_transition: ERR IB41: pira\+fera: the Double Scheme needs 2 data VLs on every port; port [0-9]+ of "[^"]+" \(GUID 0x[0-9a-f]{16}\) has OperVLs 1 \(and 63 more ports too few\); going in safe steps$'
# what ibsim holds after max_op_vls 1 (before the next run changes it)
ca=$(opervls "$ca_path") sw=$(opervls 0,1 2)
if [ "$ca" = VL0 ] && [ "$sw" = VL0 ]; then
	pass "one_vl: ibsim ports read back with OperVLs VL0 (1 data VL): CA $ca_path, switch 0,1 port 2"
else
	flunk "one_vl: OperVLs read back: CA '$ca', switch '$sw', want VL0"
fi
# ibsim's switch ports still hold OperVLs 1 when the next OpenSM routes
# (its link manager sets them after the routing): no IB41 all the same
refuse life20 double_scheme "$normal8" "$(printf 'lmc 2\nqos TRUE\npacket_life_time 20')" \
	'choose_transition: ERR IB42: pira\+fera: the Double Scheme needs a drain bound: packet_life_time and the head-of-queue lifetimes at most 19 \(20 turns the switches. limit off\); going in safe steps$'
refuse bogus bogus "$normal8" "$(printf 'lmc 2\nqos TRUE')" \
	'read_options: ERR IB38: .*/bogus/plugin\.conf:2: transition "bogus": expected double_scheme or safe_steps; using safe_steps$'
finish
