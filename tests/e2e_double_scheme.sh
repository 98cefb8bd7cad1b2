#!/bin/sh
# e2e_double_scheme.sh - transition double_scheme in a running OpenSM over
# ibsim (doc/double-scheme-plugin.md 5.5): pira+fera at lmc 2 with qos
# TRUE; the log shows the six sub-steps in order, SL-to-VL tables read back
# restricted during the transition (hybrid_final_delay spaces the passes),
# OpenSM's copies of every port's table restricted before the drain of
# the new VLs counts, even when ibsim drops one port's Set (R6), and
# restored after, and the final tables read back from the switches
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
ds_fabric ds
dir=$TMP/ds
mkdir -p "$dir/ours"
# two CAs of the net file (ca_names: "PORT-GUID NAME"): a PathRecord
# from the first to the second, through tests/prquery ("dlid N slid M sl S")
ca_names "$net" > "$dir/ca_names"
# R6: ibsim drops every SL-to-VL MAD (attribute 0x17) of the last CA
# until the first restriction has been missed: OpenSM's Set times out
# (no subnet error for that attribute), so the plugin must see the CA's
# table unrestricted (WRN IB43) and start the drain clock only on a later
# pass that set it
lossy=$(sed -n '$p' "$dir/ca_names" | cut -d' ' -f2)
echo "Error \"$lossy\" 100 0x17" >&7
printf 'dump_dir %s/ours\nhybrid_final_delay 2500\ntransition double_scheme\n' "$dir" > "$dir/plugin.conf"
export IBROUTING_CONF=$dir/plugin.conf
OSM_DEBUG=0x07 opensm_daemon "$dir" pira+fera "$(printf 'lmc 2\nqos TRUE\n%s\nsweep_interval 0' "$DS_LIFETIMES")" ||
	flunk "OpenSM did not bring the subnet up"

sl2vl() { LD_PRELOAD=$UMAD2SIM smpquery -D sl2vl "$@" 2>&1 | grep 'ports:' | head -1; }
restricted='| 0| 1| 2| 3| 0| 1| 2| 3| 4| 5| 6| 7| 4| 5| 6| 7|'
normal='| 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|'
ca_path=0,1,1
LD_PRELOAD=$UMAD2SIM smpquery -D nodeinfo "$ca_path" 2>&1 | grep -q 'NodeType:.*Channel Adapter' ||
	flunk "directed route $ca_path does not reach a CA"
src_host=$(sed -n 1p "$dir/ca_names" | cut -d' ' -f2)
dst_guid=$(sed -n 2p "$dir/ca_names" | cut -d' ' -f1)
dst_base=$(port_base_lid "$dst_guid")
[ -n "$dst_base" ] || flunk "no base LID for $dst_guid"
pr() { SIM_HOST=$src_host LD_PRELOAD=$UMAD2SIM "$PRQUERY" "$dst_guid" 2>&1 | head -1; }
# pr_check WHEN HALF ANSWER: the DLID in the destination's HALF (base +
# 2*HALF .. +1 at lmc 2), the SL's bit 3 equal to HALF (path_sl)
pr_check() {
	set -- "$1" "$2" $3
	if [ "$3" = dlid ] && [ "$7" = sl ] && [ "$4" -ge $((dst_base + 2 * $2)) ] &&
	   [ "$4" -le $((dst_base + 2 * $2 + 1)) ] && [ $((($8 >> 3) & 1)) -eq "$2" ]; then
		pass "PathRecord $1 on half $2 (base LID $dst_base): dlid $4 slid $6 sl $8"
	else
		shift 2
		flunk "PathRecord $1: want half $2 of base LID $dst_base, got '$*'"
	fi
}
during_ca= during_sw= pr_before=
lossy_cleared=
# until step 6 is logged (600 s at most: only a failure takes that long)
end=$(( $(date +%s) + 600 ))
while [ "$(date +%s)" -lt "$end" ] && kill -0 "$OSM_PID" 2>/dev/null; do
	if [ -z "$lossy_cleared" ] && grep -q 'WRN IB43' "$dir/osm.log"; then
		echo "Error \"$lossy\" 0 0x17" >&7
		lossy_cleared=yes
	fi
	if grep -q 'double scheme step 2/6' "$dir/osm.log" && [ -z "$during_ca" ]; then
		during_ca=$(sl2vl "$ca_path"); during_sw=$(sl2vl 0,1 2)
	fi
	if [ -z "$pr_before" ] && grep -q 'double scheme step [1-3]/6' "$dir/osm.log" &&
	   ! grep -q 'double scheme step 4/6' "$dir/osm.log"; then
		pr_before=$(pr)
		grep -q 'double scheme step 4/6' "$dir/osm.log" && pr_before="too late: step 4 already logged"
	fi
	grep -q 'double scheme step 6/6' "$dir/osm.log" && break
	sleep 0.2
done
# and its pass pushed: the re-route completed
osm_wait 300 pushed_after "$dir/osm.log" 'double scheme step 6/6' ||
	echo "# step 6/6 not pushed in 300 s"
after_ca=$(sl2vl "$ca_path"); after_sw=$(sl2vl 0,1 2)
pr_after=$(pr)

steps=$(sed -n 's/.*-> ds_step: .*double scheme step \([1-6]\)\/6: .*/\1/p' "$dir/osm.log" | tr -d '\n')
if [ "$steps" = 123456 ]; then
	pass "the six sub-steps in order"
else
	flunk "sub-steps logged: '$steps'"
fi
grep 'double scheme step\|ERR IB\|WRN IB43\|read back restricted\|transition by the Double' "$dir/osm.log" | sed 's/^/# /' | cut -c1-220
# R6: the drain of VL set B counts from the pass whose SL-to-VL Sets all
# came back restricted, after step 1 and before the wait of step 3
order=$(sed -n 's/.*double scheme step \([13]\)\/6: .*/\1/p
	s/.*WRN IB43: .*double scheme: \([0-9]*\) of [0-9]* SL-to-VL tables not restricted.*/W\1/p
	s/.*double scheme: \([0-9]*\) SL-to-VL tables read back restricted.*/R\1/p' "$dir/osm.log" | uniq | tr '\n' ' ')
case "$order" in
"1 W1 "*"R"[1-9]*" 3 ") pass "SL-to-VL tables read back: one missed (ibsim dropped its Set), restricted on a later pass, before the drain counts: $order" ;;
*) flunk "step 1, one table missed, the restriction read back, step 3: got '$order'" ;;
esac
lossy_guid=$(sed -n '$p' "$dir/ca_names" | cut -d' ' -f1)
grep -q "WRN IB43: .*(GUID $lossy_guid)" "$dir/osm.log" ||
	flunk "WRN IB43 does not name the port of \"$lossy\" (GUID $lossy_guid)"
case "$during_ca" in *"$restricted"*) pass "CA port restricted during the transition: $during_ca" ;; *) flunk "CA port during: '$during_ca'" ;; esac
case "$during_sw" in *"$restricted"*) pass "switch port restricted during the transition: $during_sw" ;; *) flunk "switch port during: '$during_sw'" ;; esac
case "$after_ca" in *"$normal"*) pass "CA port restored: $after_ca" ;; *) flunk "CA port after: '$after_ca'" ;; esac
case "$after_sw" in *"$normal"*) pass "switch port restored: $after_sw" ;; *) flunk "switch port after: '$after_sw'" ;; esac
grep 'switch the SA to half' "$dir/osm.log" | sed 's/^/# /' | cut -c1-220
pr_check "before step 4" 0 "$pr_before"
pr_check "after step 6" 1 "$pr_after"

# fera's root set (the four top switches, from the log: roots_opt) tells
# the verifier that the top switches' LIDs owe each other no route: no
# root is above two roots, so those 12 entries are IBR_NO_PATH by contract
same_as_dump "$dir" '^verify    OK' "final tables" $(roots_opt "$dir")
opensm_stop
finish
