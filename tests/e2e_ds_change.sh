#!/bin/sh
# e2e_ds_change.sh - a topology change in the middle of a Double Scheme
# transition (doc/double-scheme-plugin.md R5), inside OpenSM over ibsim:
# pira+fera at lmc 2 with qos TRUE on a 4-ary 2-tree, light sweeps every
# second so OpenSM sees ibsim's cuts.
#   - start-up: the transition from half 0 to half 1 runs; ibsim cuts a
#     spine-leaf cable once step 2/6 (the new half pushed, the SA still
#     on half 0) is logged: OpenSM's next sweep gives a provisional pass
#     on half 0, the half in force, and a new transition to half 1 runs
#     all six steps;
#   - ibsim cuts a second cable once that transition's step 5/6 (after
#     the SA switched to half 1) is logged: a provisional pass on half 1,
#     then a transition back to half 0, all six steps;
#   - at the end: no ERR line of ours, the SL-to-VL tables of a CA port and a
#     switch port restored, a PathRecord on half 0 with SL 0 (its SL set),
#     and the tables read back from the switches equal the plugin's last
#     dump, which the verifier accepts on the fabric with both cables cut.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
ds_fabric dsc
dir=$TMP/dsc
mkdir -p "$dir/ours"
# CA port GUIDs and names, for the PathRecord (ca_names)
ca_names "$net" > "$dir/ca_names"
printf 'dump_dir %s/ours\nhybrid_final_delay 2000\ntransition double_scheme\n' "$dir" > "$dir/plugin.conf"
export IBROUTING_CONF=$dir/plugin.conf
OSM_DEBUG=0x07 opensm_daemon "$dir" pira+fera "$(printf 'lmc 2\nqos TRUE\n%s\nsweep_interval 1' "$DS_LIFETIMES")" ||
	flunk "OpenSM did not bring the subnet up"

# steps: the "double scheme step N/6" and provisional-pass lines so far,
# one word each (P0/P1: a provisional pass on half 0/1; N: step N)
steps() {
	sed -n 's/.*provisional pass (pira, LID half \([01]\)).*/P\1/p
		s/.* -> ds_step: .*double scheme step \([1-6]\)\/6: .*/\1/p' "$dir/osm.log" |
		uniq | tr '\n' ' '
}
# wait_for PATTERN: until steps() matches the shell pattern (300 s)
wait_for() { osm_wait 300 steps_match "$1"; }
steps_match() { case "$(steps)" in $1) return 0 ;; esac; return 1; }
# the spine-leaf cables cut: spines S-...200001 and S-...200002 (the SM
# sits on S-...200000), their ports 1 and 2
wait_for 'P0 1 2 *' || flunk "no step 2/6 at start-up: $(steps)"
echo 'Unlink "S-0000000000200001"[1]' >&7
wait_for 'P0 1 2 *P0 1 2 3 4 5 *' || flunk "no step 5/6 after the first cut: $(steps)"
echo 'Unlink "S-0000000000200002"[2]' >&7
wait_for 'P0 1 2 *P0 1 2 3 4 5 *P1 1 2 3 4 5 6 ' || flunk "no end after the second cut: $(steps)"
# the last pass pushed
osm_wait 300 pushed_after "$dir/osm.log" 'double scheme step 6/6' ||
	echo "# step 6/6 not pushed in 300 s"

got=$(steps)
grep 'provisional pass\|double scheme step\|ERR IB\|WRN IB\|Unlink\|link.*down' "$dir/osm.log" |
	cut -c1-200 | sed 's/^/# /'
case "$got" in
"P0 1 2 P0 1 2 3 4 5 P1 1 2 3 4 5 6 ")
	pass "cut at step 2: provisional on half 0, a new transition; cut at step 5: provisional on half 1, the transition back: $got" ;;
"P0 1 2 "*"P0 1 2 3 4 5 "*"P1 1 2 3 4 5 6 ")
	# a step logged twice around a cut (the pass that saw it) is no error
	pass "the same, with a pass between: $got" ;;
*) flunk "passes: '$got'" ;;
esac
# ours only: a cable cut while OpenSM sends a pass times out the SMPs
# that were on their way through it (ERR 5411/3113 for an SL-to-VL Set,
# OpenSM's own lines), which is the cut, not an error of the transition
if grep -q 'ERR IB' "$dir/osm.log"; then
	flunk "ERR lines of ours in OpenSM's log"
	grep 'ERR IB' "$dir/osm.log" | head -5 | sed 's/^/# /'
else
	pass "no ERR line of ours in OpenSM's log ($(grep -c 'ERR ' "$dir/osm.log" || true) of OpenSM's: MADs lost with the cables)"
fi

sl2vl() { LD_PRELOAD=$UMAD2SIM smpquery -D sl2vl "$@" 2>&1 | grep 'ports:' | head -1; }
normal='| 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|'
for route in "0,1,1" "0,1 2"; do
	# shellcheck disable=SC2086 # the switch's route and port: two words
	t=$(sl2vl $route)
	case "$t" in *"$normal"*) pass "SL-to-VL restored on $route: $t" ;; *) flunk "SL-to-VL on $route: '$t'" ;; esac
done

src_host=$(sed -n 1p "$dir/ca_names" | cut -d' ' -f2)
dst_guid=$(sed -n 2p "$dir/ca_names" | cut -d' ' -f1)
dst_base=$(port_base_lid "$dst_guid")
[ -n "$dst_base" ] || { flunk "no base LID for $dst_guid"; dst_base=0; }
set -- $(SIM_HOST=$src_host LD_PRELOAD=$UMAD2SIM "$PRQUERY" "$dst_guid" 2>&1 | head -1)
if [ "${1:-}" = dlid ] && [ "${5:-}" = sl ] && [ "$2" -ge "$dst_base" ] &&
   [ "$2" -le $((dst_base + 1)) ] && [ $((${6} & 8)) -eq 0 ]; then
	pass "PathRecord on half 0 after the transition back (base LID $dst_base): dlid $2 sl $6"
else
	flunk "PathRecord: want half 0 of base LID $dst_base and SL < 8, got '$*'"
fi

same_as_dump "$dir" '^verify    OK' "final tables" $(roots_opt "$dir")
opensm_stop
finish
