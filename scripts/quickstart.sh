#!/usr/bin/env bash
# Quick start, first command: install what is needed, build, serve the
# Fig. 1 fabric of the PIRa paper with ibsim, run stock OpenSM once with
# `routing_engine pira` and once with `routing_engine fera` through the
# ibrouting plugin, and show what was routed: OpenSM's log lines of the
# run and an ibtracert between two hosts named by their node description.
# Every line fits 100 columns.  Everything started is stopped.
# FABRIC=path/to/net-file picks another fabric (ibsim/ibnetdiscover form).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
./scripts/install-deps.sh
./scripts/build.sh
cd build

fabric=${FABRIC:-$top/tests/fabrics/fig1.net}
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
work=$(mktemp -d)
export IBSIM_SOCKNAME=ibrouting-quickstart-$$
mkfifo "$work/ibsim.in"
ibsim -s -N 4096 -S 512 -P 32768 "$fabric" < "$work/ibsim.in" > "$work/ibsim.out" 2>&1 &
ibsim_pid=$!
exec 7> "$work/ibsim.in"
cleanup() { exec 7>&-; kill "$ibsim_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
until grep -q "sim>" "$work/ibsim.out"; do sleep 0.1; done
echo "== ibsim serves $fabric"

# wrap: each line of standard input in lines of at most 100 columns,
# indented 3 spaces, continuation lines 5
wrap() {
	awk '{
		line = $0; indent = "   "
		while (length(indent line) > 100) {
			cut = 100 - length(indent)
			while (cut > 1 && substr(line, cut + 1, 1) != " ")
				cut--
			if (cut <= 1)
				break
			print indent substr(line, 1, cut)
			line = substr(line, cut + 2); indent = "     "
		}
		print indent line
	}'
}

# The two hosts the trace runs between: the CA ports with the lowest and
# the highest LID, as "LID<TAB>node description" lines (ibnetdiscover's
# output: a "Ca" line with the description after '#', then its ports).
hosts() {
	LD_PRELOAD=$umad2sim ibnetdiscover 2>/dev/null | awk '
		/^Ca/ { desc = $0; sub(/^[^#]*# *"/, "", desc); sub(/".*$/, "", desc); next }
		/^\[[0-9]+\]\(/ && desc != "" && match($0, /# lid [0-9]+/) {
			print substr($0, RSTART + 6, RLENGTH - 6) "\t" desc; desc = "" }' |
		sort -n | sed -n '1p;$p'
}

for engine in pira fera; do
	echo
	echo "== OpenSM routes the fabric once with routing_engine $engine ..."
	mkdir -p "$work/$engine/cache"
	printf 'event_plugin_name ibrouting\nrouting_engine %s\n' "$engine" > "$work/$engine/opensm.conf"
	OSM_CACHE_DIR=$work/$engine/cache LD_LIBRARY_PATH=$PWD/.libs LD_PRELOAD=$umad2sim \
		timeout -s INT 300 /usr/sbin/opensm -F "$work/$engine/opensm.conf" -o \
		-f "$work/$engine/osm.log" -D 0x07 > /dev/null 2>&1
	# the log's lines without OpenSM's function names; the engine's line
	# without its own counters (ibrouting route -v prints them)
	echo "== OpenSM with routing_engine $engine (from its log):"
	grep -E "ibrouting .* loaded|building routing with|build_lid_matrices: $engine: [0-9]|tables configured|SUBNET UP$" \
		"$work/$engine/osm.log" | sed -E -e 's/^.*-> //' -e 's/^[a-z_]+: //' \
		-e 's/^([a-z+]+: [0-9]+ switches, [0-9]+ CA ports, [0-9]+ LIDs), .*, ([0-9.]+ ms), /\1, routed in \2; /' |
		wrap
	{ IFS=$'\t' read -r src src_name; IFS=$'\t' read -r dst dst_name; } < <(hosts)
	# ibtracert reads the route from the switches' tables
	echo "== ibtracert from host \"$src_name\" (LID $src) to host \"$dst_name\" (LID $dst):"
	LD_PRELOAD=$umad2sim ibtracert "$src" "$dst" 2>/dev/null | wrap
done
echo
# from the top, so that the default fabric's name is short
cd "$top"
shown=${fabric#"$top"/}
echo "== offline, the same tables: ./build/ibrouting route -e pira $shown"
./build/ibrouting route -e pira "$shown"
