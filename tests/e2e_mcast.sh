#!/bin/sh
# e2e_mcast.sh - multicast over our routes.  OpenSM runs as a daemon with
# pira, then fera, over the Fig. 1 fabric; four hosts join one group as
# full members through the SA (tests/mcjoin, SubnAdmSet MCMemberRecord).
# OpenSM's multicast manager picks a root switch and builds the spanning
# tree from the switch hop tables our plugin fills.  The multicast
# forwarding tables read back from the simulated switches (ibroute -M) must:
#   - form a tree: the switches holding the MLID and the links they use
#     are connected and have no cycle (links = switches - 1);
#   - deliver a packet sent by every member to every other member exactly
#     once, back to no sender, to no other host and to no switch port 0;
#   - equal our unicast routes (ibrouting route, offline) from the root
#     switch OpenSM picks to the members' switches, i.e. the tree really
#     follows the hop tables we gave OpenSM (a min-hop model of OpenSM's
#     own tables is computed too, to say whether that tells them apart).
# Then one member leaves (SubnAdmDelete) and the pruned tree is checked the
# same way.  OpenSM must have routed with our engine and logged no error.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
need_tool saquery
MCJOIN=${MCJOIN:-$(dirname "$IBROUTING")/tests/mcjoin}
[ -x "$MCJOIN" ] || skip "$MCJOIN was not built (configure found no libibmad/libibumad: Debian libibmad-dev, libibumad-dev)"

net=$FABRICS_DIR/fig1.net
mgid=ff12:401b:ffff::1234
members="H-host4 H-host11 H-host13 H-host15"
leaver=H-host13
switch_lids="1 2 3 5 6 8 9 10"
nswitches=$(echo $switch_lids | wc -w)

ibsim_start "$net"

# The links of the net file: "SWITCH PORT S PEER-SWITCH PEER-PORT" or
# "SWITCH PORT C CA-NAME CA-PORT", switches by GUID (lowercase hex, no 0x,
# no leading zeros: the form every awk below compares).
awk '
	function norm(g) { g = tolower(g); sub(/^0x/, "", g); sub(/\(.*/, "", g); sub(/^0+/, "", g); return g }
	function name(s) { s = $3; gsub(/"/, "", s); return s }
	FNR == 1 { pass++ }
	pass == 1 && /^switchguid=/ { guid = substr($1, 12); next }
	pass == 1 && /^Switch[ \t]/ { sw[name()] = norm(guid); next }
	pass == 2 && /^Switch[ \t]/ { cur = sw[name()]; next }
	pass == 2 && /^(Ca|Hca)[ \t]/ { cur = ""; next }
	pass == 2 && cur != "" && /^\[[0-9]+\]/ && match($0, /"[^"]*"\[[0-9]+\]/) {
		port = $1; gsub(/[^0-9]/, "", port)
		peer = substr($0, RSTART + 1, RLENGTH - 1); pport = peer
		sub(/".*/, "", peer); sub(/.*\[/, "", pport); sub(/\]/, "", pport)
		if (peer in sw) print cur, port + 0, "S", sw[peer], pport + 0
		else print cur, port + 0, "C", peer, pport + 0
	}' "$net" "$net" > "$TMP/links"
nhosts=$(awk '$3 == "C"' "$TMP/links" | wc -l)

# read_mfts MLID: "LID GUID SWITCH-LID" for every switch read and
# "MFT GUID PORT" for every port its MFT sets for MLID (ibroute -M -n prints
# the port mask in hex, 16 ports a chunk, chunk 0 first).
read_mfts() {
	for lid in $switch_lids; do
		LD_PRELOAD=$UMAD2SIM ibroute -M -n "$lid" "$1" "$1" 2>/dev/null || true
	done | awk -v mlid="$1" '
		function norm(g) { g = tolower(g); sub(/^0x/, "", g); sub(/^0+/, "", g); return g }
		/^Multicast mlids/ {
			for (i = 1; i < NF; i++) {
				if ($i == "Lid") lid = $(i + 1)
				if ($i == "guid") guid = norm($(i + 1))
			}
			print "LID", guid, lid
		}
		tolower($1) == tolower(mlid) {
			for (c = 0; c * 4 < length($2); c++) {
				v = 0; chunk = tolower(substr($2, c * 4 + 1, 4))
				for (i = 1; i <= 4; i++) v = v * 16 + index("0123456789abcdef", substr(chunk, i, 1)) - 1
				for (b = 0; b < 16; b++) if (int(v / 2 ^ b) % 2) print "MFT", guid, c * 16 + b
			}
		}' | sort
}

# wait_mfts DIR MLID MEMBERS: read the MFTs (into DIR/mft) until the host
# ports they set are exactly the members' and two reads agree; bounded
# (120 s at most).  Prints the number of reads; fails on timeout (the
# checks then run on the last read).
wait_mfts() {
	: > "$1/mft"
	n=0 wm_end=$(( $(date +%s) + 120 ))
	while [ "$(date +%s)" -lt "$wm_end" ]; do
		n=$((n + 1))
		cp "$1/mft" "$1/mft.prev"
		read_mfts "$2" > "$1/mft"
		hosts=$(awk 'FILENAME == ARGV[1] { if ($3 == "C") ca[$1 " " $2] = $4; next }
			$1 == "MFT" && ($2 " " $3) in ca { print ca[$2 " " $3] }' "$TMP/links" "$1/mft" | sort | tr '\n' ' ')
		want=$(printf '%s\n' $3 | sort | tr '\n' ' ')
		if [ "$hosts" = "$want" ] && cmp -s "$1/mft" "$1/mft.prev"; then
			echo "$n"
			return 0
		fi
		sleep 0.2
	done
	echo "$n"
	return 1
}

# walk_tree DIR MEMBERS: flood a packet from every member along DIR/mft
# (a switch forwards to every MFT port but the one it came in on).
# Prints "ok SWITCHES LINKS" or "bad" and what went wrong.
walk_tree() {
	awk -v members="$2" '
		FILENAME == ARGV[1] {
			peer[$1 " " $2] = $3 " " $4; pport[$1 " " $2] = $5
			if ($3 == "C") { attach[$4] = $1; attport[$4] = $2 }
			next
		}
		$1 == "MFT" { mft[$2 " " $3] = 1; tree[$2] = 1 }
		END {
			nm = split(members, mem, " "); bad = ""
			for (i = 1; i <= nm; i++) { ismember[mem[i]] = 1
				if (!(mem[i] in attach)) bad = bad " " mem[i] ":not-in-net-file" }
			nsw = 0; for (s in tree) nsw++
			links = 0
			for (k in mft) {
				split(k, a, " ")
				if (a[2] == 0) { bad = bad " " a[1] ":port0"; continue }
				if (!(k in peer)) { bad = bad " " a[1] ":port" a[2] "-unconnected"; continue }
				split(peer[k], p, " ")
				if (p[1] == "S") {
					links++
					if (!((p[2] " " pport[k]) in mft)) bad = bad " " a[1] ":" a[2] "-one-way"
				}
			}
			links /= 2
			if (links != nsw - 1) bad = bad " " nsw "-switches-" links "-links"
			for (i = 1; i <= nm; i++) {
				src = mem[i]; if (!(src in attach)) continue
				split("", got); split("", seen); qh = 1; qt = 1
				qs[1] = attach[src]; qi[1] = attport[src]
				if (!((attach[src] " " attport[src]) in mft)) bad = bad " " src ":port-not-in-mft"
				while (qh <= qt) {
					s = qs[qh]; from = qi[qh]; qh++
					if (++seen[s] > 1) { bad = bad " " src ":" s "-reached-twice"; continue }
					for (k in mft) {
						split(k, a, " ")
						if (a[1] != s || a[2] == from || a[2] == 0 || !(k in peer)) continue
						split(peer[k], p, " ")
						if (p[1] == "S") { qt++; qs[qt] = p[2]; qi[qt] = pport[k] }
						else got[p[2]]++
					}
				}
				for (s in tree) if (!(s in seen)) bad = bad " " src ":" s "-not-reached"
				for (d in got) if (!(d in ismember)) bad = bad " " src "->" d "(non-member)x" got[d]
				for (j = 1; j <= nm; j++) {
					d = mem[j]; n = (d in got) ? got[d] : 0
					if ((d == src && n) || (d != src && n != 1)) bad = bad " " src "->" d "x" n
				}
			}
			print (bad == "" ? "ok " nsw " " links : "bad" bad)
		}' "$TMP/links" "$1/mft"
}

# predict_tree DIR MEMBERS: the tree OpenSM 3.3.23 builds (osm_mcast_mgr.c):
# its root is the switch of least max(hops to a member's switch + 1), ties
# going to the first switch of its GUID table (keyed by the GUID in network
# byte order, so ordered by the byte-reversed GUID on x86); from the root
# each member is reached through, at every switch, the first port of least
# hops to the member's switch LID.  With our hop tables that port is the one
# our unicast routes (DIR/offline.lft, "GUID LID PORT") take; with OpenSM's
# own min-hop tables it would be the lowest port one hop nearer.  Prints
# "ok ROOT-LID MAX-HOPS TIES MINHOP-ROOT-LID same|differs" when DIR/mft is
# the tree of our routes (and whether a min-hop tree would be the same),
# else "bad" and the differences.
predict_tree() {
	awk -v members="$2" '
		function norm(g) { g = tolower(g); sub(/^0x/, "", g); sub(/^0+/, "", g); return g }
		function order(g,   s, i, r) {
			s = sprintf("%16s", g); gsub(/ /, "0", s); r = "k"
			for (i = 15; i >= 1; i -= 2) r = r substr(s, i, 2)
			return r
		}
		function is_sw(k) { return (k in peer) && substr(peer[k], 1, 1) == "S" }
		# the port switch s takes towards switch w
		function nexthop(s, w, mode,   p, k) {
			if (mode == "ours") return lft[s " " swlid[w]]
			for (p = 1; p <= maxport; p++) {
				k = s " " p
				if (is_sw(k) && dist[substr(peer[k], 3) " " w] == dist[s " " w] - 1) return p
			}
			return -1
		}
		function hops(s, w, mode,   n, k) {
			for (n = 0; s != w && n < 64; n++) {
				k = s " " nexthop(s, w, mode)
				if (!is_sw(k)) return -1
				s = substr(peer[k], 3)
			}
			return s == w ? n : -1
		}
		# the root OpenSM picks; sets best[mode] and ties[mode]
		function root(mode,   r, i, h, worst, pick) {
			best[mode] = 1000; ties[mode] = 0; pick = ""
			for (r in swlid) {
				worst = 0
				for (i = 1; i <= nm; i++) {
					h = hops(r, attach[mem[i]], mode)
					if (h < 0) { worst = 1000; break }
					if (h + 1 > worst) worst = h + 1
				}
				maxh[r] = worst
				if (worst < best[mode]) best[mode] = worst
			}
			for (r in swlid) {
				if (maxh[r] != best[mode]) continue
				ties[mode]++
				if (pick == "" || order(r) < order(pick)) pick = r
			}
			return best[mode] < 1000 ? pick : ""
		}
		# the (switch, port) pairs of the tree from root r, into want[]
		function tree(r, mode,   i, s, w, k) {
			split("", want)
			for (i = 1; i <= nm; i++) {
				s = r; w = attach[mem[i]]
				while (s != w) {
					k = s " " nexthop(s, w, mode); want[k] = 1
					s = substr(peer[k], 3); want[s " " pport[k]] = 1
				}
				want[w " " attport[mem[i]]] = 1
			}
		}
		function differences(   k, d) {
			d = ""
			for (k in want) if (!(k in mft)) d = d " missing:" k
			for (k in mft) if (!(k in want)) d = d " extra:" k
			return d
		}
		FILENAME == ARGV[1] {
			peer[$1 " " $2] = $3 " " $4; pport[$1 " " $2] = $5
			if ($3 == "C") { attach[$4] = $1; attport[$4] = $2 }
			if ($2 > maxport) maxport = $2
			next
		}
		FILENAME == ARGV[2] { if ($1 == "LID") swlid[$2] = $3; else if ($1 == "MFT") mft[$2 " " $3] = 1; next }
		{ lft[norm($1) " " $2] = $3 }
		END {
			nm = split(members, mem, " ")
			for (w in swlid) {		# switch-to-switch distances
				split("", q); q[1] = w; qh = 1; qt = 1; dist[w " " w] = 0
				while (qh <= qt) {
					s = q[qh++]
					for (k in peer) {
						split(k, a, " ")
						if (a[1] != s || !is_sw(k)) continue
						t = substr(peer[k], 3)
						if (!((t " " w) in dist)) { dist[t " " w] = dist[s " " w] + 1; q[++qt] = t }
					}
				}
			}
			r = root("ours")
			if (r == "") { print "bad no switch reaches every member along our routes"; exit }
			tree(r, "ours"); d = differences()
			m = root("minhop"); tree(m, "minhop")
			minhop = differences() == "" ? "same" : "differs"
			if (d == "") { print "ok " swlid[r] " " best["ours"] " " ties["ours"] " " swlid[m] " " minhop; exit }
			printf "bad root LID %d (max hops %d):%s", swlid[r], best["ours"], d
			if (minhop == "same") printf " (it is the tree of min-hop routes from LID %d)", swlid[m]
			print ""
		}' "$TMP/links" "$1/mft" "$1/offline.lft"
}

# check_group DIR ENGINE MEMBERS LABEL: the walk and the prediction on DIR/mft.
check_group() {
	cg_dir=$1 cg_engine=$2 cg_members=$3 cg_label=$4
	cg_n=$(printf '%s\n' $3 | wc -l)
	verdict=$(walk_tree "$cg_dir" "$cg_members")
	if [ "${verdict%% *}" = ok ]; then
		set -- $verdict
		pass "$cg_engine: $cg_label: the MFTs of $2 of $nswitches switches form a loop-free tree ($3 links) delivering each of the $cg_n members' packets to the $((cg_n - 1)) others exactly once, to none of the $((nhosts - cg_n)) other hosts"
	else
		flunk "$cg_engine: $cg_label: multicast walk failed:${verdict#bad}"
		sed 's/^/# /' "$cg_dir/mft"
	fi
	verdict=$(predict_tree "$cg_dir" "$cg_members")
	if [ "${verdict%% *}" = ok ]; then
		set -- $verdict
		if [ "$6" = same ]; then
			how="as our hop tables make it (a min-hop model gives the same tree here)"
		else
			how="so OpenSM built it on our hop tables (a min-hop model gives another tree, root LID $5)"
		fi
		pass "$cg_engine: $cg_label: the tree is our $cg_engine unicast routes from OpenSM's root switch LID $2 (max hops $3, $4 tied) to the members' switches, $how"
	else
		flunk "$cg_engine: $cg_label: the MFTs are not our unicast routes from OpenSM's root:${verdict#bad}"
	fi
}

for engine in $("$IBROUTING" engines --names); do
	dir=$TMP/mc-$engine
	if ! opensm_daemon "$dir" "$engine"; then
		flunk "$engine: OpenSM did not come up"
		opensm_stop
		continue
	fi
	if grep -q "$engine tables configured on all switches" "$dir/osm.log" &&
	   ! grep -q "building routing with 'minhop'" "$dir/osm.log"; then
		pass "$engine: OpenSM is up and routed with $engine: $(grep -o "$engine tables configured on all switches" "$dir/osm.log")"
	else
		flunk "$engine: OpenSM did not route with $engine"
		grep -E "ERR|routing|tables configured" "$dir/osm.log" | sed 's/^/# /' | head -10
	fi
	"$IBROUTING" route -e "$engine" --print-lfts "$net" | grep '^0x' > "$dir/offline.lft"

	# every member joins; all must get one MLID
	joined=0
	for m in $members; do
		if SIM_HOST=$m LD_PRELOAD=$UMAD2SIM "$MCJOIN" "$mgid" > "$dir/join-$m" 2> "$dir/join-$m.err"; then
			joined=$((joined + 1))
		else
			sed "s/^/# $m: /" "$dir/join-$m.err"
		fi
	done
	mlids=$(for m in $members; do sed -n 's/^mlid //p' "$dir/join-$m"; done | sort -u)
	if [ "$joined" = 4 ] && [ "$(echo "$mlids" | wc -w)" = 1 ]; then
		pass "$engine: $joined/4 hosts joined $mgid as full members through the SA: MLID $mlids for all"
	else
		flunk "$engine: $joined/4 hosts joined $mgid, MLIDs: $(echo $mlids)"
		opensm_stop
		continue
	fi
	mlid=$mlids

	if reads=$(wait_mfts "$dir" "$mlid" "$members"); then
		pass "$engine: MLID $mlid programmed in the switches' MFTs for exactly the 4 members' ports ($reads reads)"
	else
		flunk "$engine: MLID $mlid: the MFTs did not settle on the 4 members' ports in $reads reads"
	fi
	check_group "$dir" "$engine" "$members" "4 members"

	# one member leaves: OpenSM prunes the tree
	reads=
	rest=$(printf '%s\n' $members | grep -vx "$leaver" | tr '\n' ' ')
	if SIM_HOST=$leaver LD_PRELOAD=$UMAD2SIM "$MCJOIN" --leave "$mgid" > "$dir/leave" 2>&1 &&
	   reads=$(wait_mfts "$dir" "$mlid" "$rest"); then
		pass "$engine: $leaver left through the SA; MFTs now set for exactly the 3 remaining members' ports ($reads reads)"
	else
		flunk "$engine: $leaver's leave: $(cat "$dir/leave"); MFT reads: ${reads:-none}"
	fi
	check_group "$dir" "$engine" "$rest" "after $leaver left, 3 members"

	opensm_stop
	if grep -E ' 0x01 -> |ERR [0-9A-F]{4}:' "$dir/osm.log" > "$dir/errors"; then
		flunk "$engine: OpenSM logged errors:"
		head -5 "$dir/errors" | sed 's/^/# /'
	elif ! grep -q "Exiting SM" "$dir/osm.log"; then
		flunk "$engine: OpenSM did not log 'Exiting SM' on SIGINT"
	else
		pass "$engine: no ERR line in OpenSM's log ($(grep -c . "$dir/osm.log") lines); it exited on SIGINT"
	fi
done
finish
