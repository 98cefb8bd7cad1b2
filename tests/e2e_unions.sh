#!/bin/sh
# e2e_unions.sh - no push of ours after a change goes unchecked, inside
# stock OpenSM over ibsim (reconf.h: every engine, single or hybrid, goes
# the reconfiguration machine's way).  Per fabric family an engine runs as
# a daemon; ibsim cuts two links, then takes a switch down; after each
# change, once the engine's way has ended (way_done), every routing INFO
# line of ours after the first says what was checked: the union with the
# prior tables verified (one push, or a safe step), entries emptied
# first, or the same as the prior tables; the tables read back verify.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

# generate NAME SPEC: the net file $TMP/NAME.net
generate() {
	"$IBROUTING" generate -o "$TMP/$1.net" "$2" > /dev/null 2> "$TMP/gen.err" ||
		{ flunk "generate $2: $(cat "$TMP/gen.err")"; finish; exit 1; }
}

# links NET N: N "SWITCH[PORT]" ends of inter-switch links, from switches
# spread over the file
links() {
	awk '/^Switch/ { sw = $3; gsub(/"/, "", sw); n++; next }
		/^$/ { sw = "" }
		sw != "" && n % 5 == 2 && /^\[[0-9]+\][ \t]+"S-/ && !(sw in done) {
			p = $1; gsub(/[^0-9]/, "", p); print "\"" sw "\"[" p "]"; done[sw] = 1 }' "$1" |
		head -n "$2"
}

# unchecked LOG ENGINE: routing INFO lines of ENGINE after its first
# that name no check of the union with the prior tables
unchecked() {
	grep "build_lid_matrices: $2[:,].* switches, " "$1" | tail -n +2 |
		grep -v -e "union with the prior tables" -e "emptied first" \
			-e "the same as the prior tables" -e "change refused" || true
}

# family NAME SPEC ENGINE LMC: the daemon, two cuts, a switch down
family() {
	name=$1 engine=$3 dir=$TMP/$1
	generate "$name" "$2"
	ibsim_start "$TMP/$name.net"
	mkdir -p "$dir/dump"
	OSM_DEBUG=0x43 opensm_daemon "$dir" "$engine" "$(printf 'sweep_interval 1\nlmc %s\ndump_files_dir %s/dump/' "$4" "$dir")" ||
		{ flunk "$name: OpenSM did not come up"; ibsim_stop; return; }
	wait_way_done "$dir/osm.log" "$engine" || flunk "$name: $engine's start-up did not end"
	changes=0
	for change in $(links "$TMP/$name.net" 2) down; do
		runs=$(grep -c "build_lid_matrices: $engine[:,].* switches, " "$dir/osm.log" || true)
		if [ "$change" = down ]; then
			victim=$(awk '/^Switch/ { n++; if (n == 3) { s = $3; gsub(/"/, "", s); print s; exit } }' "$TMP/$name.net")
			echo "Unlink \"$victim\"" >&7
		else
			echo "Unlink $change" >&7
		fi
		changes=$((changes + 1))
		for _ in $(seq 1 600); do
			[ "$(grep -c "build_lid_matrices: $engine[:,].* switches, " "$dir/osm.log" || true)" -gt "$runs" ] && break
			sleep 0.2
		done
		wait_way_done "$dir/osm.log" "$engine" || flunk "$name: the way after change $changes did not end"
	done
	bad=$(unchecked "$dir/osm.log" "$engine")
	pushes=$(grep -c "build_lid_matrices: $engine[:,].* switches, " "$dir/osm.log" || true)
	if [ -z "$bad" ] && [ "$pushes" -gt "$changes" ]; then
		pass "$name: $engine, $changes changes (2 cuts, a switch down), $pushes pushes, each after the first checked: $(grep -c 'emptied first' "$dir/osm.log" || true) emptying entries first, $(grep -c ', step [0-9]*[:,]' "$dir/osm.log" || true) steps"
	else
		flunk "$name: $engine: pushes without a union check after a change:"
		echo "$bad" | head -3 | sed 's/^/# /'
	fi
	readback "$name"
	if [ "$rb_findings" = 0 ]; then
		pass "$name: the tables read back at the end verify"
	else
		flunk "$name: the tables read back at the end: $rb_findings findings"
		grep -E '^(verify|  )' "$TMP/$name/readback.out" | head -4 | sed 's/^/# /'
	fi
	opensm_stop
	ibsim_stop
}

family tree kary:k=4,n=3 fera 0
family torus torus:dims=4x4,ca=2 dr 1
family random random:sw=24,ca=48,seed=4 pira 0
family dfplus dfplus:groups=5,leaves=2,spines=2 pira+colorl 1

finish
