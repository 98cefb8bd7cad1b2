#!/usr/bin/env bash
# Quick start, first command: install what is needed, build, serve the
# Fig. 1 fabric of the PIRa paper with ibsim, run stock OpenSM once with
# `routing_engine pira` and once with `routing_engine fera` through the
# ibrouting plugin, and show what was routed: OpenSM's log lines of the
# run and an ibtracert between two hosts.  Everything started is stopped.
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

for engine in pira fera; do
	echo
	echo "== OpenSM routes the fabric once with routing_engine $engine ..."
	mkdir -p "$work/$engine/cache"
	printf 'event_plugin_name ibrouting\nrouting_engine %s\n' "$engine" > "$work/$engine/opensm.conf"
	OSM_CACHE_DIR=$work/$engine/cache LD_LIBRARY_PATH=$PWD/.libs LD_PRELOAD=$umad2sim \
		timeout -s INT 300 /usr/sbin/opensm -F "$work/$engine/opensm.conf" -o \
		-f "$work/$engine/osm.log" -D 0x07 > /dev/null 2>&1
	echo "== OpenSM with routing_engine $engine (from its log):"
	grep -E "ibrouting .* loaded|building routing with|build_lid_matrices: $engine|tables configured|SUBNET UP$" \
		"$work/$engine/osm.log" | sed 's/^.*-> /   /'
	echo "== ibtracert from the first CA to the last, read from the switches:"
	lids=$(LD_PRELOAD=$umad2sim ibnetdiscover 2>/dev/null | sed -n 's/^\[1\](.*# lid \([0-9]*\) lmc.*/\1/p')
	src=$(echo "$lids" | head -n 1) dst=$(echo "$lids" | tail -n 1)
	LD_PRELOAD=$umad2sim ibtracert "$src" "$dst" 2>/dev/null | sed 's/^/   /'
done
echo
echo "== offline, the same tables: ./build/ibrouting route -e pira $fabric"
./ibrouting route -e pira "$fabric"
