#!/bin/sh
# e2e_mcast.sh - multicast over our routes.  OpenSM runs as a daemon with
# pira, then fera, over the Fig. 1 fabric; four hosts join one group
# through the SA (tests/mc_join); OpenSM's multicast manager builds the
# tree from the switch hop tables our plugin fills.  The multicast tables
# read back from the switches (ibroute -M) must, for a packet from every
# member, reach every other member exactly once, no non-member, and never
# a switch twice; OpenSM logs no error.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
MC_JOIN=${MC_JOIN:-$(dirname "$IBROUTING")/tests/mc_join}
[ -x "$MC_JOIN" ] || { echo "# $MC_JOIN not built"; exit 77; }

net=$FABRICS_DIR/fig1.net
members="host4 host11 host13 host15"
switch_lids="1 2 3 5 6 8 9 10"
ibsim_start "$net"

# "SWITCH PORT PEER" for every switch port of the net file (peer = node id)
awk '/^Switch/ { sw = $3; gsub(/"/, "", sw); next }
     /^(Ca|Hca)/ { sw = ""; next }
     sw != "" && /^\[[0-9]+\]/ { p = substr($1, 2) + 0; peer = $2; sub(/\[.*/, "", peer); gsub(/"/, "", peer); print sw, p, peer }' \
	"$net" > "$TMP/links"

for engine in pira fera; do
	dir=$TMP/mc-$engine
	opensm_daemon "$dir" "$engine" || flunk "$engine: OpenSM did not come up"
	joined=0
	for m in $members; do
		SIM_HOST=H-$m LD_PRELOAD=$UMAD2SIM "$MC_JOIN" 4242 2>/dev/null > "$dir/join-$m" &&
			joined=$((joined + 1))
	done
	mlid=$(sed -n 's/^mlid //p' "$dir/join-host4")
	sleep 2
	# "SWITCH PORT" of every port set for the group in the switches' MFTs
	for lid in $switch_lids; do
		LD_PRELOAD=$UMAD2SIM ibroute -M "$lid" 2>/dev/null | awk -v m="$mlid" '
			/^Multicast mlids/ { match($0, /\(fig1 switch lid [0-9]+\)/)
				sw = "S-sw" substr($0, RSTART + 17, RLENGTH - 18) }
			/Ports:/ { hdr = $0 }
			tolower($1) == tolower(m) { for (i = 1; i <= length(hdr); i++)
				if (substr(hdr, i, 1) ~ /[0-9]/ && substr(hdr, i - 1, 1) == " " ) {
					n = substr(hdr, i); sub(/ .*/, "", n)
					if (substr($0, i, 1) == "x") print sw, n } }'
	done > "$dir/mft"
	# flood from each member along the MFTs
	verdict=$(awk -v members="$members" '
		FILENAME == ARGV[1] { peer[$1 " " $2] = $3; next }
		{ inmft[$1 " " $2] = 1; sws[$1] = 1 }
		END {
			n = split(members, mem, " "); bad = ""
			for (i = 1; i <= n; i++) {
				src = "H-" mem[i]; delete got; delete seen
				# the member hangs off one switch port
				for (k in peer) if (peer[k] == src) { split(k, a, " "); start = a[1]; inport = a[2] }
				qh = 1; qt = 1; qs[1] = start; qi[1] = inport; seen[start] = 1
				while (qh <= qt) { s = qs[qh]; from = qi[qh]; qh++
					for (k in inmft) { split(k, a, " "); if (a[1] != s || a[2] == from) continue
						p = peer[k]
						if (p ~ /^S-/) { if (p in seen) bad = bad " loop@" p; else {
							seen[p] = 1; for (kk in peer) { split(kk, b, " ")
								if (b[1] == p && peer[kk] == s) { qt++; qs[qt] = p; qi[qt] = b[2] } } } }
						else got[p]++ } }
				for (j = 1; j <= n; j++) { d = "H-" mem[j]; if (d != src && got[d] != 1) bad = bad " " src "->" d "x" got[d] }
				for (d in got) { ok = 0; for (j = 1; j <= n; j++) if (d == "H-" mem[j]) ok = 1
					if (!ok) bad = bad " nonmember:" d }
			}
			t = 0; for (s in sws) t++
			print (bad == "" ? "ok " t : "bad" bad) }' "$TMP/links" "$dir/mft")
	opensm_stop
	if [ "$joined" = 4 ] && [ "${verdict%% *}" = ok ] &&
	   grep -q "$engine tables configured" "$dir/osm.log" && ! grep -q ' 0x01 -> ' "$dir/osm.log"; then
		pass "$engine: 4 members joined MLID $mlid; the MFTs of ${verdict#ok } switches form a tree delivering every member's packets to the 3 others exactly once, to no other host; no OpenSM error"
	else
		flunk "$engine: joined $joined, MLID '$mlid', walk: $verdict"
		grep ' 0x01 -> ' "$dir/osm.log" | head -3 | sed 's/^/# /'
		sed 's/^/# mft /' "$dir/mft"
	fi
done
finish
