#!/bin/sh
# e2e_double_scheme.sh - transition double_scheme in a running OpenSM over
# ibsim (doc/double-scheme-plugin.md 5.5): pira+fera at lmc 2 with qos
# TRUE; the log shows the six sub-steps in order, SL-to-VL tables read back
# restricted during the transition (hybrid_final_delay spaces the passes)
# and restored after, and the final tables read back from the switches
# equal the plugin's dump, which the verifier accepts.
set -eu
# ibsim attaches the SM to the first node of the net file, here switch
# "kary L0 S0", on its base port 0: -D 0 is that switch's port 0, which
# OpenSM's QoS setup skips without enhanced port 0 (osm_qos_setup: "skip
# base port 0"), so it keeps ibsim's default SL-to-VL table.  The CA
# read back is 0,1,1: out of the SM's switch on port 1 to "kary L1 S0",
# out of its port 1 to a CA.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
need_tool smpquery

net=$TMP/ds.net
"$IBROUTING" generate -o "$net" kary:k=4,n=2 > /dev/null
ibsim_start "$net"
dir=$TMP/ds
mkdir -p "$dir/ours"
printf 'dump_dir %s/ours\nhybrid_final_delay 2500\ntransition double_scheme\n' "$dir" > "$dir/plugin.conf"
export IBROUTING_CONF=$dir/plugin.conf
OSM_DEBUG=0x07 opensm_daemon "$dir" pira+fera "$(printf 'lmc 2\nqos TRUE\npacket_life_time 8\nhead_of_queue_lifetime 8\nleaf_head_of_queue_lifetime 8\nsweep_interval 0')" ||
	flunk "OpenSM did not bring the subnet up"

sl2vl() { LD_PRELOAD=$UMAD2SIM smpquery -D sl2vl "$@" 2>&1 | grep 'ports:' | head -1; }
restricted='| 0| 1| 2| 3| 0| 1| 2| 3| 4| 5| 6| 7| 4| 5| 6| 7|'
normal='| 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|'
ca_path=0,1,1
LD_PRELOAD=$UMAD2SIM smpquery -D nodeinfo "$ca_path" 2>&1 | grep -q 'NodeType:.*Channel Adapter' ||
	flunk "directed route $ca_path does not reach a CA"
during_ca= during_sw=
for _ in $(seq 1 300); do
	if grep -q 'double scheme step 2/6' "$dir/osm.log" && [ -z "$during_ca" ]; then
		during_ca=$(sl2vl "$ca_path"); during_sw=$(sl2vl 0,1 2)
	fi
	grep -q 'double scheme step 6/6' "$dir/osm.log" && break
	sleep 0.2
done
sleep 2
after_ca=$(sl2vl "$ca_path"); after_sw=$(sl2vl 0,1 2)

steps=$(sed -n 's/.*-> ds_step: .*double scheme step \([1-6]\)\/6: .*/\1/p' "$dir/osm.log" | tr -d '\n')
if [ "$steps" = 123456 ]; then
	pass "the six sub-steps in order"
else
	flunk "sub-steps logged: '$steps'"
fi
grep 'double scheme step\|ERR IB\|transition by the Double' "$dir/osm.log" | sed 's/^/# /' | cut -c1-220
case "$during_ca" in *"$restricted"*) pass "CA port restricted during the transition: $during_ca" ;; *) flunk "CA port during: '$during_ca'" ;; esac
case "$during_sw" in *"$restricted"*) pass "switch port restricted during the transition: $during_sw" ;; *) flunk "switch port during: '$during_sw'" ;; esac
case "$after_ca" in *"$normal"*) pass "CA port restored: $after_ca" ;; *) flunk "CA port after: '$after_ca'" ;; esac
case "$after_sw" in *"$normal"*) pass "switch port restored: $after_sw" ;; *) flunk "switch port after: '$after_sw'" ;; esac

switch_lfts > "$dir/switches.lft"
dump_lfts "$dir/ours/opensm-lfts.dump" > "$dir/ours.lft"
# fera's root set (the four top switches, from the log: roots_opt) tells
# the verifier that the top switches' LIDs owe each other no route: no
# root is above two roots, so those 12 entries are IBR_NO_PATH by contract
"$IBROUTING" verify $(roots_opt "$dir") "$dir/ours" > "$dir/verify.out" 2>&1 || true
if [ -s "$dir/switches.lft" ] && cmp -s "$dir/switches.lft" "$dir/ours.lft" &&
   grep -q '^verify    OK' "$dir/verify.out"; then
	pass "final tables read back equal the plugin's dump; $(sed -n 's/^verify    //p' "$dir/verify.out" | cut -c1-80)"
else
	flunk "final tables differ from the dump or do not verify"
	grep '^verify' "$dir/verify.out" | sed 's/^/# /'
fi
opensm_stop
finish
