#!/bin/sh
# e2e_rates.sh - the links' widths and speeds of the fabric read.
# tests/fabrics/rates.net states them as ibnetdiscover does (4xHDR,
# 4xEDR, 2xFDR, 12xQDR, 1xDDR, 8xSDR) but for one link, which ibsim
# brings up at its defaults (4x SDR).  Served by ibsim and routed once by
# stock OpenSM with fera, every link's width and speed, from each end, is
# the same in OpenSM's own opensm-subnet.lst (PHY=, SPD=), in the
# plugin's dump (dump_dir: the port info OpenSM holds when it routes) and
# in `ibrouting route --dump-dir` of the file (the reader's ibsim rules).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

net=$FABRICS_DIR/rates.net
mkdir -p "$TMP/ours"
printf 'dump_dir %s/ours\n' "$TMP" > "$TMP/plugin.conf"
export IBROUTING_CONF=$TMP/plugin.conf
ibsim_start "$net"
opensm_run rates fera
"$IBROUTING" route -e fera --dump-dir "$TMP/offline" "$net" > "$TMP/offline.out"

# links DIR: "PORT-GUID PN PEER-GUID PN PHY=.. LOG=.. SPD=.." for every
# line of DIR's subnet list, sorted
links() {
	sed -n 's/.*PortGUID:\([0-9a-f]*\) .*PN:\([0-9A-F]*\) } {.*PortGUID:\([0-9a-f]*\) .*PN:\([0-9A-F]*\) } \(PHY=.*\)/\1 \2 \3 \4 \5/p' \
		"$1/opensm-subnet.lst" | sort
}
links "$TMP/rates/dump" > "$TMP/osm.links"
links "$TMP/ours" > "$TMP/ours.links"
links "$TMP/offline" > "$TMP/offline.links"
rates=$(awk '{ print $5 "/" $7 }' "$TMP/osm.links" | sort | uniq -c | tr -s ' \n' ' ')
if [ "$(wc -l < "$TMP/osm.links")" = 14 ] &&
   cmp -s "$TMP/osm.links" "$TMP/ours.links"; then
	pass "the plugin's dump says each link's width and speed as OpenSM's does:$rates"
else
	flunk "the plugin's dump and OpenSM's differ: $(diff "$TMP/osm.links" "$TMP/ours.links" | head -n 4 | tr '\n' ' ')"
fi
cmp -s "$TMP/ours.links" "$TMP/offline.links" &&
	pass "route --dump-dir of the file says the same" ||
	flunk "route --dump-dir of the file differs: $(diff "$TMP/ours.links" "$TMP/offline.links" | head -n 4 | tr '\n' ' ')"
for want in "PHY=4x/SPD=50" "PHY=4x/SPD=25" "PHY=2x/SPD=14" "PHY=12x/SPD=10" \
	    "PHY=1x/SPD=5" "PHY=8x/SPD=2.5" "PHY=4x/SPD=2.5"; do
	echo "$rates" | grep -q " 2 $want " ||
		flunk "no link at $want in OpenSM's dump: $rates"
done
finish
