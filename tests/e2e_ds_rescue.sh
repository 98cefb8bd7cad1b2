#!/bin/sh
# e2e_ds_rescue.sh - a way the safe steps cannot finish and the Double
# Scheme can, in a running OpenSM over ibsim:
# pira+fera at lmc 2 with qos TRUE on tests/fabrics/ladder2x68.net, the
# plugin's root at the ladder's corner (root 0x200000), twice on a fresh
# ibsim, the plugin option `transition` the only difference:
#   - safe_steps (the default): the final pass goes in safe steps, 64 of
#     them, then the machine stops ("change refused, the prior tables stay: too many
#     steps"), no last step, no error; the tables it keeps, read back from
#     the switches, equal the plugin's dump and verify (the way stops
#     safely, it does not finish);
#   - double_scheme: the six sub-steps in order and the final tables read
#     back from the switches equal the plugin's dump, which the verifier
#     accepts.
# Why the steps run out: with the root at a corner, PIRa reaches the far
# corner's LID along row 0 (row 1's switches climb their rungs) and FERa
# along row 1 (row 0's switches go down their rungs).  A row-1 switch may
# take its down entry only once the switch below it no longer goes up
# (transition.h), so the row turns one switch per step: 67 steps for that
# LID, past IBR_RECONF_MAX_STEPS (64).  The Double Scheme never mixes the
# two functions on one VL set, so it needs no such order.  It takes a deep
# orientation: rooted at the ladder's centre (root auto, 35 hops deep)
# the same way ends in 33 steps.  A deeper auto root would sit 64 or more hops from
# some switch, beyond OpenSM's directed routes (63 hops); here the SM sits
# at the centre, within 35 hops of every switch, and the root is chosen.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

net=$FABRICS_DIR/ladder2x68.net
osm_opts=$(printf 'lmc 2\nqos TRUE\n%s\nsweep_interval 0' "$DS_LIFETIMES")

# the way's end (grep -E): the safe steps stopped or done, the Double
# Scheme's last sub-step, or the prior tables kept for good (not
# while the drain gate holds a sub-step: "the drain bound has not passed")
way_end='change refused, the prior tables stay: (a |no |too |the final)|final pass \(fera\), step [0-9]+, the last|double scheme step 6/6'
# run NAME TRANSITION: ibsim afresh, OpenSM with pira+fera, plugin rooted at
# the corner, hybrid_final_delay 0 (each pass asked for as soon as the one
# before is pushed); returns once the log shows the way ended and its
# last pass pushed (a re-route completed after it).  Bounded: 64 steps,
# each a re-route, take minutes on a loaded machine.
run() {
	ibsim_start "$net"
	dir=$TMP/$1
	mkdir -p "$dir/ours"
	printf 'dump_dir %s/ours\nhybrid_final_delay 0\nroot 0x200000\ntransition %s\n' \
		"$dir" "$2" > "$dir/plugin.conf"
	IBROUTING_CONF=$dir/plugin.conf OSM_DEBUG=0x07 opensm_daemon "$dir" pira+fera "$osm_opts" ||
		flunk "$1: OpenSM did not bring the subnet up"
	osm_wait 900 pushed_after "$dir/osm.log" "$way_end" ||
		echo "# $1: no end of the way pushed in 900 s"
}

# readback NAME WHAT: the tables read back from the switches equal the
# plugin's last dump, and the verifier accepts the dump
readback() {
	switch_lfts > "$dir/switches.lft"
	dump_lfts "$dir/ours/opensm-lfts.dump" > "$dir/ours.lft"
	"$IBROUTING" verify $(roots_opt "$dir") "$dir/ours" > "$dir/verify.out" 2>&1 || true
	if [ -s "$dir/switches.lft" ] && cmp -s "$dir/switches.lft" "$dir/ours.lft" &&
	   grep -q '^verify    OK' "$dir/verify.out"; then
		pass "$1: $2 read back equal the plugin's dump; $(grep -m1 '^verify    ' "$dir/verify.out" | cut -c11-90)"
	else
		flunk "$1: $2 differ from the dump or do not verify"
		grep '^verify' "$dir/verify.out" | sed 's/^/# /'
	fi
}

no_errors() {
	if grep -q 'ERR IB\|ERR [0-9A-F]*:' "$dir/osm.log"; then
		flunk "$1: errors in the log"
		grep 'ERR' "$dir/osm.log" | head -5 | sed 's/^/# /' | cut -c1-220
	else
		pass "$1: no ERR line in OpenSM's log"
	fi
}

run safe safe_steps
steps=$(grep -c 'final pass (fera), step [0-9]*: .*entries moved to the final tables' "$dir/osm.log" || true)
kept=$(grep 'change refused, the prior tables stay' "$dir/osm.log" | head -1)
if [ "$steps" = 64 ] && grep -q 'final pass (fera), step 64: ' "$dir/osm.log" &&
   grep -q 'change refused, the prior tables stay: too many steps' "$dir/osm.log" &&
   grep -q 'WRN IB26: .*too many steps towards the final tables after 64 steps ([1-9][0-9]* entries left)' "$dir/osm.log" &&
   ! grep -q 'final pass (fera), step [0-9]*, the last' "$dir/osm.log"; then
	pass "safe steps: $steps steps, then the final pass says: $(echo "$kept" | sed 's/.*\(change refused, the prior tables stay\)/\1/'); $(grep -o 'WRN IB26: .*' "$dir/osm.log" | head -1)"
else
	flunk "safe steps: $steps steps logged, kept line '$kept'"
	grep 'IB26\|kept\|the last' "$dir/osm.log" | sed 's/^/# /' | cut -c1-220
fi
no_errors "safe steps"
readback "safe steps" "the tables kept"
opensm_stop
ibsim_stop

run ds double_scheme
steps=$(sed -n 's/.*-> ds_step: .*double scheme step \([1-6]\)\/6: .*/\1/p' "$dir/osm.log" | tr -d '\n')
if [ "$steps" = 123456 ]; then
	pass "Double Scheme: the six sub-steps in order"
else
	flunk "Double Scheme: sub-steps logged: '$steps'"
fi
grep -e '-> ds_step: ' "$dir/osm.log" | sed 's/.*-> ds_step: /# /' | cut -c1-160
no_errors "Double Scheme"
readback "Double Scheme" "the final tables"
opensm_stop
finish
