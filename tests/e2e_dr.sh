#!/bin/sh
# e2e_dr.sh - the multi-LID engines inside OpenSM, and the SA handing out
# their designated DLIDs.  ibsim serves a generated random fabric; OpenSM
# runs as a daemon (SA up) with `routing_engine dr` and `lmc 2`, then
# `colorl` at `lmc 2` (once more with its path selection in 3 parts and 2
# batches on 3 worker threads) and `lmc 3`, the plugin dumping its tables
# (dump_dir); on each:
#   - OpenSM routed with dr, logged no error, and the INFO line carries
#     dr's figures (LIDs needed, fallback pairs, ...);
#   - every LID of every range read back from the switches (dump_fts, and
#     smpdump for the top LID) equals the plugin's dumped tables;
#   - `ibrouting verify` accepts OpenSM's own dumps together with the
#     plugin's ibrouting-dlids.dump (every designated pair delivered);
#   - ibdmchk finds no credit loop;
#   - for host pairs (A, B) whose designated DLID is not B's base LID
#     (ibrouting-dlids.dump), a PathRecord SubnAdmGet from A (tests/prquery,
#     SGID; and once by SLID and once with no source) names exactly that
#     DLID; a pair on the base LID gets the base LID; saquery (GetTable)
#     sees the base LID;
#   - ibtracert from A's LID to that DLID crosses exactly the switches and
#     ports of the walk through the plugin's dumped tables;
# then, restarted with `sa_designated_dlids no`, the same Gets get the base
# LID; and a pass with `lmc 0` logs WRN IB22 and routes as fera does (an
# ERR IB05 for a bad sa_designated_dlids value, the default kept).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
need_tool saquery ibtracert
PRQUERY=${PRQUERY:-$(dirname "$IBROUTING")/tests/prquery}
[ -x "$PRQUERY" ] || skip "$PRQUERY was not built (configure found no libibmad/libibumad: Debian libibmad-dev, libibumad-dev)"
"$IBROUTING" engines --names | grep -qx dr || skip "engine dr is not in the registry"

PAIRS=${PAIRS:-8}    # designated pairs checked through the SA and ibtracert
net=$TMP/dr.net
"$IBROUTING" generate -o "$net" random:sw=12,ca=32,seed=5 > /dev/null
ibsim_start "$net"

# port GUID -> ibsim node name (SIM_HOST), from the net file's CA blocks:
# "PORT-GUID NAME", GUIDs as 0x%016x.
ca_names "$net" > "$TMP/ca_names"

# dr_daemon NAME ENGINE LMC PLUGIN-CONF-LINES: OpenSM as a daemon (as
# opensm_daemon) with `lmc LMC`, its dumps in $TMP/NAME/dump, our
# options file in $TMP/NAME/plugin.conf.
dr_daemon() {
	d=$TMP/$1
	mkdir -p "$d/cache" "$d/dump" "$d/ours"
	# lowest ports: the papers' tie rule, under which dr renames on this
	# fabric (balanced, FERa's tree is minimal almost everywhere here
	# and dr keeps it: nothing would be designated)
	printf 'port_choice lowest\n%s\n' "$4" > "$d/plugin.conf"
	printf 'event_plugin_name ibrouting\nrouting_engine %s\nlmc %s\nforce_log_flush TRUE\ndump_files_dir %s/dump/\n' \
		"$2" "$3" "$d" > "$d/opensm.conf"
	IBROUTING_CONF=$d/plugin.conf OSM_CACHE_DIR=$d/cache \
		LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$UMAD2SIM \
		opensm -F "$d/opensm.conf" -f "$d/osm.log" -D 0x43 > "$d/out" 2>&1 &
	OSM_PID=$!
	osm_wait 300 grep -q "SUBNET UP" "$d/osm.log" 2>/dev/null
}

# sa_get NAME SRC-GUID DST-GUID [OPT]: the DLID of prquery's answer from
# the CA of SRC-GUID; "slid" of the answer in $TMP/NAME.slid.
sa_get() {
	host=$(awk -v g="$2" '$1 == g { print $2 }' "$TMP/ca_names")
	SIM_HOST=$host LD_PRELOAD=$UMAD2SIM "$PRQUERY" ${4:-} "$3" 2> "$TMP/$1.err" |
		awk '{ print $2 > "/dev/stderr"; print $4 }' 2> "$TMP/$1.dlid" > "$TMP/$1.slid" || true
	cat "$TMP/$1.dlid"
}


# ---- designated DLIDs handed out ------------------------------------------
# designated_run ENGINE LMC FIGURES: OpenSM routes with ENGINE at `lmc LMC`,
# the plugin dumping its tables; every check of the header on that run;
# FIGURES is what the INFO line must carry.  Leaves $dir (its files).
designated_run() {
	engine=$1 lmc=$2 figures=$3 extra=${4:-}
	name=$engine-lmc$lmc${5:+-$5} dir=$TMP/$engine-lmc$lmc${5:+-$5}
	dr_daemon "$name" "$engine" "$lmc" "dump_dir $dir/ours${extra:+
$extra}" || flunk "$name: OpenSM did not come up"
	log_has "$name" "$engine tables configured on all switches" "OpenSM routed with $engine"
	log_has "$name" "build_lid_matrices: $engine: .*$figures.*verified" "$engine's figures in the INFO line"
	log_has "$name" "$engine: SA PathRecord Gets name designated DLIDs: [1-9][0-9]* end-port pairs" "table handed to the SA"
	if grep -q ' 0x01 -> \|WRN IB22\|building routing with .minhop' "$dir/osm.log"; then
		flunk "$name: error, lmc warning or fallback in OpenSM's log"
		grep ' 0x01 -> \|WRN IB22\|minhop' "$dir/osm.log" | head -5 | sed 's/^/# /'
	fi

	switch_lfts > "$dir/switches.lft"
	dump_lfts "$dir/ours/opensm-lfts.dump" > "$dir/ours.lft"
	lids=$(awk '{ print $2 }' "$dir/ours.lft" | sort -un | wc -l)
	if [ -s "$dir/switches.lft" ] && cmp -s "$dir/switches.lft" "$dir/ours.lft"; then
		pass "$name: $(wc -l < "$dir/switches.lft") LFT entries ($lids LIDs) read back from the switches equal the plugin's dump"
	else
		flunk "$name: switch LFTs differ from the plugin's dump ($(wc -l < "$dir/switches.lft") vs $(wc -l < "$dir/ours.lft") entries)"
		diff "$dir/switches.lft" "$dir/ours.lft" | head -10 | sed 's/^/# /'
	fi

	# our verifier (with the designated DLIDs) and ibdmchk on OpenSM's
	# dumps.  ibdmchk at its default LMC 0 follows every CA pair on the
	# base LIDs; with -l 2 it stops at the LIDs above a base that
	# multi-LID engines leave without a route off their designated paths
	# ("un-reachable lids"), so those are left to the verifier (every walk
	# of every LID, acyclic).
	cp "$dir/ours/ibrouting-dlids.dump" "$dir/dump/"
	judge_dump "$dir"
	if [ "$findings" = 0 ]; then
		pass "$name: ibrouting verify on OpenSM's dumps + ibrouting-dlids.dump: $(grep '^verify' "$dir/verify.out")"
	else
		flunk "$name: ibrouting verify on OpenSM's dumps failed:"
		sed 's/^/# /' "$dir/verify.out"
	fi
	if [ "$loops" = 0 ]; then
		pass "$name: ibdmchk (base LIDs): $(grep -o 'Scanned:[0-9]* CA to CA paths' "$dir/ibdmchk.out"), no credit loops found"
	else
		flunk "$name: ibdmchk reports a credit loop or did not finish:"
		grep -E -- "-E-|-W-|credit" "$dir/ibdmchk.out" | head -10 | sed 's/^/# /'
	fi

	# The links: "GUID PORT TYPE PEER-GUID PEER-PORT PEER-TYPE" from OpenSM's
	# subnet list, both directions (port GUIDs, PN in hex), for the walks.
	awk 'function hex(s,   v, i) {
			v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		{ n = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "{") { n++; t[n] = $(i + 1); sub(/-SM$/, "", t[n]) }
			if ($i ~ /^PortGUID:/) g[n] = "0x" tolower(substr($i, 10))
			if ($i ~ /^PN:/) p[n] = hex(substr($i, 4))
		}
		print g[1], p[1], t[1], g[2], p[2], t[2]; print g[2], p[2], t[2], g[1], p[1], t[1] }' \
		"$dir/dump/opensm-subnet.lst" | sort -u > "$dir/links"

	# Pairs off the base LID, spread over the file: up to $PAIRS of them.
	grep -v '^#' "$dir/ours/ibrouting-dlids.dump" > "$dir/dlids"
	total=$(wc -l < "$dir/dlids")
	step=$(( total / PAIRS > 0 ? total / PAIRS : 1 ))
	awk -v step="$step" -v max="$PAIRS" 'NR % step == 0 && n < max { print; n++ }' "$dir/dlids" > "$dir/pairs"

	got=0 traced=0 seen="" bad=""
	while read -r src slid dst dbase dlid; do
		[ -n "$dlid" ] || continue
		answer=$(sa_get get "$src" "$dst")
		if [ "$answer" = "$dlid" ] && [ "$(cat "$TMP/get.slid")" = "$slid" ]; then
			got=$((got + 1)); seen="$seen $dlid"
		else
			bad="$bad prquery($src->$dst: '$answer' slid '$(cat "$TMP/get.slid")', want $dlid slid $slid: $(cat "$TMP/get.err"))"
		fi
		# The walk through the plugin's tables from A's switch: "SW DLID PORT".
		awk -v src="$src" -v dlid="$dlid" '
			FNR == NR { peer[$1 " " $2] = $4 " " $5; type[$1] = $3; next }
			{ out[$1 " " $2] = $3 }
			END {
				split(peer[src " 1"], at, " "); sw = at[1]
				for (hops = 0; hops < 64 && (sw " " dlid) in out; hops++) {
					port = out[sw " " dlid]; print sw, dlid, port
					if (port == 0) exit
					split(peer[sw " " port], at, " ")
					if (type[at[1]] != "SW") exit
					sw = at[1]
				}
			}' "$dir/links" "$dir/ours.lft" | sort > "$dir/walk"
		# ibtracert from A itself: a DLID above the base delivers from the switches of
		# its designated paths only, so ibtracert's own MADs to it must
		# start at A (from the SM's switch they may find no route)
		SIM_HOST=$(awk -v g="$src" '$1 == g { print $2 }' "$TMP/ca_names") LD_PRELOAD=$UMAD2SIM \
			ibtracert "$slid" "$dlid" 2>/dev/null | trace_hops "$dlid" | sort > "$dir/trace"
		if [ -s "$dir/trace" ] && cmp -s "$dir/trace" "$dir/walk"; then
			traced=$((traced + 1))
		else
			bad="$bad ibtracert($slid->$dlid: $(wc -l < "$dir/trace") hops vs walk $(wc -l < "$dir/walk"))"
			diff "$dir/trace" "$dir/walk" | head -6 | sed 's/^/# /'
		fi
	done < "$dir/pairs"
	npairs=$(wc -l < "$dir/pairs")
	if [ "$npairs" -gt 0 ] && [ -z "$bad" ]; then
		pass "$name: $got/$npairs PathRecord Gets from A named the designated DLID (of $total pairs off the base LID; DLIDs$seen); $traced/$npairs ibtracert paths follow the plugin's tables hop by hop"
	else
		flunk "$name: $npairs pairs; failures:$bad"
	fi

	# One pair by SLID, and one with no source (the SA takes the requester);
	# a pair on the base LID; saquery, which asks with GetTable.
	read -r src slid dst dbase dlid < "$dir/pairs"
	by_slid=$(sa_get slid "$src" "$dst" -l)
	no_src=$(sa_get nosrc "$src" "$dst" -n)
	[ "$by_slid" = "$dlid" ] && [ "$no_src" = "$dlid" ] &&
		pass "$name: by SLID and with no source, A=$src gets DLID $dlid for B=$dst" ||
		flunk "$name: by SLID '$by_slid', no source '$no_src' ($(cat "$TMP/slid.err" "$TMP/nosrc.err")), want $dlid"
	awk '{ print $1, $2 }' "$TMP/ca_names" | while read -r g _; do echo "$src $g"; done |
		grep -v "^$src $src\$" | awk 'FNR == NR { off[$1 " " $3] = 1; next } !(($1 " " $2) in off)' "$dir/dlids" - |
		head -n 1 > "$dir/base_pair"
	read -r bsrc bdst < "$dir/base_pair"
	bbase=$(grep -i "portguid $bdst" "$dir/dump/opensm-lfts.dump" | head -n 1 | awk '{ print $1 }')
	bbase=$(printf '%d' "$bbase")
	answer=$(sa_get base "$bsrc" "$bdst")
	[ "$answer" = "$bbase" ] && pass "$name: a pair on the base LID ($bsrc -> $bdst) gets the base LID $bbase" ||
		flunk "$name: pair $bsrc -> $bdst on the base LID got '$answer', want $bbase: $(cat "$TMP/base.err")"
	gid() { echo "$1" | sed 's/^0x//; s/^\(....\)\(....\)\(....\)\(....\)$/fe80::\1:\2:\3:\4/'; }
	sq=$(LD_PRELOAD=$UMAD2SIM saquery PR --sgid-to-dgid "$(gid "$src")-$(gid "$dst")" 2>/dev/null |
		sed -n 's/.*dlid\.*\([0-9]*\)$/\1/p' | head -n 1)
	[ "$sq" = "$dbase" ] && pass "$name: saquery PR --sgid-to-dgid (a GetTable, untouched) from A to B: first record on the base LID $sq" ||
		flunk "$name: saquery PR --sgid-to-dgid A to B: first dlid '$sq', want the base LID $dbase"
	opensm_stop
	log_has "$name" "ibrouting: SA: [1-9][0-9]* PathRecord Gets answered for a designated DLID" "the wrapper's count at exit"
}

designated_run dr 2 "LIDs needed.*fallback pairs"


# ---- sa_designated_dlids no: the SA answers base LIDs ---------------------
name=dr-no-sa dir2=$TMP/dr-no-sa
dr_daemon "$name" dr 2 "sa_designated_dlids no" || flunk "$name: OpenSM did not come up"
log_has "$name" "dr tables configured on all switches" "OpenSM routed with dr"
based=0 bad=""
while read -r src slid dst dbase dlid; do
	answer=$(sa_get noget "$src" "$dst")
	[ "$answer" = "$dbase" ] && based=$((based + 1)) || bad="$bad $src->$dst:'$answer'(base $dbase)"
done < "$dir/pairs"
[ -z "$bad" ] && pass "$name: $based/$npairs PathRecord Gets answered the base LID" ||
	flunk "$name: Gets not on the base LID:$bad"
opensm_stop

# ---- lmc 0: dr routes as fera, and says so ---------------------------------
name=dr-lmc0 dir0=$TMP/dr-lmc0
dr_daemon "$name" dr 0 "sa_designated_dlids maybe" || flunk "$name: OpenSM did not come up"
log_has "$name" "WRN IB22: dr: lmc 0: needs lmc >= 1 for several LIDs per destination; routing as fera" "lmc warning"
log_has "$name" "ERR IB05: .*plugin.conf:2: sa_designated_dlids \"maybe\": expected yes or no; using yes" "bad option value"
log_has "$name" "dr tables configured on all switches" "OpenSM routed with dr"
sm=$(sm_node_guid "$dir0/dump/opensm-subnet.lst")
switch_lfts > "$dir0/switches.lft"
"$IBROUTING" route -e fera --port-choice lowest --sm "$sm" --print-lfts "$dir0/dump" | grep '^0x' | sort > "$dir0/fera.lft"
if [ -s "$dir0/switches.lft" ] && cmp -s "$dir0/switches.lft" "$dir0/fera.lft"; then
	pass "$name: $(wc -l < "$dir0/switches.lft") LFT entries on the switches equal fera's ('ibrouting route -e fera' on OpenSM's dumps)"
else
	flunk "$name: switch LFTs differ from fera's"
	diff "$dir0/switches.lft" "$dir0/fera.lft" | head -6 | sed 's/^/# /'
fi
opensm_stop

# ---- colorl, at lmc 2 and 3 (last: each LMC moves the LIDs ibsim keeps) ----
designated_run colorl 2 "CA LIDs needed.*pairs moved"
# its path selection in 3 parts and 2 batches on 3 worker threads inside
# OpenSM (an option refused would be an ERR line, which fails the run)
designated_run colorl 2 "CA LIDs needed.*pairs moved.*2 selection batches" "colorl_parts 3
colorl_batches 2
threads 3" parts3
designated_run colorl 3 "CA LIDs needed.*pairs moved"
finish
