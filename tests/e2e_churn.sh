#!/bin/sh
# e2e_churn.sh - OpenSM with our engines through 100+ topology changes.
#
# ibsim serves a generated random fabric (12 switches, 24 CAs); OpenSM
# runs as a daemon (sweep every second) with our plugin, its tables dumped
# after every push (dump_dir).  Bursts of 2 to 5 changes, written to
# ibsim's console 0 to 0.3 s apart (so OpenSM often sweeps in the middle
# of one): inter-switch link cuts (Unlink), relinks of cut links (ReLink),
# a switch taken down (Unlink of all its links, its CAs fall off with it)
# and returned (ReLink).  The SM's switch (the first of the file, where
# ibsim attaches OpenSM) is never taken down; the fabric may split, and
# the part OpenSM no longer reaches is not its to route.  Each session
# ends with a burst that restores every link.  After each burst, once
# OpenSM has settled (its last routing, then two light sweeps that began
# nothing), one state is checked:
#   - OpenSM is running and routed with our engine: no fallback to minhop
#     and no ERR line of ours since the burst began;
#   - the tables read back from the switches (dump_fts) equal the plugin's
#     dump of its last run, and `ibrouting verify` accepts that dump: every
#     walk between the ports OpenSM reaches delivered, no loop, an acyclic
#     channel dependency graph.
# pira and dr (lmc 1) in plain daemons, fera under valgrind (no invalid
# access or definite leak whose stack passes through our plugin).  The
# changes are drawn from a fixed seed (CHURN_SEED), so a failure replays.
# Prints: changes applied, states checked, failures.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
need_tool valgrind

net=$TMP/churn.net
"$IBROUTING" generate -o "$net" random:sw=12,ca=24,seed=7 > /dev/null
ibsim_start "$net"
seed=${CHURN_SEED:-11}
changes=0 states=0 failed_states=0 t_start=$(date +%s)

# Every inter-switch link once, "A PA B PB" (ibsim names, ports).
awk '/^Switch/ { sw = $3; gsub(/"/, "", sw); next }
	/^$/ { sw = "" }
	sw != "" && $2 ~ /^"S-/ {
		p = $1; gsub(/[][]/, "", p)
		peer = $2; sub(/^"/, "", peer); pp = peer
		sub(/".*/, "", peer); sub(/.*\[/, "", pp); sub(/\].*/, "", pp)
		k = (sw < peer) ? sw " " p " " peer " " pp : peer " " pp " " sw " " p
		if (!(k in seen)) { seen[k] = 1; print k }
	}' "$net" > "$TMP/links"
awk '/^Switch/ { s = $3; gsub(/"/, "", s); print s }' "$net" > "$TMP/switches"
sm_switch=$(head -n 1 "$TMP/switches")
: > "$TMP/cut"
down=

# rand N: r, a number in 0..N-1 (a fixed LCG: the same changes each run)
rand() {
	seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
	r=$(( (seed / 65536) % $1 ))
}

# pick FILE: line r of FILE into `line`, after rand over its lines
pick() {
	n=$(wc -l < "$1")
	rand "$n"
	line=$(sed -n "$((r + 1))p" "$1")
}

ibsim_cmd() {
	echo "$1" >&7
	changes=$((changes + 1))
	echo "$1" >> "$dir/changes"
}

# One change, chosen among those possible now: cut an intact link, relink
# a cut one, take a switch down or bring it back.  OP forces a kind.
change() {
	op=${1:-}
	# intact links not touching the switch that is down
	grep -vxF -f "$TMP/cut" "$TMP/links" | { [ -z "$down" ] && cat || grep -v "$down" || true; } > "$TMP/intact"
	{ [ -z "$down" ] && cat "$TMP/cut" || grep -v "$down" "$TMP/cut" || true; } > "$TMP/relinkable"
	if [ -z "$op" ]; then
		rand 10
		if [ "$r" -lt 5 ]; then op=cut
		elif [ "$r" -lt 8 ]; then op=relink
		else op=switch
		fi
	fi
	[ "$op" != relink ] || [ -s "$TMP/relinkable" ] || op=cut
	[ "$op" != cut ] || [ -s "$TMP/intact" ] || op=relink
	case $op in
	cut)
		pick "$TMP/intact"
		set -- $line
		ibsim_cmd "Unlink \"$1\"[$2]"
		echo "$line" >> "$TMP/cut" ;;
	relink)
		pick "$TMP/relinkable"
		set -- $line
		ibsim_cmd "ReLink \"$1\"[$2]"
		grep -vxF "$line" "$TMP/cut" > "$TMP/cut.new" || true
		mv "$TMP/cut.new" "$TMP/cut" ;;
	switch)
		if [ -n "$down" ]; then
			# every link of the switch comes back, those cut one
			# by one before it went down too
			ibsim_cmd "ReLink \"$down\""
			grep -v "$down" "$TMP/cut" > "$TMP/cut.new" || true
			mv "$TMP/cut.new" "$TMP/cut"
			down=
		else
			grep -vxF "$sm_switch" "$TMP/switches" > "$TMP/candidates"
			pick "$TMP/candidates"
			down=$line
			ibsim_cmd "Unlink \"$down\""
		fi ;;
	esac
}

# restore: every link back (one burst: the switch, then each cut link)
restore() {
	[ -z "$down" ] || change switch
	while read -r a pa _; do
		ibsim_cmd "ReLink \"$a\"[$pa]"
	done < "$TMP/cut"
	: > "$TMP/cut"
}

# check_state MARK WHAT: the checks of one settled state.
check_state() {
	states=$((states + 1))
	since=$TMP/since
	tail -n +"$(($1 + 1))" "$dir/osm.log" > "$since"
	last=$(grep "tables configured on all switches" "$since" | tail -n 1 | sed 's/.*-> //; s/^[a-z_]*: //')
	switch_lfts > "$dir/switches.lft"
	dump_lfts "$dir/ours/opensm-lfts.dump" > "$dir/ours.lft"
	"$IBROUTING" verify "$dir/ours" > "$dir/verify.out" 2>&1 || true
	why=
	kill -0 "$OSM_PID" 2>/dev/null || why="OpenSM died"
	[ -n "$why" ] || ! grep -q "building routing with 'minhop'" "$since" || why="fell back to minhop"
	[ -n "$why" ] || ! grep -q "ERR IB[0-9]" "$since" || why="ERR line of ours: $(grep "ERR IB[0-9]" "$since" | head -n 1 | sed 's/.*-> //')"
	[ -n "$why" ] || [ "$last" = "$engine tables configured on all switches" ] || why="last tables: '$last'"
	[ -n "$why" ] || { [ -s "$dir/switches.lft" ] && cmp -s "$dir/switches.lft" "$dir/ours.lft"; } ||
		why="the $(wc -l < "$dir/switches.lft") entries read back differ from the plugin's dump ($(wc -l < "$dir/ours.lft"))"
	[ -n "$why" ] || grep -q '^verify    OK' "$dir/verify.out" || why="verify: $(grep '^verify' "$dir/verify.out")"
	if [ -z "$why" ]; then
		echo "#   $2: $(wc -l < "$dir/switches.lft") entries read back = dump; $(grep -m1 '^verify    ' "$dir/verify.out" | cut -c11-70)"
		return 0
	fi
	failed_states=$((failed_states + 1))
	flunk "$name: $2: $why"
	diff "$dir/switches.lft" "$dir/ours.lft" | head -5 | sed 's/^/# /'
	grep -E '^verify|FAIL|unreach' "$dir/verify.out" | head -3 | sed 's/^/# /'
	tail -n 8 "$dir/changes" | sed 's/^/#   change: /'
}

# session NAME ENGINE LMC CHANGES [valgrind]: one OpenSM daemon, bursts
# until CHANGES changes are applied, then the restoring burst.
session() {
	name=$1 engine=$2 lmc=$3 want=$4 vg=${5:-} dir=$TMP/$1
	limit=60
	[ -z "$vg" ] || limit=180
	mkdir -p "$dir/cache" "$dir/ours"
	: > "$dir/changes"
	printf 'dump_dir %s/ours\n' "$dir" > "$dir/plugin.conf"
	printf 'event_plugin_name ibrouting\nrouting_engine %s\nlmc %s\nsweep_interval 1\nforce_log_flush TRUE\n' \
		"$engine" "$lmc" > "$dir/opensm.conf"
	IBROUTING_CONF=$dir/plugin.conf OSM_CACHE_DIR=$dir/cache \
		LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$UMAD2SIM \
		${vg:+valgrind --leak-check=full --show-leak-kinds=definite --log-file=$dir/valgrind.log} \
		opensm -F "$dir/opensm.conf" -f "$dir/osm.log" -D 0x07 > "$dir/out" 2>&1 &
	OSM_PID=$!
	t0=$(date +%s) before=$changes states0=$states failed0=$failed_states
	if ! wait_settled 0 "$limit"; then
		flunk "$name: OpenSM did not route the fabric in $limit s"
		opensm_stop
		return 0
	fi
	check_state 0 "start"
	burst=0
	while [ $((changes - before)) -lt "$want" ] && kill -0 "$OSM_PID" 2>/dev/null; do
		burst=$((burst + 1))
		mark=$(wc -l < "$dir/osm.log")
		rand 4
		size=$((r + 2))
		for i in $(seq 1 "$size"); do
			# a switch goes down in the second burst and comes back
			# in the fourth: every session has one
			op=
			[ "$burst.$i" != 2.1 ] || [ -n "$down" ] || op=switch
			[ "$burst.$i" != 4.1 ] || [ -z "$down" ] || op=switch
			change $op
			rand 4
			sleep "0.$r"
		done
		if wait_settled "$mark" "$limit"; then
			check_state "$mark" "burst $burst ($size changes; $(wc -l < "$TMP/cut") links cut${down:+, $down down})"
		else
			states=$((states + 1)) failed_states=$((failed_states + 1))
			flunk "$name: burst $burst: OpenSM did not settle in $limit s"
		fi
	done
	mark=$(wc -l < "$dir/osm.log")
	restore
	if wait_settled "$mark" "$limit"; then
		check_state "$mark" "restored"
	else
		states=$((states + 1)) failed_states=$((failed_states + 1))
		flunk "$name: no settled state after the restoring burst"
	fi
	if [ $((failed_states - failed0)) = 0 ]; then
		pass "$name: $engine (lmc $lmc)${vg:+ under valgrind}: $((changes - before)) changes in $burst bursts and a restoring one, $((states - states0)) states checked: each routed by $engine, read back = its dump, verified ($(( $(date +%s) - t0 )) s)"
	fi
	kill -INT "$OSM_PID" 2>/dev/null || true
	wait "$OSM_PID" 2>/dev/null || true
	OSM_PID=
	if [ -n "$vg" ]; then
		ours=$(awk '/^==[0-9]+== *$/ { if (rec ~ /libibrouting|ibr_/ && rec ~ /(definitely lost|Invalid|uninitialised)/) n++; rec = ""; next }
			{ rec = rec $0 "\n" } END { print n + 0 }' "$dir/valgrind.log")
		if [ "$ours" = 0 ] && grep -q "ERROR SUMMARY" "$dir/valgrind.log"; then
			pass "$name: valgrind over $(grep -c "$engine tables configured" "$dir/osm.log") routing runs: no invalid access or definite leak in libibrouting"
		else
			flunk "$name: valgrind: $ours records in our plugin"
			grep -B2 -A12 "libibrouting" "$dir/valgrind.log" | head -40 | sed 's/^/# /'
		fi
	fi
}

session pira pira 0 "${CHURN_PIRA:-40}"
session dr dr 1 "${CHURN_DR:-40}"
session fera fera 0 "${CHURN_FERA_VALGRIND:-22}" valgrind
echo "# churn: $changes changes applied, $states states checked, $failed_states failures ($(( $(date +%s) - t_start )) s)"
[ "$changes" -ge 100 ] || [ -n "${CHURN_PIRA:-}${CHURN_DR:-}${CHURN_FERA_VALGRIND:-}" ] ||
	flunk "only $changes changes applied (100 or more wanted)"
# CHURN_KEEP=DIR keeps the logs
[ -z "${CHURN_KEEP:-}" ] || cp -r "$TMP"/. "$CHURN_KEEP"/
finish
